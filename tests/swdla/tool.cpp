/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla-tool: writes the test models from a spec, runs a model on the CPU, prints a model.
 *   swdla-tool build SPEC OUTDIR STAMP     every model of SPEC into OUTDIR, then the STAMP file
 *   swdla-tool run MODEL OUTPUT INPUT...   CPU executor: raw input tensors in (one per graph input),
 *                                          raw output tensors out: OUTPUT is the file of the one
 *                                          output, or an existing directory: OUTPUT/<name>.bin each
 *   swdla-tool run-dense MODEL OUTPUT IN.f32...
 *                                          the same on dense float32 NCHW files (OUTPUT/<name>.f32
 *                                          in a directory): each input is converted to its type
 *                                          (FP16 rounding, or INT8 at its scale) as a DLA input
 *                                          would be, each output read back from its type (the ONNX
 *                                          twins' comparison and the Orin kit's expected results)
 *   swdla-tool info MODEL                  descriptors (default reading), sources and layers
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

bool is_directory (const std::string &path)
{
  struct stat st;
  return stat (path.c_str (), &st) == 0 && S_ISDIR (st.st_mode);
}

/* Where output k goes: OUTPUT itself (one output), or OUTPUT/<name><ext> when OUTPUT is a
 * directory; "" (and a message) for several outputs and no directory. */
std::vector<std::string> output_paths (const swdla::Model &m, const std::string &out, const char *ext,
                                       const char *cmd)
{
  std::vector<std::string> paths;
  const bool dir = is_directory (out);
  if (!dir && m.outputs.size () != 1) {
    std::cerr << "swdla-tool " << cmd << ": the model has " << m.outputs.size ()
              << " outputs: OUTPUT must be an existing directory (one file per output)\n";
    return paths;
  }
  for (const swdla::TensorSpec &t : m.outputs)
    paths.push_back (dir ? out + "/" + t.name + ext : out);
  return paths;
}

/* Reads one file per input, each exactly `bytes(t)` long. */
template <class Bytes>
bool read_inputs (const swdla::Model &m, char **files, Bytes bytes, const char *what,
                  std::vector<std::vector<uint8_t>> *out)
{
  for (size_t i = 0; i < m.inputs.size (); ++i) {
    out->emplace_back ();
    if (!read_file (files[i], &out->back ()) || int64_t (out->back ().size ()) != bytes (m.inputs[i])) {
      std::cerr << "swdla-tool: " << files[i] << " must hold " << bytes (m.inputs[i]) << " bytes (input '"
                << m.inputs[i].name << "', " << what << ")\n";
      return false;
    }
  }
  return true;
}

int64_t packed_bytes (const swdla::TensorSpec &t)
{
  tensor::View v;
  t.view (&v);
  return v.size;
}

int64_t dense_bytes (const swdla::TensorSpec &t)
{
  return t.n * t.c * t.h * t.w * int64_t (sizeof (float));
}

/* run and run-dense: MODEL OUTPUT INPUT... (argv[2], argv[3], argv[4...]). */
int run (int argc, char **argv, bool dense)
{
  const char *cmd = dense ? "run-dense" : "run";
  swdla::Model m;
  if (!load (argv[2], &m))
    return 1;
  if (size_t (argc - 4) != m.inputs.size ()) {
    std::cerr << "swdla-tool " << cmd << ": the model has " << m.inputs.size () << " input(s), " << argc - 4
              << " file(s) given\n";
    return 2;
  }
  const std::vector<std::string> paths = output_paths (m, argv[3], dense ? ".f32" : ".bin", cmd);
  std::vector<std::vector<uint8_t>> inputs;
  if (paths.empty () || !read_inputs (m, argv + 4, dense ? dense_bytes : packed_bytes,
                                      dense ? "dense float32 NCHW" : "in its layout", &inputs))
    return 1;
  if (dense) /* to the input's type and layout, as a DLA input would be (FP16 rounding, INT8 scale) */
    for (size_t i = 0; i < inputs.size (); ++i) {
      std::vector<uint8_t> packed (size_t (packed_bytes (m.inputs[i])));
      swdla::pack_tensor (m.inputs[i], reinterpret_cast<const float *> (inputs[i].data ()), packed.data ());
      inputs[i].swap (packed);
    }
  std::vector<const uint8_t *> in_ptrs;
  for (const auto &i : inputs)
    in_ptrs.push_back (i.data ());
  std::vector<std::vector<uint8_t>> outputs;
  std::vector<uint8_t *> out_ptrs;
  for (const swdla::TensorSpec &t : m.outputs)
    outputs.emplace_back (size_t (packed_bytes (t)));
  for (auto &o : outputs)
    out_ptrs.push_back (o.data ());
  swdla::run_cpu (m, in_ptrs, out_ptrs);
  for (size_t k = 0; k < outputs.size (); ++k) {
    std::vector<uint8_t> bytes = outputs[k];
    if (dense) { /* read back from the output's type */
      const std::vector<float> back = swdla::unpack_tensor (m.outputs[k], outputs[k].data ());
      bytes.assign (reinterpret_cast<const uint8_t *> (back.data ()),
                    reinterpret_cast<const uint8_t *> (back.data () + back.size ()));
    }
    if (!write_file (paths[k], bytes.data (), bytes.size ())) {
      std::cerr << "swdla-tool " << cmd << ": cannot write " << paths[k] << "\n";
      return 1;
    }
  }
  return 0;
}

int info (const std::string &path)
{
  swdla::Model m;
  if (!load (path, &m))
    return 1;
  auto print = [&m] (const char *what, const swdla::TensorSpec &t) {
    cudlaModuleTensorDescriptor d;
    swdla::fill_descriptor (t, swdla::kReadingOrin, &d);
    /* n..w as the descriptor reads them (c may be the padded count); dims: the network's own. */
    std::printf (
        "%s %s: %s %s n=%llu c=%llu h=%llu w=%llu size=%llu fmt=%u type=%u cat=%u pix=%u stride=%u,%u,%u,%u"
        " scale=%g dims=%lldx%lldx%lldx%lld%s%s\n",
        what, d.name, tensor::layout_name (t.layout), tensor::elem_type_name (t.type),
        (unsigned long long)d.n, (unsigned long long)d.c, (unsigned long long)d.h, (unsigned long long)d.w,
        (unsigned long long)d.size, d.dataFormat, d.dataType, d.dataCategory, d.pixelFormat, d.stride[0],
        d.stride[1], d.stride[2], d.stride[3], double (t.scale), (long long)t.n, (long long)t.c,
        (long long)t.h, (long long)t.w, t.source >= 0 ? " from=" : "", m.tensor_name (t.source).c_str ());
  };
  for (const auto &t : m.inputs)
    print ("input", t);
  for (const auto &t : m.outputs)
    print ("output", t);
  for (size_t j = 0; j < m.layers.size (); ++j) {
    const swdla::Layer &l = m.layers[j];
    const swdla::Shape &s = m.shapes[size_t (m.result_id (j))];
    std::string in;
    for (int32_t id : l.inputs)
      in += (in.empty () ? "" : ",") + m.tensor_name (id);
    std::printf ("layer %zu '%s': %s in=%s -> %lldx%lldx%lld\n", j, l.name.c_str (),
                 swdla::kind_name (l.kind), in.c_str (), (long long)s.c, (long long)s.h, (long long)s.w);
  }
  return 0;
}

}  // namespace

int main (int argc, char **argv)
{
  const std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "build" && argc == 5)
    return build (argv[2], argv[3], argv[4]);
  if ((cmd == "run" || cmd == "run-dense") && argc >= 5)
    return run (argc, argv, cmd == "run-dense");
  if (cmd == "info" && argc == 3)
    return info (argv[2]);
  std::cerr << "usage: swdla-tool build SPEC OUTDIR STAMP | run MODEL OUTPUT INPUT... | run-dense MODEL "
               "OUTPUT IN.f32... | info MODEL\n";
  return 2;
}
