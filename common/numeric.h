/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: FP16 and INT8 conversions shared by the CPU reference, swdla and post-processing.
 * Host code; the CUDA kernels use the intrinsics with the same rounding (__float2half_rn,
 * __float2int_rn), so both sides round to nearest, ties to even. */
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tensor {

/* IEEE binary32 -> binary16, round to nearest, ties to even; overflow -> inf; NaN stays NaN. */
inline uint16_t float_to_half (float f)
{
  uint32_t x;
  std::memcpy (&x, &f, sizeof x);
  const uint16_t sign = uint16_t ((x >> 16) & 0x8000u);
  const uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;

  if (exp == 0xffu) /* inf or NaN (keep a quiet NaN) */
    return uint16_t (sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0u));

  const int32_t e = int32_t (exp) - 127 + 15;
  if (e >= 0x1f) /* too large: inf */
    return uint16_t (sign | 0x7c00u);

  if (e <= 0) { /* half subnormal or zero */
    if (e < -10)
      return sign;     /* below half the smallest subnormal: rounds to zero */
    mant |= 0x800000u; /* implicit bit */
    const uint32_t shift = uint32_t (14 - e);
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u)))
      ++h; /* may carry into the smallest normal: still the right bits */
    return uint16_t (sign | h);
  }

  uint32_t h = (uint32_t (e) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
    ++h; /* a carry out of the mantissa bumps the exponent, up to inf: correct */
  return uint16_t (sign | h);
}

inline float half_to_float (uint16_t h)
{
  const uint32_t sign = uint32_t (h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else { /* subnormal: normalise */
      int32_t e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400u));
      x = sign | (uint32_t (127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy (&f, &x, sizeof f);
  return f;
}

/* round(value / scale), ties to even, saturated to [-128, 127]; NaN -> 0. */
inline int8_t quantize_int8 (float value, float scale)
{
  const float q = std::nearbyint (value / scale);
  if (!(q == q))
    return 0;
  if (q >= 127.f)
    return 127;
  if (q <= -128.f)
    return -128;
  return int8_t (q);
}

inline float dequantize_int8 (int8_t q, float scale)
{
  return float (q) * scale;
}

}  // namespace tensor
