/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tensor layouts against hand-computed offsets, strides and sizes (docs/cudla.md section 5). */
#include <gtest/gtest.h>

#include "common/tensor_layout.h"

using tensor::ElemType;
using tensor::Layout;
using tensor::View;

namespace {

View view (Layout l, ElemType t, int64_t n, int64_t c, int64_t h, int64_t w)
{
  View v{};
  EXPECT_TRUE (tensor::make_view (l, t, n, c, h, w, &v));
  return v;
}

/* chw16 FP16: [N][ceil(C/16)][H][W][16] halfs, rows dense (W * 32 bytes), C padded to 16. */
TEST (Layout, Chw16Fp16ImageInput)
{
  const View v = view (Layout::kChw16, ElemType::kFp16, 1, 3, 224, 224);
  EXPECT_EQ (v.lanes, 16);
  EXPECT_EQ (v.padded_channels (), 16);
  EXPECT_EQ (v.row_stride, 224 * 32);
  EXPECT_EQ (v.plane_stride, 1605632);
  EXPECT_EQ (v.size, 1605632); /* docs/cudla.md 5.2 */
  EXPECT_EQ (v.offset (0, 0, 0, 0), 0);
  EXPECT_EQ (v.offset (0, 2, 0, 0), 4);
  EXPECT_EQ (v.offset (0, 1, 0, 1), 32 + 2);
  EXPECT_EQ (v.offset (0, 2, 223, 223), (223 * 224 + 223) * 32 + 4);
}

/* Odd widths need no row padding in chw16: rows are whole 32-byte pixels. */
TEST (Layout, Chw16RowsAreDenseForOddWidths)
{
  for (int64_t w : {225, 300, 21}) {
    const View v = view (Layout::kChw16, ElemType::kFp16, 1, 3, 10, w);
    EXPECT_EQ (v.row_stride, w * 32) << w;
    EXPECT_EQ (v.size, 10 * w * 32) << w;
  }
}

/* A 1000-class chw16 output vector: 63 groups of 16, logit c at half index c. */
TEST (Layout, Chw16ClassVector)
{
  const View v = view (Layout::kChw16, ElemType::kFp16, 1, 1000, 1, 1);
  EXPECT_EQ (v.groups (), 63);
  EXPECT_EQ (v.size, 2016);
  for (int64_t c : {0, 15, 16, 999})
    EXPECT_EQ (v.offset (0, c, 0, 0), c * 2) << c;
}

TEST (Layout, Chw16Batch)
{
  const View v = view (Layout::kChw16, ElemType::kFp16, 4, 20, 7, 9);
  EXPECT_EQ (v.groups (), 2);
  EXPECT_EQ (v.plane_stride, 7 * 9 * 32);
  EXPECT_EQ (v.batch_stride, 2 * 7 * 9 * 32);
  EXPECT_EQ (v.size, 4 * 2 * 7 * 9 * 32);
  EXPECT_EQ (v.offset (3, 17, 6, 8), 3 * v.batch_stride + 1 * v.plane_stride + 6 * 9 * 32 + 8 * 32 + 1 * 2);
}

/* chw32 INT8: [N][ceil(C/32)][H][W][32] bytes. */
TEST (Layout, Chw32Int8)
{
  const View v = view (Layout::kChw32, ElemType::kInt8, 1, 3, 224, 225);
  EXPECT_EQ (v.lanes, 32);
  EXPECT_EQ (v.row_stride, 225 * 32);
  EXPECT_EQ (v.size, 224 * 225 * 32);
  EXPECT_EQ (v.offset (0, 2, 1, 1), 225 * 32 + 32 + 2);
  const View out = view (Layout::kChw32, ElemType::kInt8, 1, 1000, 1, 1);
  EXPECT_EQ (out.size, 32 * 32); /* 1000 -> 1024 channels */
}

/* dla_linear: planar, row stride rounded up to 64 bytes. */
TEST (Layout, DlaLinearFp16RowPadding)
{
  const View v224 = view (Layout::kDlaLinear, ElemType::kFp16, 1, 3, 224, 224);
  EXPECT_EQ (v224.row_stride, 448); /* already a multiple of 64 */
  EXPECT_EQ (v224.size, 301056);    /* = dense NCHW, docs/cudla.md 5.3 */
  const View v225 = view (Layout::kDlaLinear, ElemType::kFp16, 1, 3, 224, 225);
  EXPECT_EQ (v225.row_stride, 512); /* 450 -> 512 */
  EXPECT_EQ (v225.plane_stride, 224 * 512);
  EXPECT_EQ (v225.size, 3 * 224 * 512);
  EXPECT_EQ (v225.offset (0, 1, 2, 3), 224 * 512 + 2 * 512 + 6);
  const View v300 = view (Layout::kDlaLinear, ElemType::kFp16, 1, 3, 300, 300);
  EXPECT_EQ (v300.row_stride, 640); /* 600 -> 640 */
}

TEST (Layout, DlaLinearInt8RowPadding)
{
  const View v = view (Layout::kDlaLinear, ElemType::kInt8, 1, 3, 224, 225);
  EXPECT_EQ (v.row_stride, 256); /* 225 -> 256 */
  EXPECT_EQ (view (Layout::kDlaLinear, ElemType::kInt8, 1, 3, 224, 224).row_stride, 256);
  /* The real Orin dump (docs/cudla.md 5.4): INT8 1x64x32x60 output, row 64, plane 2048, size 131072. */
  const View d = view (Layout::kDlaLinear, ElemType::kInt8, 1, 64, 32, 60);
  EXPECT_EQ (d.row_stride, 64);
  EXPECT_EQ (d.plane_stride, 2048);
  EXPECT_EQ (d.size, 131072);
}

/* A padded C x 1 x 1 dla_linear vector holds one value per 64-byte row. */
TEST (Layout, DlaLinearClassVectorOneValuePerRow)
{
  const View v = view (Layout::kDlaLinear, ElemType::kFp16, 1, 8, 1, 1);
  EXPECT_EQ (v.row_stride, 64);
  EXPECT_EQ (v.size, 8 * 64);
  EXPECT_EQ (v.offset (0, 5, 0, 0), 5 * 64);
}

/* dla_hwc4: [N][H][W'][C'] with C' = 4 (3 padded to 4), rows rounded up to 64 bytes on Orin. */
TEST (Layout, DlaHwc4)
{
  const View f16 = view (Layout::kDlaHwc4, ElemType::kFp16, 1, 3, 224, 224);
  EXPECT_EQ (f16.lanes, 4);
  EXPECT_EQ (f16.row_stride, 1792);
  EXPECT_EQ (f16.size, 401408); /* docs/cudla.md 5.3 */
  EXPECT_EQ (f16.offset (0, 2, 1, 5), 1792 + 5 * 8 + 4);
  const View f16odd = view (Layout::kDlaHwc4, ElemType::kFp16, 1, 3, 10, 225);
  EXPECT_EQ (f16odd.row_stride, 1856); /* 225 * 8 = 1800 -> 1856 (W rounded to 232) */
  const View i8 = view (Layout::kDlaHwc4, ElemType::kInt8, 1, 4, 512, 960);
  EXPECT_EQ (i8.row_stride, 3840); /* the real dump, docs/cudla.md 5.4 */
  EXPECT_EQ (i8.size, 1966080);
  const View i8odd = view (Layout::kDlaHwc4, ElemType::kInt8, 1, 3, 4, 300);
  EXPECT_EQ (i8odd.row_stride, 1216); /* 1200 -> 1216 */
  const View grey = view (Layout::kDlaHwc4, ElemType::kFp16, 1, 1, 4, 225);
  EXPECT_EQ (grey.lanes, 1);
  EXPECT_EQ (grey.row_stride, 512); /* 450 -> 512 */
  EXPECT_EQ (f16.batch_stride, f16.size);
}

TEST (Layout, RefusesImpossibleCombinations)
{
  View v{};
  EXPECT_FALSE (tensor::make_view (Layout::kChw16, ElemType::kInt8, 1, 3, 8, 8, &v));
  EXPECT_FALSE (tensor::make_view (Layout::kChw32, ElemType::kFp16, 1, 3, 8, 8, &v));
  EXPECT_FALSE (tensor::make_view (Layout::kDlaHwc4, ElemType::kFp16, 1, 2, 8, 8, &v));
  EXPECT_FALSE (tensor::make_view (Layout::kDlaLinear, ElemType::kFp16, 0, 3, 8, 8, &v));
  EXPECT_FALSE (tensor::make_view (Layout::kDlaLinear, ElemType::kFp16, 1, 3, 8, -1, &v));
}

TEST (Layout, Names)
{
  EXPECT_STREQ (tensor::layout_name (Layout::kChw16), "chw16");
  EXPECT_STREQ (tensor::layout_name (Layout::kDlaHwc4), "dla_hwc4");
  EXPECT_STREQ (tensor::elem_type_name (ElemType::kInt8), "int8");
}

}  // namespace
