/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The classifier's checks (host/classifier.h) on tensors described by the layout header alone, no
 * cuDLA: what full-frame classification needs of a model, which check refuses it, and what the
 * element then runs. The same validation on tensors mapped from descriptors:
 * tests/dla/classification_test.cpp. */
#include "host/classifier.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using tensor::ElemType;
using tensor::Layout;

host::TensorDesc desc (const std::string &name, Layout l, ElemType t, int64_t n, int64_t c, int64_t h,
                       int64_t w)
{
  host::TensorDesc d;
  d.name = name;
  EXPECT_TRUE (tensor::make_view (l, t, n, c, h, w, &d.view));
  d.bytes = uint64_t (d.view.size);
  d.raw = "name='" + name + "'";
  return d;
}

host::TensorDesc image (int64_t n = 1, int64_t c = 3, ElemType t = ElemType::kFp16, Layout l = Layout::kChw16)
{
  return desc ("image", l, t, n, c, 224, 224);
}

host::TensorDesc scores (int64_t classes, ElemType t = ElemType::kFp16, Layout l = Layout::kChw16,
                         int64_t n = 1)
{
  return desc ("logits", l, t, n, classes, 1, 1);
}

struct Planned {
  classifier::Plan plan;
  classifier::Check failed = classifier::Check::kShape;
  host::Status st;
};

Planned plan (const host::TensorDesc &in, const host::TensorDesc &out, classifier::Requirements req = {})
{
  Planned p;
  p.st = classifier::plan ({in}, {out}, req, &p.plan, &p.failed);
  return p;
}

TEST (Classifier, PlansAColourClassifier)
{
  classifier::Requirements req;
  req.labels = 1000;
  const Planned p = plan (image (), scores (1000), req);
  ASSERT_TRUE (p.st.ok ()) << p.st.message;
  EXPECT_EQ (p.plan.classes, 1000);
  EXPECT_EQ (p.plan.input_view.c, 3);
  EXPECT_EQ (p.plan.output_view.c, 1000);
  EXPECT_FALSE (p.plan.classes_may_be_padding);
}

/* Full frames: batch 1, and the refusal names inference-region=roi-list; objects take any batch. */
TEST (Classifier, BatchMustBeOneForFullFrames)
{
  const Planned p = plan (image (2), scores (10, ElemType::kFp16, Layout::kChw16, 2));
  EXPECT_EQ (p.st.code, host::Code::kModel);
  EXPECT_EQ (p.failed, classifier::Check::kShape);
  EXPECT_NE (p.st.message.find ("batch 2"), std::string::npos) << p.st.message;
  EXPECT_NE (p.st.message.find ("set inference-region=roi-list"), std::string::npos) << p.st.message;
  classifier::Requirements objects;
  objects.objects = true;
  for (int n : {1, 4, 16}) {
    const Planned o = plan (image (n), scores (10, ElemType::kFp16, Layout::kChw16, n), objects);
    EXPECT_TRUE (o.st.ok ()) << n << ": " << o.st.message;
    EXPECT_EQ (o.plan.shape.batch, n);
  }
}

TEST (Classifier, GreyInputRefusedForFullFrame)
{
  const Planned p = plan (image (1, 1, ElemType::kFp16, Layout::kDlaLinear), scores (10));
  EXPECT_EQ (p.st.code, host::Code::kModel);
  EXPECT_NE (p.st.message.find ("1 channel(s)"), std::string::npos) << p.st.message;
  EXPECT_NE (p.st.message.find ("--inputIOFormats"), std::string::npos) << "names the trtexec fix";
}

TEST (Classifier, LabelsMustMatchTheClassCount)
{
  classifier::Requirements req;
  req.labels = 9;
  req.labels_path = "/x/colours.txt";
  const Planned p = plan (image (), scores (8, ElemType::kFp16, Layout::kDlaLinear), req);
  EXPECT_EQ (p.st.code, host::Code::kSettings);
  EXPECT_EQ (p.failed, classifier::Check::kLabels);
  EXPECT_NE (p.st.message.find ("'/x/colours.txt' has 9 labels but the model has 8 classes"),
             std::string::npos)
      << p.st.message;
}

/* A chw16 output reporting 1008 channels: 1000 labels say 8 of them are padding. */
TEST (Classifier, LabelsResolveAPaddedClassCount)
{
  classifier::Requirements req;
  req.labels = 1000;
  Planned p = plan (image (), scores (1008), req);
  ASSERT_TRUE (p.st.ok ()) << p.st.message;
  EXPECT_EQ (p.plan.classes, 1000);
  EXPECT_EQ (p.plan.output_view.c, 1000) << "the pad lanes are not classes";
  p = plan (image (), scores (1008));
  ASSERT_TRUE (p.st.ok ());
  EXPECT_EQ (p.plan.classes, 1008);
  EXPECT_TRUE (p.plan.classes_may_be_padding) << "without labels the element warns";
}

TEST (Classifier, Int8InputNeedsItsScale)
{
  const host::TensorDesc in = image (1, 3, ElemType::kInt8, Layout::kChw32);
  Planned p = plan (in, scores (10));
  EXPECT_EQ (p.st.code, host::Code::kSettings);
  EXPECT_EQ (p.failed, classifier::Check::kInputScale);
  EXPECT_NE (p.st.message.find ("input-scale"), std::string::npos) << p.st.message;
  classifier::Requirements req;
  req.input_scale = 1.f / 127.f;
  EXPECT_TRUE (plan (in, scores (10), req).st.ok ());
}

TEST (Classifier, Int8OutputNeedsItsScale)
{
  const host::TensorDesc out = scores (10, ElemType::kInt8, Layout::kChw32);
  Planned p = plan (image (), out);
  EXPECT_EQ (p.st.code, host::Code::kSettings);
  EXPECT_EQ (p.failed, classifier::Check::kOutputScale);
  EXPECT_NE (p.st.message.find ("output-scale"), std::string::npos) << p.st.message;
  classifier::Requirements req;
  req.output_scale = 0.1f;
  EXPECT_TRUE (plan (image (), out, req).st.ok ());
}

/* Tensors a classifier cannot have are refused before anything is allocated for them. */
TEST (Classifier, TensorSizeLimit)
{
  host::TensorDesc big = image ();
  EXPECT_TRUE (classifier::check_tensor_sizes ({big}, {scores (10)}).ok ());
  big.bytes = classifier::kMaxTensorBytes + 1;
  const host::Status st = classifier::check_tensor_sizes ({big}, {scores (10)});
  EXPECT_EQ (st.code, host::Code::kModel);
  EXPECT_NE (st.message.find ("tensor 'image' needs"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("not a classifier dlainfer can run"), std::string::npos) << st.message;
}

TEST (Classifier, RawDescriptorInShapeMessages)
{
  const Planned p = plan (image (), desc ("features", Layout::kChw16, ElemType::kFp16, 1, 64, 7, 7));
  EXPECT_EQ (p.st.code, host::Code::kModel);
  EXPECT_NE (p.st.message.find ("Raw descriptor: name='features'"), std::string::npos) << p.st.message;
}

/* A feature map or an embedding runs only with raw tensors on, and then classifies nothing. */
TEST (Classifier, AnyImageModelWithRawTensors)
{
  const host::TensorDesc map = desc ("features", Layout::kChw16, ElemType::kFp16, 1, 64, 7, 7);
  Planned p = plan (image (), map);
  EXPECT_EQ (p.st.code, host::Code::kModel);
  EXPECT_NE (p.st.message.find ("set tensor-meta=true"), std::string::npos) << p.st.message;
  classifier::Requirements req;
  req.tensors = true;
  p = plan (image (), map, req);
  ASSERT_TRUE (p.st.ok ()) << p.st.message;
  EXPECT_EQ (p.plan.classes, 0);
  EXPECT_EQ (p.plan.output_view.c, 64);
  EXPECT_EQ (p.plan.input_view.c, 3);
  EXPECT_FALSE (p.plan.classes_may_be_padding);
  /* A class vector stays one with raw tensors on. */
  p = plan (image (), scores (10), req);
  ASSERT_TRUE (p.st.ok ()) << p.st.message;
  EXPECT_EQ (p.plan.classes, 10);
}

TEST (Classifier, RawTensorsStillNeedAnImageInputAndTheirScales)
{
  classifier::Requirements req;
  req.tensors = true;
  const host::TensorDesc int8_map = desc ("features", Layout::kChw32, ElemType::kInt8, 1, 64, 7, 7);
  Planned p = plan (image (), int8_map, req);
  EXPECT_EQ (p.failed, classifier::Check::kOutputScale);
  EXPECT_NE (p.st.message.find ("output-scale"), std::string::npos) << p.st.message;
  req.output_scale = 0.5f;
  EXPECT_TRUE (plan (image (), int8_map, req).st.ok ());
  const host::TensorDesc grey = desc ("image", Layout::kChw16, ElemType::kFp16, 1, 8, 32, 32);
  EXPECT_EQ (plan (grey, int8_map, req).st.code, host::Code::kModel) << "8 channels: no image input";
  /* Every INT8 output is read as values when raw tensors are on. */
  req.output_scale = 0.f;
  p.st = classifier::plan ({image ()}, {scores (10), int8_map}, req, &p.plan, &p.failed);
  EXPECT_EQ (p.failed, classifier::Check::kOutputScale) << p.st.message;
}

TEST (Classifier, LabelsNeedAClassVector)
{
  classifier::Requirements req;
  req.tensors = true;
  req.labels = 64;
  req.labels_path = "l.txt";
  const Planned p = plan (image (), desc ("features", Layout::kChw16, ElemType::kFp16, 1, 64, 7, 7), req);
  EXPECT_EQ (p.failed, classifier::Check::kLabels);
  EXPECT_NE (p.st.message.find ("unset labels"), std::string::npos) << p.st.message;
}

}  // namespace

/* A detector's requirements: the input's checks, any outputs (its decoder reads them), labels of
 * any count, output-scale for an INT8 head. */
TEST (Classifier, DetectorTakesGridOutputsAndItsOwnLabels)
{
  classifier::Requirements req;
  req.detector = true;
  req.labels = 80;
  req.labels_path = "/x/coco.txt";
  const host::TensorDesc head = desc ("head", Layout::kChw16, ElemType::kFp16, 1, 255, 20, 20);
  const Planned p = plan (image (), head, req);
  ASSERT_TRUE (p.st.ok ()) << p.st.message;
  EXPECT_EQ (p.plan.classes, 0);
  EXPECT_EQ (p.plan.input_view.c, 3);
  const Planned vector = plan (image (), scores (1000), req);
  ASSERT_TRUE (vector.st.ok ()) << vector.st.message;
  EXPECT_EQ (vector.plan.classes, 0) << "a detector's outputs are never class vectors";
  const Planned int8 = plan (image (), desc ("head", Layout::kChw32, ElemType::kInt8, 1, 255, 20, 20), req);
  EXPECT_EQ (int8.failed, classifier::Check::kOutputScale) << int8.st.message;
  const Planned classifier = plan (image (), head);
  EXPECT_NE (classifier.st.message.find ("a detector runs in dladetect"), std::string::npos)
      << classifier.st.message;
}
