/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* De-padding an output for the tensor meta: every DLA layout and type, row padding, batches, both
 * published types. Pad bytes are poisoned, so reading one shows up as a wrong value; values are
 * written through View::offset and must come back in dense row-major NCHW order. */
#include "host/depad.h"

#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <vector>

#include "common/numeric.h"

namespace {

using tensor::ElemType;
using tensor::Layout;

struct Case {
  Layout layout;
  ElemType type;
  int64_t n, c, h, w;
};

void PrintTo (const Case &c, std::ostream *os)
{
  *os << tensor::layout_name (c.layout) << " " << tensor::elem_type_name (c.type) << " " << c.n << "x" << c.c
      << "x" << c.h << "x" << c.w;
}

constexpr float kScale = 0.25f;

/* Exactly representable in FP16 and as INT8 * 0.25: values -31.75 .. 31.75. */
float value (int64_t i)
{
  return float (int (i % 255) - 127) * kScale;
}

std::vector<uint8_t> make_tensor (const tensor::View &v)
{
  std::vector<uint8_t> data (size_t (v.size), 0x7c); /* poison: 0x7c7c is FP16 ~ 36000, INT8 124 */
  int64_t i = 0;
  for (int64_t n = 0; n < v.n; ++n)
    for (int64_t c = 0; c < v.c; ++c)
      for (int64_t y = 0; y < v.h; ++y)
        for (int64_t x = 0; x < v.w; ++x, ++i) {
          uint8_t *p = data.data () + v.offset (n, c, y, x);
          if (v.type == ElemType::kFp16) {
            const uint16_t h = tensor::float_to_half (value (i));
            std::memcpy (p, &h, 2);
          } else {
            *p = uint8_t (tensor::quantize_int8 (value (i), kScale));
          }
        }
  return data;
}

class Depad : public ::testing::TestWithParam<Case> {};

TEST_P (Depad, DenseNchwInBothTypes)
{
  const Case &k = GetParam ();
  tensor::View v;
  ASSERT_TRUE (tensor::make_view (k.layout, k.type, k.n, k.c, k.h, k.w, &v));
  const std::vector<uint8_t> data = make_tensor (v);
  std::vector<float> f32 (depad::elements (v), -1000.f);
  ASSERT_EQ (depad::dense_bytes (v, depad::Type::kFloat32), f32.size () * 4);
  depad::depad (v, data.data (), kScale, depad::Type::kFloat32, f32.data ());
  std::vector<uint16_t> f16 (depad::elements (v), 0xffff);
  ASSERT_EQ (depad::dense_bytes (v, depad::Type::kFloat16), f16.size () * 2);
  depad::depad (v, data.data (), kScale, depad::Type::kFloat16, f16.data ());
  for (size_t i = 0; i < f32.size (); ++i) {
    ASSERT_EQ (f32[i], value (int64_t (i))) << "element " << i;
    ASSERT_EQ (tensor::half_to_float (f16[i]), value (int64_t (i))) << "element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P (Layouts, Depad,
                          ::testing::Values (Case{Layout::kChw16, ElemType::kFp16, 1, 1000, 1, 1},
                                             Case{Layout::kChw16, ElemType::kFp16, 1, 1008, 1, 1},
                                             Case{Layout::kChw16, ElemType::kFp16, 2, 20, 7, 5},
                                             Case{Layout::kChw32, ElemType::kInt8, 1, 1000, 1, 1},
                                             Case{Layout::kChw32, ElemType::kInt8, 1, 40, 7, 7},
                                             Case{Layout::kDlaLinear, ElemType::kFp16, 1, 1000, 1, 1},
                                             Case{Layout::kDlaLinear, ElemType::kFp16, 1, 20, 7, 37},
                                             Case{Layout::kDlaLinear, ElemType::kInt8, 2, 8, 3, 70},
                                             Case{Layout::kDlaHwc4, ElemType::kFp16, 1, 3, 5, 9},
                                             Case{Layout::kDlaHwc4, ElemType::kInt8, 1, 4, 2, 17},
                                             Case{Layout::kDlaHwc4, ElemType::kInt8, 1, 1, 3, 70}));

TEST (DepadRounding, Int8ToFloat16RoundsTheDequantisedValue)
{
  tensor::View v;
  ASSERT_TRUE (tensor::make_view (Layout::kDlaLinear, ElemType::kInt8, 1, 1, 1, 1, &v));
  std::vector<uint8_t> data (size_t (v.size), 0);
  data[0] = uint8_t (int8_t (-7));
  uint16_t h = 0;
  depad::depad (v, data.data (), 0.1f, depad::Type::kFloat16, &h);
  EXPECT_EQ (h, tensor::float_to_half (-7 * 0.1f));
}

}  // namespace
