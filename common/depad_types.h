/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: an output tensor as applications read it (docs/tensors.md): dense row-major NCHW,
 * FLOAT32 (INT8 dequantised with its scale) or FLOAT16, and its size. Shared by the host de-pad
 * (host/depad.h) and the GPU one (kernels/depad_device.h). */
#pragma once

#include <cstddef>

#include "common/tensor_layout.h"

namespace depad {

enum class Type { kFloat32, kFloat16 };

inline size_t elements (const tensor::View &v)
{
  return size_t (v.n * v.c * v.h * v.w);
}

inline size_t dense_bytes (const tensor::View &v, Type t)
{
  return elements (v) * (t == Type::kFloat32 ? 4 : 2);
}

}  // namespace depad
