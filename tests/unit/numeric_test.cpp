/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* FP16 round-to-nearest-even and INT8 saturation against known bit patterns. */
#include "common/numeric.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using tensor::float_to_half;
using tensor::half_to_float;
using tensor::quantize_int8;

namespace {

TEST (Fp16, ExactValues)
{
  EXPECT_EQ (float_to_half (0.f), 0x0000);
  EXPECT_EQ (float_to_half (-0.f), 0x8000);
  EXPECT_EQ (float_to_half (1.f), 0x3c00);
  EXPECT_EQ (float_to_half (-2.f), 0xc000);
  EXPECT_EQ (float_to_half (0.5f), 0x3800);
  EXPECT_EQ (float_to_half (65504.f), 0x7bff); /* largest finite half */
  EXPECT_EQ (float_to_half (0.333251953125f), 0x3555);
}

/* Ties go to the even mantissa; just above a tie goes up. */
TEST (Fp16, RoundingTiesToEven)
{
  /* 1 + 2^-11 lies halfway between 1 (0x3c00, even) and 1 + 2^-10 (0x3c01). */
  EXPECT_EQ (float_to_half (1.f + std::ldexp (1.f, -11)), 0x3c00);
  /* 1 + 3 * 2^-11 lies halfway between 0x3c01 (odd) and 0x3c02 (even). */
  EXPECT_EQ (float_to_half (1.f + 3 * std::ldexp (1.f, -11)), 0x3c02);
  EXPECT_EQ (float_to_half (1.f + std::ldexp (1.f, -11) + std::ldexp (1.f, -20)), 0x3c01);
  EXPECT_EQ (float_to_half (1.f + std::ldexp (1.f, -12)), 0x3c00);
  /* 65520 is the tie between 65504 and 2^16 (inf): even is inf. */
  EXPECT_EQ (float_to_half (65520.f), 0x7c00);
  EXPECT_EQ (float_to_half (65519.f), 0x7bff);
}

TEST (Fp16, Subnormals)
{
  EXPECT_EQ (float_to_half (std::ldexp (1.f, -24)), 0x0001);    /* smallest subnormal */
  EXPECT_EQ (float_to_half (std::ldexp (1.f, -25)), 0x0000);    /* tie to even: 0 */
  EXPECT_EQ (float_to_half (std::ldexp (1.5f, -25)), 0x0001);   /* above the tie */
  EXPECT_EQ (float_to_half (std::ldexp (3.f, -25)), 0x0002);    /* 1.5 ulp tie -> 2 (even) */
  EXPECT_EQ (float_to_half (std::ldexp (1.f, -14)), 0x0400);    /* smallest normal */
  EXPECT_EQ (float_to_half (std::ldexp (1023.f, -24)), 0x03ff); /* largest subnormal */
  EXPECT_EQ (float_to_half (std::ldexp (2047.f, -25)), 0x0400); /* rounds up into normal */
  EXPECT_EQ (float_to_half (-std::ldexp (1.f, -24)), 0x8001);
  EXPECT_EQ (float_to_half (1e-10f), 0x0000);
  EXPECT_FLOAT_EQ (half_to_float (0x0001), std::ldexp (1.f, -24));
  EXPECT_FLOAT_EQ (half_to_float (0x03ff), std::ldexp (1023.f, -24));
  EXPECT_FLOAT_EQ (half_to_float (0x8200), -std::ldexp (512.f, -24));
}

TEST (Fp16, InfinitiesAndNan)
{
  EXPECT_EQ (float_to_half (std::numeric_limits<float>::infinity ()), 0x7c00);
  EXPECT_EQ (float_to_half (-std::numeric_limits<float>::infinity ()), 0xfc00);
  EXPECT_EQ (float_to_half (1e6f), 0x7c00);
  EXPECT_EQ (float_to_half (-1e6f), 0xfc00);
  const uint16_t nan = float_to_half (std::numeric_limits<float>::quiet_NaN ());
  EXPECT_EQ (nan & 0x7c00, 0x7c00);
  EXPECT_NE (nan & 0x03ff, 0);
  EXPECT_TRUE (std::isinf (half_to_float (0x7c00)));
  EXPECT_TRUE (std::isnan (half_to_float (0x7e00)));
}

/* Every finite half converts to float and back unchanged. */
TEST (Fp16, RoundTripAllFinite)
{
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) == 0x7c00)
      continue;
    ASSERT_EQ (float_to_half (half_to_float (uint16_t (h))), h) << std::hex << h;
  }
}

TEST (Int8, RoundAndSaturate)
{
  EXPECT_EQ (quantize_int8 (0.f, 0.1f), 0);
  EXPECT_EQ (quantize_int8 (1.f, 0.1f), 10);
  EXPECT_EQ (quantize_int8 (-1.f, 0.1f), -10);
  EXPECT_EQ (quantize_int8 (0.25f, 0.5f), 0); /* 0.5 ties to even: 0 */
  EXPECT_EQ (quantize_int8 (0.75f, 0.5f), 2); /* 1.5 ties to even: 2 */
  EXPECT_EQ (quantize_int8 (-0.75f, 0.5f), -2);
  EXPECT_EQ (quantize_int8 (12.7f, 0.1f), 127);
  EXPECT_EQ (quantize_int8 (100.f, 0.1f), 127); /* saturates */
  EXPECT_EQ (quantize_int8 (-100.f, 0.1f), -128);
  EXPECT_EQ (quantize_int8 (-12.85f, 0.1f), -128);
  EXPECT_EQ (quantize_int8 (std::numeric_limits<float>::infinity (), 1.f), 127);
  EXPECT_EQ (quantize_int8 (std::numeric_limits<float>::quiet_NaN (), 1.f), 0);
  EXPECT_FLOAT_EQ (tensor::dequantize_int8 (-128, 0.5f), -64.f);
}

}  // namespace
