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
#include "test_models.h"
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
  return open_bytes (bytes, core);
}

std::string Session::open_bytes (const std::vector<uint8_t> &bytes, int core)
{
  std::string why;
  if (!swdla::parse_model (bytes.data (), bytes.size (), &model, &why))
    return "parse_model: " + why;
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
  const std::vector<float> dense = random_dense (t, seed);
  tensor::View view;
  t.view (&view);
  std::vector<uint8_t> bytes (size_t (view.size));
  swdla::pack_tensor (t, dense.data (), bytes.data ());
  return bytes;
}

std::vector<std::vector<uint8_t>> cpu_outputs (const swdla::Model &m,
                                               const std::vector<std::vector<uint8_t>> &inputs)
{
  std::vector<std::vector<uint8_t>> out;
  for (const swdla::TensorSpec &t : m.outputs) {
    tensor::View v;
    t.view (&v);
    out.emplace_back (size_t (v.size));
  }
  std::vector<const uint8_t *> in_ptrs;
  for (const auto &i : inputs)
    in_ptrs.push_back (i.data ());
  std::vector<uint8_t *> out_ptrs;
  for (auto &o : out)
    out_ptrs.push_back (o.data ());
  swdla::run_cpu (m, in_ptrs, out_ptrs);
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

std::string task_equals_cpu (Session &s, cudaStream_t stream, uint32_t seed)
{
  std::vector<std::vector<uint8_t>> in;
  for (size_t i = 0; i < s.inputs.size (); ++i) {
    in.push_back (random_input (s.model.inputs[i], seed * 10 + uint32_t (i)));
    if (!s.write_input (i, in.back ()))
      return "writing input " + std::to_string (i) + " failed";
  }
  const cudlaStatus st = s.submit (stream);
  if (st != cudlaSuccess)
    return "cudlaSubmitTask: " + describe (st);
  if (cudaStreamSynchronize (stream) != cudaSuccess)
    return "cudaStreamSynchronize failed";
  if (cudlaGetLastError (s.dev) != cudlaSuccess)
    return "cudlaGetLastError: " + describe (cudlaGetLastError (s.dev));
  const auto want = cpu_outputs (s.model, in);
  std::string diff;
  for (size_t k = 0; k < s.outputs.size (); ++k) {
    const std::string d = compare_outputs (s.model.outputs[k], s.read_output (k), want[k]);
    if (!d.empty ())
      diff += "output " + s.model.outputs[k].name + ": " + d + "; ";
  }
  return diff;
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
