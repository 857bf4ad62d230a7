/* gst-dlainfer: an output tensor as applications read it (docs/tensors.md): de-padded from its DLA
 * layout (through tensor::View::offset, the one definition of the layouts) into dense row-major
 * NCHW, FLOAT32 (INT8 dequantised with its scale) or FLOAT16. No GStreamer, no CUDA. */
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/tensor_layout.h"

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

/* Writes the n x c x h x w values of the tensor at `data` (host memory, view.size bytes) into `out`
 * (dense_bytes (view, type) bytes): pad lanes and row tails skipped. */
void depad (const tensor::View &view, const void *data, float int8_scale, Type type, void *out);

}  // namespace depad
