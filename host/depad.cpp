#include "host/depad.h"

#include <cstring>

#include "kernels/numeric.h"

namespace depad {
namespace {

/* One row of w values, pixel_stride bytes apart, as Out. */
template <typename Out>
void row (const tensor::View &v, const uint8_t *src, float scale, Out *out);

template <>
void row<float> (const tensor::View &v, const uint8_t *src, float scale, float *out)
{
  const int64_t step = v.pixel_stride ();
  for (int64_t x = 0; x < v.w; ++x, src += step) {
    if (v.type == tensor::ElemType::kFp16) {
      uint16_t h;
      std::memcpy (&h, src, sizeof h);
      out[x] = tensor::half_to_float (h);
    } else {
      out[x] = tensor::dequantize_int8 (int8_t (*src), scale);
    }
  }
}

template <>
void row<uint16_t> (const tensor::View &v, const uint8_t *src, float scale, uint16_t *out)
{
  const int64_t step = v.pixel_stride ();
  for (int64_t x = 0; x < v.w; ++x, src += step) {
    if (v.type == tensor::ElemType::kFp16)
      std::memcpy (&out[x], src, sizeof (uint16_t));
    else
      out[x] = tensor::float_to_half (tensor::dequantize_int8 (int8_t (*src), scale));
  }
}

template <typename Out>
void all (const tensor::View &v, const uint8_t *base, float scale, Out *out)
{
  for (int64_t n = 0; n < v.n; ++n)
    for (int64_t c = 0; c < v.c; ++c)
      for (int64_t y = 0; y < v.h; ++y, out += v.w)
        row (v, base + v.offset (n, c, y, 0), scale, out);
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
