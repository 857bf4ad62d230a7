/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gpu_helpers.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "common/numeric.h"
#include "settings.h"
#include "test_support.h"

namespace swdla_test {

std::vector<uint8_t> model_bytes (const std::string &name)
{
  std::ifstream f (dlainfer_test::test_data (name + ".swdla"), std::ios::binary);
  return std::vector<uint8_t> (std::istreambuf_iterator<char> (f), std::istreambuf_iterator<char> ());
}

swdla::Model parse (const std::string &name)
{
  const auto b = model_bytes (name);
  swdla::Model m;
  std::string why;
  if (!swdla::parse_model (b.data (), b.size (), &m, &why))
    m = swdla::Model{};
  return m;
}

std::string describe (cudlaStatus s)
{
  return swdla::status_text (int32_t (s)) + " [" + swdlaLastRefusal () + "]";
}

Env::Env (const char *name, const std::string &value) : name_ (name)
{
  if (const char *old = std::getenv (name)) {
    had_ = true;
    old_ = old;
  }
  setenv (name, value.c_str (), 1);
}

Env::~Env ()
{
  if (had_)
    setenv (name_.c_str (), old_.c_str (), 1);
  else
    unsetenv (name_.c_str ());
}

Session::~Session ()
{
  close ();
}

cudlaStatus Session::close ()
{
  cudlaStatus first = cudlaSuccess;
  auto keep = [&] (cudlaStatus s) {
    if (first == cudlaSuccess && s != cudlaSuccess)
      first = s;
  };
  for (auto *list : {&inputs, &outputs})
    for (Tensor &t : *list) {
      if (t.dla)
        keep (cudlaMemUnregister (dev, t.dla));
      cudaFree (t.cuda);
    }
  inputs.clear ();
  outputs.clear ();
  if (module)
    keep (cudlaModuleUnload (module, 0));
  module = nullptr;
  if (dev)
    keep (cudlaDestroyDevice (dev));
  dev = nullptr;
  return first;
}

std::string Session::open (const std::string &name, int core)
{
  const auto bytes = model_bytes (name);
  if (bytes.empty ())
    return "model " + name + " missing or empty in " + dlainfer_test::test_data ("");
  model = parse (name);
  cudlaStatus s = cudlaCreateDevice (uint64_t (core), &dev, CUDLA_CUDA_DLA);
  if (s != cudlaSuccess)
    return "cudlaCreateDevice: " + describe (s);
  s = cudlaModuleLoadFromMemory (dev, bytes.data (), bytes.size (), &module, 0);
  if (s != cudlaSuccess)
    return "cudlaModuleLoadFromMemory: " + describe (s);
  cudlaModuleAttribute a{};
  if ((s = cudlaModuleGetAttributes (module, CUDLA_NUM_INPUT_TENSORS, &a)) != cudlaSuccess)
    return "input count: " + describe (s);
  in_desc.resize (a.numInputTensors);
  if ((s = cudlaModuleGetAttributes (module, CUDLA_NUM_OUTPUT_TENSORS, &a)) != cudlaSuccess)
    return "output count: " + describe (s);
  out_desc.resize (a.numOutputTensors);
  a.inputTensorDesc = in_desc.data ();
  if ((s = cudlaModuleGetAttributes (module, CUDLA_INPUT_TENSOR_DESCRIPTORS, &a)) != cudlaSuccess)
    return "input descriptors: " + describe (s);
  a.outputTensorDesc = out_desc.data ();
  if ((s = cudlaModuleGetAttributes (module, CUDLA_OUTPUT_TENSOR_DESCRIPTORS, &a)) != cudlaSuccess)
    return "output descriptors: " + describe (s);
  auto make = [&] (const cudlaModuleTensorDescriptor &d, std::vector<Tensor> *list) -> std::string {
    Tensor t;
    t.dev = dev;
    t.size = d.size;
    if (cudaMalloc (&t.cuda, t.size) != cudaSuccess || cudaMemset (t.cuda, 0, t.size) != cudaSuccess)
      return "cudaMalloc/cudaMemset failed";
    const cudlaStatus r = cudlaMemRegister (dev, static_cast<const uint64_t *> (t.cuda), t.size, &t.dla, 0);
    list->push_back (t);
    if (r != cudlaSuccess) {
      list->back ().dla = nullptr;
      return "cudlaMemRegister: " + describe (r);
    }
    return "";
  };
  for (const auto &d : in_desc) {
    const std::string e = make (d, &inputs);
    if (!e.empty ())
      return e;
  }
  for (const auto &d : out_desc) {
    const std::string e = make (d, &outputs);
    if (!e.empty ())
      return e;
  }
  for (const Tensor &t : inputs)
    in_ptrs_.push_back (t.dla);
  for (const Tensor &t : outputs)
    out_ptrs_.push_back (t.dla);
  return "";
}

cudlaTask Session::task ()
{
  cudlaTask t{};
  t.moduleHandle = module;
  t.outputTensor = out_ptrs_.data ();
  t.numOutputTensors = uint32_t (out_ptrs_.size ());
  t.numInputTensors = uint32_t (in_ptrs_.size ());
  t.inputTensor = in_ptrs_.data ();
  return t;
}

cudlaStatus Session::submit (cudaStream_t stream, uint32_t flags)
{
  const cudlaTask t = task ();
  return cudlaSubmitTask (dev, &t, 1, stream, flags);
}

bool Session::write_input (size_t i, const std::vector<uint8_t> &bytes)
{
  /* A pageable copy may return before its DMA lands; tasks run on a non-blocking stream. */
  return bytes.size () == inputs[i].size &&
         cudaMemcpy (inputs[i].cuda, bytes.data (), bytes.size (), cudaMemcpyHostToDevice) == cudaSuccess &&
         cudaDeviceSynchronize () == cudaSuccess;
}

std::vector<uint8_t> Session::read_output (size_t i)
{
  std::vector<uint8_t> out (outputs[i].size);
  if (cudaMemcpy (out.data (), outputs[i].cuda, out.size (), cudaMemcpyDeviceToHost) != cudaSuccess)
    out.clear ();
  return out;
}

std::vector<uint8_t> random_input (const swdla::TensorSpec &t, uint32_t seed)
{
  std::vector<float> dense (size_t (t.n * t.c * t.h * t.w));
  uint32_t x = seed * 2654435761u + 1;
  for (float &v : dense) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    v = float (x % 2001) / 1000.f - 1.f;
  }
  tensor::View view;
  t.view (&view);
  std::vector<uint8_t> bytes (size_t (view.size));
  swdla::pack_tensor (t, dense.data (), bytes.data ());
  return bytes;
}

std::vector<uint8_t> cpu_output (const swdla::Model &m, const std::vector<std::vector<uint8_t>> &inputs)
{
  tensor::View ov;
  m.outputs[0].view (&ov);
  std::vector<uint8_t> out (size_t (ov.size));
  std::vector<const uint8_t *> ptrs;
  for (const auto &i : inputs)
    ptrs.push_back (i.data ());
  swdla::run_cpu (m, ptrs, out.data ());
  return out;
}

std::string compare_outputs (const swdla::TensorSpec &t, const std::vector<uint8_t> &got,
                             const std::vector<uint8_t> &want)
{
  tensor::View v;
  t.view (&v);
  if (got.size () != size_t (v.size) || want.size () != size_t (v.size))
    return "sizes differ: got " + std::to_string (got.size ()) + ", want " + std::to_string (want.size ());
  std::ostringstream msg;
  int bad = 0;
  std::vector<bool> owned (got.size ());
  const auto g = swdla::unpack_tensor (t, got.data ()), w = swdla::unpack_tensor (t, want.data ());
  size_t i = 0;
  for (int64_t n = 0; n < t.n; ++n)
    for (int64_t c = 0; c < t.c; ++c)
      for (int64_t y = 0; y < t.h; ++y)
        for (int64_t x = 0; x < t.w; ++x, ++i) {
          for (int b = 0; b < tensor::elem_size (t.type); ++b)
            owned[size_t (v.offset (n, c, y, x) + b)] = true;
          const float tol =
              t.type == tensor::ElemType::kInt8 ? t.scale * 1.01f : 1e-3f + 2e-3f * std::fabs (w[i]);
          if (!(std::fabs (g[i] - w[i]) <= tol) && bad++ < 8)
            msg << "(n" << n << " c" << c << " y" << y << " x" << x << ") cuda " << g[i] << " cpu " << w[i]
                << "; ";
        }
  for (size_t b = 0; b < got.size (); ++b)
    if (!owned[b] && got[b] != 0 && bad++ < 8)
      msg << "pad byte " << b << " is " << int (got[b]) << " (pads must be zero); ";
  return bad ? std::to_string (bad) + " mismatches: " + msg.str () : "";
}

Stream::Stream ()
{
  cudaStreamCreateWithFlags (&s_, cudaStreamNonBlocking);
}
Stream::~Stream ()
{
  if (s_)
    cudaStreamDestroy (s_);
}

}  // namespace swdla_test
