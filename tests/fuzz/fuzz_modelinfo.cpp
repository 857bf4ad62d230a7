/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A .modelinfo file (gst/modelinfo/modelinfo.h): any text parses or is refused with one line, and
 * a parsed file is checked against a classifier's tensors without a crash. */
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "gst/modelinfo/modelinfo.h"

extern "C" int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const std::string text (reinterpret_cast<const char *> (data), size);
  dlainfer::ModelInfo mi;
  std::string why;
  if (!dlainfer::parse_modelinfo (text, "/fuzz/m.modelinfo", &mi, &why)) {
    fuzz::check_one_line_error (why, "parse_modelinfo");
    return 0;
  }
  host::TensorDesc in, out;
  in.name = "image";
  out.name = "logits";
  if (tensor::make_view (tensor::Layout::kChw16, tensor::ElemType::kFp16, 1, 3, 224, 224, &in.view) &&
      tensor::make_view (tensor::Layout::kChw16, tensor::ElemType::kFp16, 1, 1000, 1, 1, &out.view)) {
    std::string error;
    if (!dlainfer::check_modelinfo (mi, {in}, {out}, &error))
      fuzz::check_one_line_error (error, "check_modelinfo");
  }
  return 0;
}
