/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the one definition of the DLA tensor layouts, for host and device code.
 *
 * Every layout is addressed with one formula:
 *   offset(n, c, h, w) = n * batch_stride + (c / lanes) * plane_stride + h * row_stride
 *                        + w * lanes * elem_size + (c % lanes) * elem_size
 * where "lanes" is the number of channels packed per pixel vector:
 *   chw16 (FP16)  [N][ceil(C/16)][H][W][16]            lanes 16, rows dense (W * 32 bytes)
 *   chw32 (INT8)  [N][ceil(C/32)][H][W][32]            lanes 32, rows dense (W * 32 bytes)
 *   dla_linear    [N][C][H][W'], row stride rounded up to 64 bytes      lanes 1
 *   dla_hwc4      [N][H][W'][C'], C' = 1 for grey else 4, row rounded up to 64 bytes (Orin)
 * Facts: docs/cudla.md section 5 and docs/dla-formats.md. Knows nothing else of the project.
 */
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define TENSOR_HD __host__ __device__ __forceinline__
#else
#define TENSOR_HD inline
#endif

namespace tensor {

enum class Layout : uint8_t { kChw16 = 0, kChw32 = 1, kDlaLinear = 2, kDlaHwc4 = 3 };
enum class ElemType : uint8_t { kFp16 = 0, kInt8 = 1 };

/* Row alignment of dla_linear and dla_hwc4 on Orin (Xavier used 32). */
constexpr int64_t kRowAlignBytes = 64;

TENSOR_HD constexpr int64_t round_up (int64_t v, int64_t m)
{
  return (v + m - 1) / m * m;
}
TENSOR_HD constexpr int64_t div_up (int64_t v, int64_t m)
{
  return (v + m - 1) / m;
}

TENSOR_HD constexpr int elem_size (ElemType t)
{
  return t == ElemType::kFp16 ? 2 : 1;
}

/* Whether a layout holds a type at all (chw16 is FP16-only, chw32 INT8-only). */
TENSOR_HD constexpr bool layout_supports (Layout l, ElemType t)
{
  return l == Layout::kChw16 ? t == ElemType::kFp16 : l == Layout::kChw32 ? t == ElemType::kInt8 : true;
}

/* Channels per pixel vector for a layout and a channel count. */
TENSOR_HD constexpr int layout_lanes (Layout l, int64_t channels)
{
  return l == Layout::kChw16     ? 16
         : l == Layout::kChw32   ? 32
         : l == Layout::kDlaHwc4 ? (channels == 1 ? 1 : 4)
                                 : 1;
}

/* A tensor in device or host memory: dims plus byte strides (POD, copyable to kernels). */
struct View {
  Layout layout;
  ElemType type;
  int32_t lanes;        /* channels per pixel vector */
  int64_t n, c, h, w;   /* logical dims: c is the real channel count (3), not the padded one */
  int64_t row_stride;   /* bytes between rows */
  int64_t plane_stride; /* bytes between channel groups of lanes channels */
  int64_t batch_stride; /* bytes between images */
  int64_t size;         /* total bytes, padding included */

  TENSOR_HD int64_t pixel_stride () const { return int64_t (lanes) * elem_size (type); }
  TENSOR_HD int64_t groups () const { return div_up (c, lanes); }
  TENSOR_HD int64_t padded_channels () const { return groups () * lanes; }
  /* Number of valid (unpadded) elements in a row of pixel vectors: w * lanes. */
  TENSOR_HD int64_t offset (int64_t in, int64_t ic, int64_t ih, int64_t iw) const
  {
    return in * batch_stride + (ic / lanes) * plane_stride + ih * row_stride + iw * pixel_stride () +
           (ic % lanes) * elem_size (type);
  }
};

/* Hwc4 takes 1, 3 or 4 channels only. */
TENSOR_HD constexpr bool layout_channels_ok (Layout l, int64_t channels)
{
  return channels >= 1 && (l != Layout::kDlaHwc4 || channels == 1 || channels == 3 || channels == 4);
}

/* The packed strides TensorRT uses for a layout. Returns false (and leaves *out untouched) for a
 * layout/type pair that does not exist, or non-positive dims. */
TENSOR_HD bool make_view (Layout l, ElemType t, int64_t n, int64_t c, int64_t h, int64_t w, View *out)
{
  if (n < 1 || c < 1 || h < 1 || w < 1 || !layout_supports (l, t) || !layout_channels_ok (l, c))
    return false;
  View v{};
  v.layout = l;
  v.type = t;
  v.lanes = layout_lanes (l, c);
  v.n = n;
  v.c = c;
  v.h = h;
  v.w = w;
  const int64_t pixel = v.pixel_stride ();
  const bool padded_rows = l == Layout::kDlaLinear || l == Layout::kDlaHwc4;
  v.row_stride = padded_rows ? round_up (w * pixel, kRowAlignBytes) : w * pixel;
  v.plane_stride = h * v.row_stride;
  v.batch_stride = v.groups () * v.plane_stride;
  v.size = n * v.batch_stride;
  *out = v;
  return true;
}

/* Short names as trtexec spells them ("chw16", "dla_linear", ...). */
inline const char *layout_name (Layout l)
{
  switch (l) {
    case Layout::kChw16:
      return "chw16";
    case Layout::kChw32:
      return "chw32";
    case Layout::kDlaLinear:
      return "dla_linear";
    case Layout::kDlaHwc4:
      return "dla_hwc4";
  }
  return "unknown";
}

inline const char *elem_type_name (ElemType t)
{
  return t == ElemType::kFp16 ? "fp16" : "int8";
}

}  // namespace tensor
