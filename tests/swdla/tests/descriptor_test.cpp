/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Descriptors as swdla fills them: the default ("orin") reading reproduces the real Orin dumps of
 * docs/cudla.md (section 5.4) and the expected chw16 values (5.2); each alternative reading
 * changes exactly what README.md says. */
#include <gtest/gtest.h>

#include <cstring>

#include "descriptors.h"

namespace {

using swdla::TensorSpec;
using tensor::ElemType;
using tensor::Layout;

TensorSpec spec (Layout l, ElemType t, int64_t c, int64_t h, int64_t w, const char *name = "t")
{
  TensorSpec s;
  s.name = name;
  s.layout = l;
  s.type = t;
  s.c = c;
  s.h = h;
  s.w = w;
  s.scale = 1.f / 64;
  return s;
}

cudlaModuleTensorDescriptor fill (const TensorSpec &t, uint32_t reading = swdla::kReadingOrin)
{
  cudlaModuleTensorDescriptor d;
  std::memset (&d, 0xab, sizeof d);
  swdla::fill_descriptor (t, reading, &d);
  return d;
}

void expect_strides (const cudlaModuleTensorDescriptor &d, std::vector<uint32_t> s)
{
  s.resize (8, 0);
  for (size_t i = 0; i < 8; ++i)
    EXPECT_EQ (d.stride[i], s[i]) << "stride[" << i << "]";
}

TEST (Descriptor, RealDumpInt8Hwc4Input)
{
  /* [I192]: 1,4,512,960  2/4/0/12  size 1,966,080  strides 1, 3840, 0, 0 */
  const auto d = fill (spec (Layout::kDlaHwc4, ElemType::kInt8, 3, 512, 960, "images"));
  EXPECT_STREQ (d.name, "images");
  EXPECT_EQ (d.n, 1u);
  EXPECT_EQ (d.c, 4u);
  EXPECT_EQ (d.h, 512u);
  EXPECT_EQ (d.w, 960u);
  EXPECT_EQ (d.dataFormat, CUDLA_DATA_FORMAT_NHWC);
  EXPECT_EQ (d.dataType, CUDLA_DATA_TYPE_INT8);
  EXPECT_EQ (d.dataCategory, CUDLA_DATA_CATEGORY_IMAGE);
  EXPECT_EQ (d.pixelFormat, CUDLA_PIXEL_FORMAT_A8B8G8R8);
  EXPECT_EQ (d.pixelMapping, CUDLA_PIXEL_MAPPING_PITCH_LINEAR);
  EXPECT_EQ (d.size, 1966080u);
  expect_strides (d, {1, 3840, 0, 0});
}

TEST (Descriptor, RealDumpInt8DlaLinearOutput)
{
  /* [I192]: 1,64,32,60  1/4/3/0  size 131,072  strides 1, 64, 2048, 2048 */
  const auto d = fill (spec (Layout::kDlaLinear, ElemType::kInt8, 64, 32, 60));
  EXPECT_EQ (d.c, 64u);
  EXPECT_EQ (d.dataFormat, CUDLA_DATA_FORMAT_NCHW);
  EXPECT_EQ (d.dataType, CUDLA_DATA_TYPE_INT8);
  EXPECT_EQ (d.dataCategory, CUDLA_DATA_CATEGORY_PLANAR);
  EXPECT_EQ (d.pixelFormat, 0);
  EXPECT_EQ (d.size, 131072u);
  expect_strides (d, {1, 64, 2048, 2048});
}

TEST (Descriptor, Chw16Fp16AsExpected)
{
  const auto in = fill (spec (Layout::kChw16, ElemType::kFp16, 3, 224, 224));
  EXPECT_EQ (in.c, 3u);
  EXPECT_EQ (in.size, 1605632u);
  EXPECT_EQ (in.dataFormat, CUDLA_DATA_FORMAT_NCxHWx);
  EXPECT_EQ (in.dataType, CUDLA_DATA_TYPE_HALF);
  EXPECT_EQ (in.dataCategory, CUDLA_DATA_CATEGORY_FEATURE);
  EXPECT_EQ (in.pixelFormat, CUDLA_PIXEL_FORMAT_FEATURE);
  expect_strides (in, {2, 7168, 1605632, 1605632});
  const auto out = fill (spec (Layout::kChw16, ElemType::kFp16, 1000, 1, 1));
  EXPECT_EQ (out.c, 1000u);
  EXPECT_EQ (out.size, 2016u);
  expect_strides (out, {2, 32, 32, 32});
}

TEST (Descriptor, OtherLayoutsDefaults)
{
  const auto lin = fill (spec (Layout::kDlaLinear, ElemType::kFp16, 8, 1, 1));
  EXPECT_EQ (lin.size, 512u); /* each channel a 64-byte row */
  EXPECT_EQ (lin.pixelFormat, CUDLA_PIXEL_FORMAT_R16_F);
  expect_strides (lin, {2, 64, 64, 64});
  const auto hwc = fill (spec (Layout::kDlaHwc4, ElemType::kFp16, 3, 150, 225));
  EXPECT_EQ (hwc.c, 4u);
  EXPECT_EQ (hwc.pixelFormat, CUDLA_PIXEL_FORMAT_A16B16G16R16_F);
  EXPECT_EQ (hwc.size, 150u * 1856u);
  expect_strides (hwc, {2, 1856, 0, 0});
  const auto grey = fill (spec (Layout::kDlaHwc4, ElemType::kFp16, 1, 64, 70));
  EXPECT_EQ (grey.c, 1u);
  EXPECT_EQ (grey.pixelFormat, CUDLA_PIXEL_FORMAT_R16_F);
  const auto c32 = fill (spec (Layout::kChw32, ElemType::kInt8, 3, 4, 5));
  EXPECT_EQ (c32.dataFormat, CUDLA_DATA_FORMAT_NCxHWx);
  expect_strides (c32, {1, 160, 640, 640});
}

TEST (Descriptor, Readings)
{
  const auto chw16 = spec (Layout::kChw16, ElemType::kFp16, 3, 224, 224);
  const auto hwc4 = spec (Layout::kDlaHwc4, ElemType::kInt8, 3, 512, 960);
  const auto c32 = spec (Layout::kChw32, ElemType::kInt8, 3, 4, 5);
  EXPECT_EQ (fill (chw16, swdla::kReadingCPadded).c, 16u);
  EXPECT_EQ (fill (c32, swdla::kReadingCPadded).c, 32u);
  EXPECT_EQ (fill (hwc4, swdla::kReadingCPadded).c, 4u);
  EXPECT_EQ (fill (hwc4, swdla::kReadingCReal).c, 3u);
  EXPECT_EQ (fill (chw16, swdla::kReadingCReal).c, 3u);
  expect_strides (fill (chw16, swdla::kReadingStridesZero), {});
  expect_strides (fill (chw16, swdla::kReadingStridesWhcn), {32, 7168, 1605632, 1605632});
  expect_strides (fill (hwc4, swdla::kReadingStridesWhcn), {4, 3840, 1966080, 1966080});
  EXPECT_EQ (fill (chw16, swdla::kReadingCodesNchw).dataFormat, CUDLA_DATA_FORMAT_NCHW);
  EXPECT_EQ (fill (spec (Layout::kDlaLinear, ElemType::kFp16, 3, 4, 5), swdla::kReadingCodesNchw).pixelFormat,
             0);
  const auto unk = fill (chw16, swdla::kReadingCodesUnknown);
  EXPECT_EQ (unk.dataFormat, CUDLA_DATA_FORMAT_UNKNOWN);
  EXPECT_EQ (unk.dataCategory, CUDLA_DATA_CATEGORY_IMAGE);
  EXPECT_EQ (unk.pixelFormat, CUDLA_PIXEL_FORMAT_UNKNOWN);
  /* Size never changes with the reading. */
  for (uint32_t r = 0; r < 64; ++r)
    if (!((r & 1) && (r & 2)) && !((r & 4) && (r & 8))) {
      EXPECT_EQ (fill (chw16, r).size, 1605632u) << r;
    }
}

TEST (Descriptor, ReportedTypeOverride)
{
  auto t = spec (Layout::kChw16, ElemType::kFp16, 3, 4, 4);
  t.report_data_type = CUDLA_DATA_TYPE_FLOAT;
  EXPECT_EQ (fill (t).dataType, CUDLA_DATA_TYPE_FLOAT);
}

TEST (Descriptor, ParseReading)
{
  uint32_t f = 99;
  std::string why;
  EXPECT_TRUE (swdla::parse_reading (nullptr, &f, &why));
  EXPECT_EQ (f, 0u);
  EXPECT_TRUE (swdla::parse_reading ("orin", &f, &why));
  EXPECT_EQ (f, 0u);
  EXPECT_TRUE (swdla::parse_reading ("c-padded,strides-zero", &f, &why));
  EXPECT_EQ (f, uint32_t (swdla::kReadingCPadded | swdla::kReadingStridesZero));
  EXPECT_FALSE (swdla::parse_reading ("c-pad", &f, &why));
  EXPECT_NE (why.find ("c-pad"), std::string::npos);
  EXPECT_FALSE (swdla::parse_reading ("c-padded,c-real", &f, &why));
  EXPECT_FALSE (swdla::parse_reading ("strides-zero,strides-whcn", &f, &why));
}

TEST (Descriptor, NameIsTruncatedAndTerminated)
{
  auto t = spec (Layout::kChw16, ElemType::kFp16, 3, 4, 4);
  t.name = std::string (79, 'x');
  const auto d = fill (t);
  EXPECT_EQ (std::string (d.name), t.name);
}

}  // namespace
