/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/tensor_desc.h"

namespace host {

const char *const kInputFormatsHint =
    "rebuild the loadable with trtexec --inputIOFormats=fp16:chw16 (the preprocessing kernel writes fp16 "
    "chw16/dla_linear/dla_hwc4 and int8 chw32/dla_linear/dla_hwc4, e.g. --inputIOFormats=int8:dla_hwc4)";
const char *const kOutputFormatsHint =
    "rebuild the loadable with trtexec --outputIOFormats=fp16:chw16 (outputs can be read as fp16 "
    "chw16/dla_linear or int8 chw32/dla_linear)";

std::string describe_view (const tensor::View &v)
{
  return std::string (tensor::elem_type_name (v.type)) + " " + tensor::layout_name (v.layout) + " " +
         std::to_string (v.n) + "x" + std::to_string (v.c) + "x" + std::to_string (v.h) + "x" +
         std::to_string (v.w) + " (row " + std::to_string (v.row_stride) + " B, plane " +
         std::to_string (v.plane_stride) + " B, " + std::to_string (v.size) + " B)";
}

}  // namespace host
