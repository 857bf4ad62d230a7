/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/depad.h"

#include <cstring>

#include "common/numeric.h"

namespace depad {
namespace {

/* One element, its source type a template parameter so the loops below carry no type test. */
template <typename Out, bool kInt8>
Out convert (const uint8_t *src, float scale);

template <>
inline float convert<float, false> (const uint8_t *src, float)
{
#if defined(__aarch64__)
  __fp16 h; /* AArch64 (the Orin): IEEE binary16, one exact conversion instruction */
  std::memcpy (&h, src, sizeof h);
  return float (h);
#else
  uint16_t h;
  std::memcpy (&h, src, sizeof h);
  return tensor::half_to_float (h);
#endif
}

template <>
inline float convert<float, true> (const uint8_t *src, float scale)
{
  return tensor::dequantize_int8 (int8_t (*src), scale);
}

template <>
inline uint16_t convert<uint16_t, false> (const uint8_t *src, float)
{
  uint16_t h;
  std::memcpy (&h, src, sizeof h);
  return h;
}

template <>
inline uint16_t convert<uint16_t, true> (const uint8_t *src, float scale)
{
  return tensor::float_to_half (tensor::dequantize_int8 (int8_t (*src), scale));
}

/* One row of pixels per channel (dla_linear: reads and writes both contiguous). */
template <typename Out, bool kInt8>
void by_rows (const tensor::View &v, const uint8_t *base, float scale, Out *out)
{
  const int64_t step = v.pixel_stride ();
  for (int64_t n = 0; n < v.n; ++n)
    for (int64_t c = 0; c < v.c; ++c)
      for (int64_t y = 0; y < v.h; ++y, out += v.w) {
        const uint8_t *src = base + v.offset (n, c, y, 0);
        for (int64_t x = 0; x < v.w; ++x, src += step)
          out[x] = convert<Out, kInt8> (src, scale);
      }
}

/* One pixel vector at a time (chw16, chw32, dla_hwc4: its lanes are contiguous channels), each lane
 * to its channel's plane. */
template <typename Out, bool kInt8>
void by_pixels (const tensor::View &v, const uint8_t *base, float scale, Out *out)
{
  const int64_t plane = v.h * v.w, esize = tensor::elem_size (v.type);
  for (int64_t n = 0; n < v.n; ++n)
    for (int64_t c0 = 0; c0 < v.c; c0 += v.lanes) {
      const int64_t lanes = v.c - c0 < v.lanes ? v.c - c0 : v.lanes;
      Out *dst = out + (n * v.c + c0) * plane;
      for (int64_t y = 0; y < v.h; ++y)
        for (int64_t x = 0; x < v.w; ++x) {
          const uint8_t *src = base + v.offset (n, c0, y, x);
          for (int64_t l = 0; l < lanes; ++l)
            dst[l * plane + y * v.w + x] = convert<Out, kInt8> (src + l * esize, scale);
        }
    }
}

template <typename Out, bool kInt8>
void all (const tensor::View &v, const uint8_t *base, float scale, Out *out)
{
  if (v.lanes > 1)
    by_pixels<Out, kInt8> (v, base, scale, out);
  else
    by_rows<Out, kInt8> (v, base, scale, out);
}

template <typename Out>
void all (const tensor::View &v, const uint8_t *base, float scale, Out *out)
{
  if (v.type == tensor::ElemType::kInt8)
    all<Out, true> (v, base, scale, out);
  else
    all<Out, false> (v, base, scale, out);
}

}  // namespace

void depad (const tensor::View &view, const void *data, float int8_scale, Type type, void *out)
{
  const auto *base = static_cast<const uint8_t *> (data);
  if (type == Type::kFloat32)
    all (view, base, int8_scale, static_cast<float *> (out));
  else
    all (view, base, int8_scale, static_cast<uint16_t *> (out));
}

}  // namespace depad
