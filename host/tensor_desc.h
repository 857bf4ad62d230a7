/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a model's input or output as the host layers see it: its name, its layout, and
 * the raw descriptor as text for messages. The dla layer makes these from cuDLA's descriptors
 * (dla/descriptor_map.h host_descs); nothing here knows cuDLA. */
#pragma once

#include <cstdint>
#include <string>

#include "common/tensor_layout.h"

namespace host {

struct TensorDesc {
  std::string name;
  tensor::View view{};
  uint64_t bytes = 0; /* what the descriptor asks to allocate */
  std::string raw;    /* the descriptor as cuDLA gave it, printed */
};

/* "fp16 chw16 1x3x224x224 (row 7168 B, plane 1605632 B, 1605632 B)" */
std::string describe_view (const tensor::View &view);

/* Hints for the user, naming trtexec's I/O format options. */
extern const char *const kInputFormatsHint;
extern const char *const kOutputFormatsHint;

}  // namespace host
