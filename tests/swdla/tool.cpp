/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla-tool: writes the test models from a spec, runs a model on the CPU, prints a model.
 *   swdla-tool build SPEC OUTDIR STAMP     every model of SPEC into OUTDIR, then the STAMP file
 *   swdla-tool run MODEL OUTPUT INPUT...   CPU executor: raw input tensors in, raw output tensor out
 *   swdla-tool run-dense MODEL OUT.f32 IN.f32
 *                                          the same on dense float32 NCHW files: the input is
 *                                          converted to the model's input type (FP16 rounding, or
 *                                          INT8 at its scale) as a DLA input would be, the output
 *                                          read back from its type (the ONNX twins' comparison
 *                                          and the Orin kit's expected results use this)
 *   swdla-tool info MODEL                  descriptors (default reading) and layers
 */
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cpu_executor.h"
#include "descriptors.h"
#include "spec.h"

namespace {

bool read_file (const std::string &path, std::vector<uint8_t> *out)
{
  std::ifstream f (path, std::ios::binary);
  if (!f)
    return false;
  out->assign (std::istreambuf_iterator<char> (f), std::istreambuf_iterator<char> ());
  return true;
}

bool write_file (const std::string &path, const void *data, size_t size)
{
  std::ofstream f (path, std::ios::binary | std::ios::trunc);
  f.write (static_cast<const char *> (data), std::streamsize (size));
  return bool (f);
}

int build (const std::string &spec_path, const std::string &dir, const std::string &stamp)
{
  std::vector<uint8_t> text;
  if (!read_file (spec_path, &text)) {
    std::cerr << "swdla-tool: cannot read " << spec_path << ": " << std::strerror (errno) << "\n";
    return 1;
  }
  std::vector<swdla::SpecOutput> outputs;
  std::string why;
  if (!swdla::build_spec (std::string (text.begin (), text.end ()), &outputs, &why)) {
    std::cerr << spec_path << ": " << why << "\n";
    return 1;
  }
  mkdir (dir.c_str (), 0755); /* exists already: fine */
  std::ostringstream list;
  for (const auto &o : outputs) {
    const std::string path = dir + "/" + o.name + ".swdla";
    if (!write_file (path, o.bytes.data (), o.bytes.size ())) {
      std::cerr << "swdla-tool: cannot write " << path << "\n";
      return 1;
    }
    list << path << "\n";
    if (!o.labels.empty ()) {
      std::string labels;
      for (const auto &l : o.labels)
        labels += l + "\n";
      const std::string lpath = dir + "/" + o.name + ".labels";
      if (!write_file (lpath, labels.data (), labels.size ()))
        return 1;
      list << lpath << "\n";
    }
  }
  const std::string s = list.str ();
  return write_file (stamp, s.data (), s.size ()) ? 0 : 1;
}

bool load (const std::string &path, swdla::Model *m)
{
  std::vector<uint8_t> bytes;
  std::string why;
  if (!read_file (path, &bytes)) {
    std::cerr << "swdla-tool: cannot read " << path << "\n";
    return false;
  }
  if (!swdla::parse_model (bytes.data (), bytes.size (), m, &why)) {
    std::cerr << path << ": " << why << "\n";
    return false;
  }
  return true;
}

int run (int argc, char **argv)
{
  swdla::Model m;
  if (!load (argv[2], &m))
    return 1;
  if (size_t (argc - 4) != m.inputs.size ()) {
    std::cerr << "swdla-tool run: the model has " << m.inputs.size () << " input(s)\n";
    return 2;
  }
  std::vector<std::vector<uint8_t>> inputs (m.inputs.size ());
  std::vector<const uint8_t *> ptrs;
  for (size_t i = 0; i < inputs.size (); ++i) {
    tensor::View v;
    m.inputs[i].view (&v);
    if (!read_file (argv[4 + i], &inputs[i]) || int64_t (inputs[i].size ()) != v.size) {
      std::cerr << "swdla-tool run: " << argv[4 + i] << " must hold " << v.size << " bytes\n";
      return 1;
    }
    ptrs.push_back (inputs[i].data ());
  }
  tensor::View ov;
  m.outputs[0].view (&ov);
  std::vector<uint8_t> out (size_t (ov.size));
  swdla::run_cpu (m, ptrs, out.data ());
  return write_file (argv[3], out.data (), out.size ()) ? 0 : 1;
}

int run_dense (const char *model, const char *out_path, const char *in_path)
{
  swdla::Model m;
  if (!load (model, &m))
    return 1;
  const swdla::TensorSpec &in = m.inputs[0], &out = m.outputs[0];
  const size_t in_count = size_t (in.n * in.c * in.h * in.w);
  std::vector<uint8_t> dense;
  if (!read_file (in_path, &dense) || dense.size () != in_count * sizeof (float)) {
    std::cerr << "swdla-tool run-dense: " << in_path << " must hold " << in_count * sizeof (float)
              << " bytes (float32 " << in.n << "x" << in.c << "x" << in.h << "x" << in.w << ")\n";
    return 1;
  }
  std::vector<float> values (in_count);
  std::memcpy (values.data (), dense.data (), dense.size ());
  tensor::View iv, ov;
  in.view (&iv);
  out.view (&ov);
  std::vector<uint8_t> packed (size_t (iv.size)), result (size_t (ov.size));
  swdla::pack_tensor (in, values.data (), packed.data ());
  std::vector<std::vector<uint8_t>> extra;
  std::vector<const uint8_t *> ptrs{packed.data ()};
  for (size_t i = 1; i < m.inputs.size (); ++i) { /* declared, never read */
    tensor::View v;
    m.inputs[i].view (&v);
    extra.emplace_back (size_t (v.size));
    ptrs.push_back (extra.back ().data ());
  }
  swdla::run_cpu (m, ptrs, result.data ());
  const std::vector<float> back = swdla::unpack_tensor (out, result.data ());
  return write_file (out_path, back.data (), back.size () * sizeof (float)) ? 0 : 1;
}

int info (const std::string &path)
{
  swdla::Model m;
  if (!load (path, &m))
    return 1;
  auto print = [] (const char *what, const swdla::TensorSpec &t) {
    cudlaModuleTensorDescriptor d;
    swdla::fill_descriptor (t, swdla::kReadingOrin, &d);
    /* n..w as the descriptor reads them (c may be the padded count); dims: the network's own. */
    std::printf (
        "%s %s: %s %s n=%llu c=%llu h=%llu w=%llu size=%llu fmt=%u type=%u cat=%u pix=%u stride=%u,%u,%u,%u"
        " scale=%g dims=%lldx%lldx%lldx%lld\n",
        what, d.name, tensor::layout_name (t.layout), tensor::elem_type_name (t.type),
        (unsigned long long)d.n, (unsigned long long)d.c, (unsigned long long)d.h, (unsigned long long)d.w,
        (unsigned long long)d.size, d.dataFormat, d.dataType, d.dataCategory, d.pixelFormat, d.stride[0],
        d.stride[1], d.stride[2], d.stride[3], double (t.scale), (long long)t.n, (long long)t.c,
        (long long)t.h, (long long)t.w);
  };
  for (const auto &t : m.inputs)
    print ("input", t);
  print ("output", m.outputs[0]);
  for (size_t i = 0; i < m.layers.size (); ++i)
    std::printf ("layer %zu: %s -> %lldx%lldx%lld\n", i, swdla::layer_name (m.layers[i].kind),
                 (long long)m.shapes[i + 1].c, (long long)m.shapes[i + 1].h, (long long)m.shapes[i + 1].w);
  return 0;
}

}  // namespace

int main (int argc, char **argv)
{
  const std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "build" && argc == 5)
    return build (argv[2], argv[3], argv[4]);
  if (cmd == "run" && argc >= 5)
    return run (argc, argv);
  if (cmd == "run-dense" && argc == 5)
    return run_dense (argv[2], argv[3], argv[4]);
  if (cmd == "info" && argc == 3)
    return info (argv[2]);
  std::cerr << "usage: swdla-tool build SPEC OUTDIR STAMP | run MODEL OUTPUT INPUT... | run-dense MODEL "
               "OUT.f32 IN.f32 | info MODEL\n";
  return 2;
}
