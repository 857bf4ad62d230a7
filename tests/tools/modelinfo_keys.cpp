/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* prep-modelinfo-keys FILE.modelinfo INPUT_NAME:C:H:W OUTPUT_NAME:C:H:W...: reads a .modelinfo as
 * dladetect does at start, on the CPU: the element's reader (load_modelinfo), its check of every
 * section against the model's tensors (given here as the fp16 chw16 tensors a loadable of the cut
 * graph has), its decoder configuration (detect_config, no property set) and the decoder's plan
 * against those outputs (build_plan). Prints "key <dlainfer-key> <value>" per decoder key (what
 * detect-ref-cli reads) and "plan <family> <levels>"; an error: one line on stderr, exit 3.
 * dlainfer-prep's test (prep_test.py) runs it on every .modelinfo the tool writes. */
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gst/detect_settings.h"
#include "gst/modelinfo/modelinfo.h"
#include "host/detect/plan.h"

namespace {

bool tensor_arg (const char *arg, host::TensorDesc *d)
{
  const std::string a (arg);
  size_t p3 = a.rfind (':'), p2 = a.rfind (':', p3 - 1), p1 = a.rfind (':', p2 - 1);
  if (p1 == std::string::npos || p2 == std::string::npos || p3 == std::string::npos)
    return false;
  d->name = a.substr (0, p1);
  const long c = std::stol (a.substr (p1 + 1)), h = std::stol (a.substr (p2 + 1)),
             w = std::stol (a.substr (p3 + 1));
  return tensor::make_view (tensor::Layout::kChw16, tensor::ElemType::kFp16, 1, c, h, w, &d->view);
}

int fail (const std::string &what)
{
  std::fprintf (stderr, "prep-modelinfo-keys: %s\n", what.c_str ());
  return 3;
}

}  // namespace

int main (int argc, char **argv)
{
  if (argc < 4)
    return fail ("usage: prep-modelinfo-keys FILE.modelinfo INPUT:C:H:W OUTPUT:C:H:W...");
  std::vector<host::TensorDesc> inputs (1), outputs;
  if (!tensor_arg (argv[2], &inputs[0]))
    return fail (std::string ("bad tensor argument ") + argv[2]);
  for (int i = 3; i < argc; ++i) {
    host::TensorDesc d;
    if (!tensor_arg (argv[i], &d))
      return fail (std::string ("bad tensor argument ") + argv[i]);
    outputs.push_back (d);
  }
  auto mi = std::make_shared<dlainfer::ModelInfo> ();
  std::string error;
  if (!dlainfer::load_modelinfo (argv[1], mi.get (), &error) ||
      !dlainfer::check_modelinfo (*mi, inputs, outputs, &error))
    return fail (error);
  for (const std::string &w : mi->warnings)
    std::printf ("warning %s\n", w.c_str ());
  dlainfer::Settings s;
  s.model = argv[1];
  s.modelinfo = mi;
  detect::Config config;
  host::Status st = dlainfer::detect_config (s, dlainfer::DetectSettings (), {}, &config);
  if (!st.ok ())
    return fail (st.message);
  detect::ModelTensors model;
  model.input_width = int (inputs[0].view.w);
  model.input_height = int (inputs[0].view.h);
  model.outputs = outputs;
  model.output_scales.assign (outputs.size (), 0.f);
  detect::Plan plan;
  if (!(st = detect::build_plan (config, model, &plan)).ok ())
    return fail (st.message);
  for (const auto &kv : dlainfer::decoder_keys (*mi))
    std::printf ("key %s %s\n", kv.first.c_str (), kv.second.c_str ());
  std::printf ("plan %s %d\n",
               mi->keys.count ("dlainfer-decoder") ? mi->keys.at ("dlainfer-decoder").c_str () : "?",
               plan.levels);
  return 0;
}
