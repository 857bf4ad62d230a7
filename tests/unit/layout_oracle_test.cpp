/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The layout header (common/tensor_layout.h) against the independent format oracle written from
 * NVIDIA's descriptions (tests/oracle/dla_formats.h, docs/dla-formats.md): the oracle first against
 * the published worked sizes and hand-computed offsets, then the header against the oracle for
 * every layout, type and a spread of shapes (odd channel counts, widths off the row alignment). */
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/tensor_layout.h"
#include "dla_formats.h"
#include "layout_check.h"

namespace {

using dla_formats::Format;
using dla_formats::Tensor;
using dla_formats::Type;

TEST (LayoutOracle, PublishedSizes)
{
  EXPECT_EQ (dla_formats::byte_size ({Format::kChw16, Type::kFp16, 1, 3, 224, 224}), 1605632);
  EXPECT_EQ (dla_formats::byte_size ({Format::kChw16, Type::kFp16, 1, 1000, 1, 1}), 2016);
  EXPECT_EQ (dla_formats::byte_size ({Format::kDlaLinear, Type::kFp16, 1, 3, 224, 224}), 301056);
  EXPECT_EQ (dla_formats::byte_size ({Format::kDlaHwc4, Type::kFp16, 1, 3, 224, 224}), 401408);
  EXPECT_EQ (dla_formats::byte_size ({Format::kDlaHwc4, Type::kInt8, 1, 4, 512, 960}), 1966080);
  EXPECT_EQ (dla_formats::byte_size ({Format::kDlaLinear, Type::kInt8, 1, 64, 32, 60}), 131072);
}

TEST (LayoutOracle, HandComputedOffsets)
{
  /* chw16 FP16 1x3x224x224: (c 2, h 1, w 5) = ((0*1 + 0)*224 + 1)*224 + 5 pixels of 16 halfs, lane 2. */
  EXPECT_EQ (dla_formats::byte_offset ({Format::kChw16, Type::kFp16, 1, 3, 224, 224}, 0, 2, 1, 5),
             2 * ((1 * 224 + 5) * 16 + 2));
  /* chw16, 17 channels: channel 16 opens the second group of H*W*16 halfs. */
  EXPECT_EQ (dla_formats::byte_offset ({Format::kChw16, Type::kFp16, 1, 17, 2, 3}, 0, 16, 0, 0),
             2 * (2 * 3 * 16));
  /* chw32 INT8 2x40x2x2: image 1 starts after its 2 groups of 2*2*32 bytes; c 33 is group 1, lane 1. */
  EXPECT_EQ (dla_formats::byte_offset ({Format::kChw32, Type::kInt8, 2, 40, 2, 2}, 1, 33, 1, 0),
             1 * (2 * 2 * 2 * 32) + (1 * 2 * 2 + 1 * 2 + 0) * 32 + 1);
  /* dla_linear FP16 W=225: rows of roundUp(225, 32) = 256 halfs. */
  EXPECT_EQ (dla_formats::byte_offset ({Format::kDlaLinear, Type::kFp16, 1, 3, 150, 225}, 0, 1, 2, 7),
             2 * ((1 * 150 + 2) * 256 + 7));
  /* dla_linear INT8 W=60: rows of 64 bytes (the Orin dump's stride[1]). */
  EXPECT_EQ (dla_formats::byte_offset ({Format::kDlaLinear, Type::kInt8, 1, 64, 32, 60}, 0, 1, 0, 0), 2048);
  /* dla_hwc4 INT8 RGB W=10: C' = 4, rows of roundUp(10, 16) = 16 pixels = 64 bytes. */
  EXPECT_EQ (dla_formats::byte_offset ({Format::kDlaHwc4, Type::kInt8, 1, 3, 4, 10}, 0, 2, 3, 9),
             3 * 64 + 9 * 4 + 2);
  /* dla_hwc4 FP16 grey W=10: C' = 1, rows of roundUp(10, 32) halfs = 64 bytes. */
  EXPECT_EQ (dla_formats::byte_offset ({Format::kDlaHwc4, Type::kFp16, 1, 1, 4, 10}, 0, 0, 2, 3),
             2 * (2 * 32 + 3));
}

struct Case {
  tensor::Layout layout;
  tensor::ElemType type;
};

TEST (LayoutOracle, HeaderAgreesForEveryLayoutTypeAndShape)
{
  const Case cases[] = {{tensor::Layout::kChw16, tensor::ElemType::kFp16},
                        {tensor::Layout::kChw32, tensor::ElemType::kInt8},
                        {tensor::Layout::kDlaLinear, tensor::ElemType::kFp16},
                        {tensor::Layout::kDlaLinear, tensor::ElemType::kInt8},
                        {tensor::Layout::kDlaHwc4, tensor::ElemType::kFp16},
                        {tensor::Layout::kDlaHwc4, tensor::ElemType::kInt8}};
  int checked = 0;
  for (const Case &k : cases)
    for (int64_t n : {1, 2})
      for (int64_t c : {1, 3, 4, 8, 16, 17, 33, 64})
        for (int64_t h : {1, 5})
          for (int64_t w : {1, 7, 31, 33, 64, 65, 225}) {
            tensor::View v;
            if (!tensor::make_view (k.layout, k.type, n, c, h, w, &v))
              continue; /* hwc4 takes 1, 3 or 4 channels */
            EXPECT_EQ (layout_check::compare (v), "")
                << tensor::layout_name (k.layout) << " n" << n << " c" << c << " h" << h << " w" << w;
            ++checked;
          }
  EXPECT_GT (checked, 500);
}

TEST (LayoutOracle, PaddingCheckFindsANonZeroPadLane)
{
  const Tensor t{Format::kChw16, Type::kFp16, 1, 3, 2, 2};
  std::vector<uint8_t> bytes (size_t (dla_formats::byte_size (t)), 0);
  for (int64_t c = 0; c < 3; ++c)
    bytes[size_t (dla_formats::byte_offset (t, 0, c, 1, 1))] = 0x3c; /* data may be anything */
  EXPECT_EQ (layout_check::check_padding (t, bytes.data (), bytes.size ()), "");
  bytes[size_t (dla_formats::byte_offset (t, 0, 2, 1, 1) + 2)] = 1; /* lane 3 of pixel (1, 1) */
  EXPECT_NE (layout_check::check_padding (t, bytes.data (), bytes.size ()), "");
  const Tensor linear{Format::kDlaLinear, Type::kInt8, 1, 1, 2, 10};
  std::vector<uint8_t> rows (size_t (dla_formats::byte_size (linear)), 0);
  rows[63] = 7; /* the tail of row 0 (W = 10 of 64) */
  EXPECT_NE (layout_check::check_padding (linear, rows.data (), rows.size ()).find ("padding byte 63"),
             std::string::npos);
}

}  // namespace
