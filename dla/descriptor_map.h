/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: raw cuDLA tensor descriptors -> tensor views (common/tensor_layout.h).
 *
 * What each descriptor field holds on a real Orin is partly unknown (docs/cudla.md 7): `c` may
 * be the real channel count or the padded one, stride[] may hold bytes per element/row/plane (as in
 * the real dump of docs/cudla.md 5.4) or zeros, and the format/category/pixel-format codes of chw16 are
 * unconfirmed. So every layout the element supports is tried against the descriptor, the strides
 * and `size` must agree with it, the codes only break ties, and when nothing fits the message
 * prints the raw descriptor.
 *
 * One case stays ambiguous: an image input in chw16/chw32 whose `c` is the padded 16/32 looks the
 * same for 1 and 3 real channels; it is read as RGB (3), the common case. Grey models are told
 * apart in dla_linear and dla_hwc4, and in chw16/chw32 when `c` is the real count. */
#pragma once

#include <string>
#include <vector>

#include "common/tensor_layout.h"
#include "dla/abi/cudla_abi.h"
#include "dla/status.h"
#include "host/tensor_desc.h"

namespace dla {

enum class Direction { kInput, kOutput };

/* One model input or output: its layout, and the descriptor as cuDLA gave it (for model-info). */
struct TensorInfo {
  std::string name;
  tensor::View view{};
  cudlaModuleTensorDescriptor raw{};
  std::string reading; /* how the descriptor was read, e.g. "c as reported; strides from descriptor" */
};

/* Maps one descriptor; kModel with the raw descriptor printed when no supported layout fits. */
Status map_descriptor (const cudlaModuleTensorDescriptor &desc, Direction dir, TensorInfo *out);

/* name='x' size=... n=.. c=.. h=.. w=.. dataFormat=3 (NCxHWx) ... stride=[...] */
std::string describe_raw (const cudlaModuleTensorDescriptor &desc);
/* "fp16 chw16 1x3x224x224 (row 7168 B, plane 1605632 B, 1605632 B)" */
using host::describe_view;
/* The name field, safe even when it lacks its NUL. */
std::string descriptor_name (const cudlaModuleTensorDescriptor &desc);

/* The tensors as the host layers see them (name, layout, the raw descriptor as text). */
std::vector<host::TensorDesc> host_descs (const std::vector<TensorInfo> &tensors);

}  // namespace dla
