/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Validation of a model as a classifier (host/classifier.h) on tensors mapped from cuDLA
 * descriptors: one image input (3 channels, or 1 for grey; the padded count accepted), batch >= 1,
 * outputs C x 1 x 1 vectors with the input's batch. */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "descriptor_fixtures.h"
#include "dla/descriptor_map.h"
#include "host/classifier.h"

namespace {

using tensor::ElemType;
using tensor::Layout;

dla::TensorInfo info (Layout l, ElemType t, int64_t n, int64_t c, int64_t h, int64_t w, unsigned reading = 0,
                      dla::Direction dir = dla::Direction::kInput)
{
  tensor::View v;
  const auto d = fixtures::for_layout (l, t, n, c, h, w, reading, &v);
  dla::TensorInfo out;
  const dla::Status st = dla::map_descriptor (d, dir, &out);
  EXPECT_TRUE (st.ok ()) << st.message;
  return out;
}

/* The classifier sees the mapped tensors as the host layers do. */
dla::Status validate (const std::vector<dla::TensorInfo> &inputs, const std::vector<dla::TensorInfo> &outputs,
                      classifier::Shape *shape)
{
  return classifier::validate (dla::host_descs (inputs), dla::host_descs (outputs), shape);
}

dla::TensorInfo logits (int64_t classes, unsigned reading = 0, int64_t n = 1, Layout l = Layout::kChw16,
                        ElemType t = ElemType::kFp16)
{
  return info (l, t, n, classes, 1, 1, reading, dla::Direction::kOutput);
}

TEST (Classification, EveryWritableInputLayout)
{
  const struct {
    Layout l;
    ElemType t;
  } cases[] = {{Layout::kChw16, ElemType::kFp16},     {Layout::kDlaLinear, ElemType::kFp16},
               {Layout::kDlaHwc4, ElemType::kFp16},   {Layout::kChw32, ElemType::kInt8},
               {Layout::kDlaLinear, ElemType::kInt8}, {Layout::kDlaHwc4, ElemType::kInt8}};
  for (const auto &c : cases)
    for (unsigned reading : {0u, unsigned (fixtures::kCPadded)}) {
      SCOPED_TRACE (std::string (tensor::layout_name (c.l)) + " " + tensor::elem_type_name (c.t));
      classifier::Shape shape;
      const dla::Status st = validate ({info (c.l, c.t, 1, 3, 224, 224, reading)}, {logits (1000)}, &shape);
      ASSERT_TRUE (st.ok ()) << st.message;
      EXPECT_EQ (shape.channels, 3);
      EXPECT_EQ (shape.batch, 1);
      EXPECT_EQ (shape.height, 224);
      EXPECT_EQ (shape.width, 224);
      EXPECT_EQ (shape.input_view.c, 3);
      EXPECT_EQ (shape.input_view.layout, c.l);
      ASSERT_EQ (shape.classes.size (), 1u);
      EXPECT_EQ (shape.classes[0], 1000);
      /* Reported padded (16/32/4): 3 channels written, same strides. */
      EXPECT_EQ (shape.channels_padded, reading != 0 && c.l != Layout::kDlaLinear);
    }
}

TEST (Classification, GreyInputAndBatch)
{
  classifier::Shape shape;
  const dla::Status st =
      validate ({info (Layout::kDlaLinear, ElemType::kFp16, 4, 1, 28, 28)}, {logits (10, 0, 4)}, &shape);
  ASSERT_TRUE (st.ok ()) << st.message;
  EXPECT_EQ (shape.channels, 1);
  EXPECT_EQ (shape.batch, 4);
}

TEST (Classification, SeveralOutputsEachWithItsClassCount)
{
  classifier::Shape shape;
  const dla::Status st = validate ({info (Layout::kChw16, ElemType::kFp16, 1, 3, 64, 64)},
                                   {logits (1000), logits (8, 0, 1, Layout::kDlaLinear),
                                    logits (64, 0, 1, Layout::kChw32, ElemType::kInt8)},
                                   &shape);
  ASSERT_TRUE (st.ok ()) << st.message;
  EXPECT_EQ (shape.classes, (std::vector<int64_t>{1000, 8, 64}));
  EXPECT_EQ (shape.classes_may_include_padding, (std::vector<bool>{false, false, true}));
}

TEST (Classification, PaddedClassCountResolvedByLabels)
{
  const dla::TensorInfo padded = logits (1000, fixtures::kCPadded);
  EXPECT_EQ (padded.view.c, 1008);
  EXPECT_EQ (classifier::resolve_class_count (padded.view, 1000), 1000);
  EXPECT_EQ (classifier::resolve_class_count (padded.view, 0), 1008);
  EXPECT_EQ (classifier::resolve_class_count (padded.view, 900), 1008)
      << "900 labels are not the padding's doing";
  const dla::TensorInfo exact = logits (1000);
  EXPECT_EQ (classifier::resolve_class_count (exact.view, 999), 1000);
}

TEST (Classification, TwoInputsRefused)
{
  classifier::Shape shape;
  const auto in = info (Layout::kChw16, ElemType::kFp16, 1, 3, 32, 32);
  const dla::Status st = validate ({in, in}, {logits (10)}, &shape);
  EXPECT_EQ (st.code, dla::Code::kModel);
  EXPECT_NE (st.message.find ("2 inputs"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("exactly one image input"), std::string::npos) << st.message;
  EXPECT_EQ (validate ({}, {logits (10)}, &shape).code, dla::Code::kModel);
}

TEST (Classification, WrongChannelCountRefused)
{
  classifier::Shape shape;
  const dla::Status st =
      validate ({info (Layout::kChw16, ElemType::kFp16, 1, 8, 32, 32)}, {logits (10)}, &shape);
  EXPECT_EQ (st.code, dla::Code::kModel);
  EXPECT_NE (st.message.find ("8 channels"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("3 channels (RGB or BGR"), std::string::npos) << st.message;
  EXPECT_EQ (st.message.find ("grey"), std::string::npos) << "only 3 channels are accepted: " << st.message;
  EXPECT_NE (st.message.find ("Raw descriptor"), std::string::npos) << st.message;
}

TEST (Classification, SpatialOutputRefused)
{
  classifier::Shape shape;
  const dla::Status st =
      validate ({info (Layout::kChw16, ElemType::kFp16, 1, 3, 32, 32)},
                {info (Layout::kChw16, ElemType::kFp16, 1, 64, 7, 7, 0, dla::Direction::kOutput)}, &shape);
  EXPECT_EQ (st.code, dla::Code::kModel);
  EXPECT_NE (st.message.find ("64x7x7"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("C x 1 x 1"), std::string::npos) << st.message;
}

TEST (Classification, OutputBatchMustMatch)
{
  classifier::Shape shape;
  const dla::Status st =
      validate ({info (Layout::kChw16, ElemType::kFp16, 2, 3, 32, 32)}, {logits (10, 0, 1)}, &shape);
  EXPECT_EQ (st.code, dla::Code::kModel);
  EXPECT_NE (st.message.find ("batch 1"), std::string::npos) << st.message;
}

TEST (Classification, NoOutputsRefused)
{
  classifier::Shape shape;
  EXPECT_EQ (validate ({info (Layout::kChw16, ElemType::kFp16, 1, 3, 32, 32)}, {}, &shape).code,
             dla::Code::kModel);
}

}  // namespace
