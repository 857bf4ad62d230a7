/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Raw descriptors -> tensor views: the real Orin dumps, the expected chw16 ones, and every
 * supported layout in every plausible reading of docs/cudla.md section 7; refusals print the raw
 * descriptor. */
#include "dla/descriptor_map.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "descriptor_fixtures.h"

namespace {

using tensor::ElemType;
using tensor::Layout;

dla::TensorInfo map_ok (const cudlaModuleTensorDescriptor &d, dla::Direction dir = dla::Direction::kInput)
{
  dla::TensorInfo t;
  const dla::Status st = dla::map_descriptor (d, dir, &t);
  EXPECT_TRUE (st.ok ()) << st.message;
  return t;
}

/* Same addresses for every element: strides and lanes agree. */
void expect_same_layout (const tensor::View &got, const tensor::View &want)
{
  EXPECT_EQ (got.type, want.type);
  EXPECT_EQ (got.lanes, want.lanes);
  EXPECT_EQ (got.row_stride, want.row_stride);
  EXPECT_EQ (got.plane_stride, want.plane_stride);
  EXPECT_EQ (got.batch_stride, want.batch_stride);
  EXPECT_EQ (got.size, want.size);
  EXPECT_EQ (got.n, want.n);
  EXPECT_EQ (got.h, want.h);
  EXPECT_EQ (got.w, want.w);
  for (int64_t c = 0; c < want.c; ++c)
    EXPECT_EQ (got.offset (want.n - 1, c, want.h - 1, want.w - 1),
               want.offset (want.n - 1, c, want.h - 1, want.w - 1));
}

TEST (DescriptorMap, RealOrinHwc4Int8Input)
{
  const auto d = fixtures::orin_hwc4_int8_input ();
  const dla::TensorInfo t = map_ok (d);
  EXPECT_EQ (t.view.layout, Layout::kDlaHwc4);
  EXPECT_EQ (t.view.type, ElemType::kInt8);
  EXPECT_EQ (t.view.lanes, 4);
  EXPECT_EQ (t.view.row_stride, 3840);
  EXPECT_EQ (t.view.size, 1966080);
  EXPECT_EQ (t.name, "input");
  EXPECT_EQ (std::memcmp (&t.raw, &d, sizeof d), 0) << "the raw descriptor is kept as given";
  EXPECT_NE (t.reading.find ("row stride in bytes"), std::string::npos) << t.reading;
  EXPECT_NE (t.reading.find ("size exact"), std::string::npos) << t.reading;
}

TEST (DescriptorMap, RealOrinDlaLinearInt8Output)
{
  const dla::TensorInfo t = map_ok (fixtures::orin_linear_int8_output (), dla::Direction::kOutput);
  EXPECT_EQ (t.view.layout, Layout::kDlaLinear);
  EXPECT_EQ (t.view.type, ElemType::kInt8);
  EXPECT_EQ (t.view.c, 64);
  EXPECT_EQ (t.view.row_stride, 64);
  EXPECT_EQ (t.view.plane_stride, 2048);
  EXPECT_EQ (t.view.size, 131072);
  EXPECT_EQ (t.view.offset (0, 63, 31, 59), 63 * 2048 + 31 * 64 + 59);
}

TEST (DescriptorMap, ExpectedChw16InputAndOutputEveryCReadingAndStrides)
{
  for (uint64_t c : {3, 16})
    for (bool strides : {true, false}) {
      SCOPED_TRACE ("c=" + std::to_string (c) + " strides=" + std::to_string (strides));
      const dla::TensorInfo in = map_ok (fixtures::chw16_input_224 (c, strides));
      EXPECT_EQ (in.view.layout, Layout::kChw16);
      EXPECT_EQ (in.view.row_stride, 7168);
      EXPECT_EQ (in.view.plane_stride, 1605632);
      EXPECT_EQ (in.view.size, 1605632);
      EXPECT_EQ (in.view.offset (0, 2, 1, 1), 7168 + 32 + 4);
    }
  for (uint64_t c : {1000, 1008})
    for (bool strides : {true, false}) {
      const dla::TensorInfo out = map_ok (fixtures::chw16_output_1000 (c, strides), dla::Direction::kOutput);
      EXPECT_EQ (out.view.layout, Layout::kChw16);
      EXPECT_EQ (out.view.size, 2016);
      /* The output degenerates to a plain vector: logit k at half index k. */
      EXPECT_EQ (out.view.offset (0, 999, 0, 0), 999 * 2);
      EXPECT_EQ (out.view.c, int64_t (c));
    }
}

struct LayoutCase {
  Layout layout;
  ElemType type;
  int64_t n, c, h, w;
};

/* Every layout and type the kernel writes, at sizes that need row padding and channel padding. */
const LayoutCase kCases[] = {
    {Layout::kChw16, ElemType::kFp16, 1, 3, 224, 224},
    {Layout::kChw16, ElemType::kFp16, 2, 3, 17, 33},
    {Layout::kChw16, ElemType::kFp16, 1, 1000, 1, 1},
    {Layout::kChw16, ElemType::kFp16, 1, 40, 5, 7},
    {Layout::kChw32, ElemType::kInt8, 1, 3, 224, 224},
    {Layout::kChw32, ElemType::kInt8, 1, 1000, 1, 1},
    {Layout::kChw32, ElemType::kInt8, 2, 3, 19, 21},
    {Layout::kDlaLinear, ElemType::kFp16, 1, 3, 224, 224},
    {Layout::kDlaLinear, ElemType::kFp16, 1, 3, 100, 33},
    {Layout::kDlaLinear, ElemType::kFp16, 1, 1000, 1, 1},
    {Layout::kDlaLinear, ElemType::kInt8, 1, 3, 50, 65},
    {Layout::kDlaLinear, ElemType::kInt8, 1, 64, 32, 60},
    {Layout::kDlaHwc4, ElemType::kFp16, 1, 3, 224, 224},
    {Layout::kDlaHwc4, ElemType::kFp16, 1, 3, 30, 37},
    {Layout::kDlaHwc4, ElemType::kFp16, 1, 1, 31, 45},
    {Layout::kDlaHwc4, ElemType::kInt8, 1, 3, 512, 960},
    {Layout::kDlaHwc4, ElemType::kInt8, 1, 3, 29, 70},
    {Layout::kDlaHwc4, ElemType::kInt8, 2, 1, 8, 8},
};

TEST (DescriptorMap, EveryLayoutInEveryReading)
{
  using namespace fixtures;
  const unsigned readings[] = {kOrin,
                               kCPadded,
                               kStridesZero,
                               kStridesWhcn,
                               kStridesElems,
                               kCodesNchw,
                               kCodesUnknown,
                               kSizeRounded,
                               kCPadded | kStridesZero | kCodesUnknown,
                               kCPadded | kStridesWhcn | kCodesNchw,
                               kStridesElems | kCodesUnknown | kSizeRounded};
  int mapped = 0;
  for (const LayoutCase &lc : kCases)
    for (unsigned r : readings) {
      tensor::View want;
      const auto d = for_layout (lc.layout, lc.type, lc.n, lc.c, lc.h, lc.w, r, &want);
      SCOPED_TRACE (std::string (tensor::layout_name (lc.layout)) + " " + tensor::elem_type_name (lc.type) +
                    " c=" + std::to_string (lc.c) + " h=" + std::to_string (lc.h) + " w=" +
                    std::to_string (lc.w) + " reading " + std::to_string (r) + ": " + dla::describe_raw (d));
      /* An output cannot be hwc4 (TensorRT: input only). */
      const dla::Direction dir =
          lc.layout == Layout::kDlaHwc4 || lc.h > 1 ? dla::Direction::kInput : dla::Direction::kOutput;
      dla::TensorInfo t;
      const dla::Status st = dla::map_descriptor (d, dir, &t);
      ASSERT_TRUE (st.ok ()) << st.message;
      expect_same_layout (t.view, want);
      /* A grey hwc4 image is byte for byte a dla_linear one; any other layout must be named right. */
      if (!(lc.layout == Layout::kDlaHwc4 && lc.c == 1)) {
        EXPECT_EQ (t.view.layout, lc.layout);
      }
      EXPECT_EQ (t.view.c, int64_t (d.c));
      EXPECT_FALSE (t.reading.empty ());
      ++mapped;
    }
  EXPECT_EQ (mapped, int (sizeof kCases / sizeof kCases[0]) * int (sizeof readings / sizeof readings[0]));
}

TEST (DescriptorMap, RowsPaddedBeyondPackingAreTakenFromStride1)
{
  /* A chw16 tensor whose rows the loadable pads to 64 B (not TensorRT's packing, but possible). */
  auto d = fixtures::desc ("x", 1 * 5 * 64, 1, 3, 5, 1, CUDLA_DATA_FORMAT_NCxHWx, CUDLA_DATA_TYPE_HALF,
                           CUDLA_DATA_CATEGORY_FEATURE, CUDLA_PIXEL_FORMAT_FEATURE, {2, 64, 320, 320});
  const dla::TensorInfo t = map_ok (d);
  EXPECT_EQ (t.view.layout, Layout::kChw16);
  EXPECT_EQ (t.view.row_stride, 64);
  EXPECT_EQ (t.view.plane_stride, 320);
  EXPECT_NE (t.reading.find ("padded rows from stride[1]"), std::string::npos) << t.reading;
}

TEST (DescriptorMap, SizeMismatchIsRefusedWithTheRawDescriptor)
{
  auto d = fixtures::chw16_input_224 ();
  d.size = 1605632 - 32;
  dla::TensorInfo t;
  const dla::Status st = dla::map_descriptor (d, dla::Direction::kInput, &t);
  EXPECT_EQ (st.code, dla::Code::kModel);
  for (const char *needle :
       {"input 'data'", "Raw descriptor: name='data' size=1605600 n=1 c=3 h=224 w=224",
        "dataFormat=3 (NCxHWx)", "dataType=2 (HALF)", "dataCategory=2 (FEATURE)", "pixelFormat=36 (FEATURE)",
        "pixelMapping=0", "stride=[2,7168,1605632,1605632,0,0,0,0]",
        "chw16: size 1605600 B differs from the layout's 1605632 B", "--inputIOFormats=fp16:chw16"})
    EXPECT_NE (st.message.find (needle), std::string::npos) << needle << " missing from: " << st.message;
}

TEST (DescriptorMap, RowStrideContradictingTheSizeIsRefused)
{
  auto d = fixtures::chw16_input_224 ();
  d.stride[1] = 7200;
  dla::TensorInfo t;
  const dla::Status st = dla::map_descriptor (d, dla::Direction::kInput, &t);
  EXPECT_EQ (st.code, dla::Code::kModel);
  EXPECT_NE (st.message.find ("stride[1] 7200"), std::string::npos) << st.message;
}

TEST (DescriptorMap, UnsupportedTypesNameTheTrtexecFormats)
{
  for (uint8_t type :
       {CUDLA_DATA_TYPE_FLOAT, CUDLA_DATA_TYPE_INT16, CUDLA_DATA_TYPE_UINT8, CUDLA_DATA_TYPE_UNKNOWN}) {
    auto d = fixtures::chw16_input_224 ();
    d.dataType = type;
    dla::TensorInfo t;
    dla::Status st = dla::map_descriptor (d, dla::Direction::kInput, &t);
    EXPECT_EQ (st.code, dla::Code::kModel);
    EXPECT_NE (st.message.find ("neither FP16 nor INT8"), std::string::npos) << st.message;
    EXPECT_NE (st.message.find ("--inputIOFormats=fp16:chw16"), std::string::npos) << st.message;
    EXPECT_NE (st.message.find ("int8:dla_hwc4"), std::string::npos) << st.message;
    auto o = fixtures::chw16_output_1000 ();
    o.dataType = type;
    st = dla::map_descriptor (o, dla::Direction::kOutput, &t);
    EXPECT_NE (st.message.find ("--outputIOFormats=fp16:chw16"), std::string::npos) << st.message;
  }
}

TEST (DescriptorMap, Hwc4IsNotAnOutputLayout)
{
  dla::TensorInfo t;
  const dla::Status st = dla::map_descriptor (fixtures::orin_hwc4_int8_input (), dla::Direction::kOutput, &t);
  EXPECT_EQ (st.code, dla::Code::kModel);
  EXPECT_NE (st.message.find ("output 'input'"), std::string::npos) << st.message;
}

TEST (DescriptorMap, ZeroAndHugeDimensionsAreRefused)
{
  auto d = fixtures::chw16_input_224 ();
  d.n = 0;
  dla::TensorInfo t;
  EXPECT_EQ (dla::map_descriptor (d, dla::Direction::kInput, &t).code, dla::Code::kModel);
  d = fixtures::chw16_input_224 ();
  d.w = 1u << 20;
  const dla::Status st = dla::map_descriptor (d, dla::Direction::kInput, &t);
  EXPECT_EQ (st.code, dla::Code::kModel);
  EXPECT_NE (st.message.find ("DLA's limits"), std::string::npos) << st.message;
}

TEST (DescriptorMap, NameWithoutTerminatorIsCut)
{
  auto d = fixtures::chw16_input_224 ();
  std::memset (d.name, 'a', sizeof d.name);
  EXPECT_EQ (dla::descriptor_name (d), std::string (81, 'a'));
}

TEST (DescriptorMap, DescribeView)
{
  const dla::TensorInfo t = map_ok (fixtures::chw16_input_224 ());
  EXPECT_EQ (dla::describe_view (t.view), "fp16 chw16 1x3x224x224 (row 7168 B, plane 1605632 B, 1605632 B)");
}

}  // namespace
