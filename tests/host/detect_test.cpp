/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Detection decoding on the host: keys parsed or refused naming the key and value, plans refused
 * naming the decoder's expectation and the model's tensor, SSD priors in Caffe's order, and the
 * reference's edge cases (nothing passes, clipping to the crop, NMS by class, bounds). The formulas
 * themselves are checked against NumPy by detect_oracle.py. */
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "common/numeric.h"
#include "host/detect/decode_ref.h"
#include "host/detect/plan.h"

namespace {

using detect::Config;
using detect::ModelTensors;

host::TensorDesc desc (const char *name, tensor::Layout l, tensor::ElemType t, int64_t c, int64_t h,
                       int64_t w)
{
  host::TensorDesc d;
  d.name = name;
  EXPECT_TRUE (tensor::make_view (l, t, 1, c, h, w, &d.view));
  return d;
}

host::TensorDesc fp16 (const char *name, int64_t c, int64_t h, int64_t w)
{
  return desc (name, tensor::Layout::kChw16, tensor::ElemType::kFp16, c, h, w);
}

Config yolo_config (int classes)
{
  Config c;
  EXPECT_TRUE (detect::parse_config ({{"dlainfer-decoder", "yolo-anchors"},
                                      {"dlainfer-classes", std::to_string (classes)},
                                      {"dlainfer-anchors", "10,13,16,30;30,61,62,45"},
                                      {"dlainfer-strides", "8,16"}},
                                     &c)
                   .ok ());
  return c;
}

ModelTensors yolo_model (int classes)
{
  ModelTensors m;
  m.input_width = m.input_height = 64;
  m.outputs = {fp16 ("p16", 2 * (5 + classes), 4, 4), fp16 ("p8", 2 * (5 + classes), 8, 8)};
  m.output_scales = {0.f, 0.f};
  return m;
}

host::Status plan_of (const Config &c, const ModelTensors &m, detect::Plan *p)
{
  return detect::build_plan (c, m, p);
}

TEST (DetectConfig, KeysParsedAndBadValuesNamed)
{
  Config c;
  ASSERT_TRUE (detect::parse_config ({{"dlainfer-decoder", "ssd"},
                                      {"dlainfer-aspect-ratios", "2;2,3"},
                                      {"dlainfer-class-thresholds", "3:0.5,7:0.25"},
                                      {"other-key", "ignored"}},
                                     &c)
                   .ok ());
  EXPECT_EQ (c.family, detect::Family::kSsd);
  ASSERT_EQ (c.aspect_ratios.size (), 2u);
  EXPECT_EQ (c.aspect_ratios[1].size (), 2u);
  ASSERT_EQ (c.class_thresholds.size (), 2u);
  EXPECT_EQ (c.class_thresholds[1].first, 7);

  for (const auto &kv :
       std::vector<std::pair<std::string, std::string>>{{"dlainfer-decoder", "yolo"},
                                                        {"dlainfer-anchors", "10,13,16"},
                                                        {"dlainfer-strides", "8,0"},
                                                        {"dlainfer-threshold", "1.5"},
                                                        {"dlainfer-max-candidates", "5000"},
                                                        {"dlainfer-variances", "0.1,0.1"},
                                                        {"dlainfer-class-thresholds", "x:1"}}) {
    Config d;
    const host::Status s = detect::parse_config ({kv}, &d);
    EXPECT_EQ (s.code, host::Code::kSettings) << kv.first;
    EXPECT_NE (s.message.find (kv.first + "=" + kv.second), std::string::npos) << s.message;
  }
}

TEST (DetectConfig, UpstreamYolov8IdSelectsTheDecodedTensor)
{
  Config c;
  EXPECT_TRUE (detect::names_a_detector ({{"tensor-ids", "foo,yolo-v8-out"}}));
  EXPECT_FALSE (detect::names_a_detector ({{"group-id", "classification-generic-out"}}));
  ASSERT_TRUE (detect::parse_config ({{"group-id", "yolo-v8-out"}}, &c).ok ());
  EXPECT_EQ (c.family, detect::Family::kYolov8);
  EXPECT_TRUE (c.decoded);
}

TEST (DetectPlan, OutputsMatchedByGridInAnyOrder)
{
  auto p = std::make_unique<detect::Plan> ();
  ASSERT_TRUE (plan_of (yolo_config (3), yolo_model (3), p.get ()).ok ());
  EXPECT_EQ (p->levels, 2);
  EXPECT_EQ (p->level[0].box.output, 1); /* the 8x8 grid, listed second */
  EXPECT_EQ (p->level[1].first, 2 * 8 * 8);
  EXPECT_EQ (p->candidates, 2 * 64 + 2 * 16);
  EXPECT_NEAR (p->min_logit, std::log (0.25f / 0.75f), 1e-6);
}

TEST (DetectPlan, PaddedDescriptorResolvedOrAmbiguous)
{
  ModelTensors m = yolo_model (3);
  m.outputs[0] = fp16 ("p16", 16, 4, 4); /* 2 x 8 = 16 channels reported padded to 16: exact */
  m.outputs[1] = fp16 ("p8", 32, 8, 8);  /* 16 channels reported as 32: wrong */
  auto p = std::make_unique<detect::Plan> ();
  host::Status s = plan_of (yolo_config (3), m, p.get ());
  EXPECT_EQ (s.code, host::Code::kModel);
  EXPECT_NE (s.message.find ("expects 16 channels"), std::string::npos) << s.message;
  EXPECT_NE (s.message.find ("'p8'"), std::string::npos) << s.message;

  /* 85 x 3 = 255 reported as 256 with the class count unknown: the count cannot be told. */
  Config c;
  ASSERT_TRUE (detect::parse_config ({{"dlainfer-anchors", "1,1,2,2,3,3"}}, &c).ok ());
  m.input_width = m.input_height = 64;
  m.outputs = {fp16 ("s8", 256, 8, 8)};
  m.output_scales = {0.f};
  s = plan_of (c, m, p.get ());
  EXPECT_NE (s.message.find ("dlainfer-classes"), std::string::npos) << s.message;
  m.outputs = {fp16 ("s8", 255, 8, 8)};
  ASSERT_TRUE (plan_of (c, m, p.get ()).ok ());
  EXPECT_EQ (p->classes, 80);
  EXPECT_EQ (p->output[0].c, 255);
}

TEST (DetectPlan, RefusalsNameBoth)
{
  auto p = std::make_unique<detect::Plan> ();
  ModelTensors m = yolo_model (3);
  m.outputs[0] = desc ("p16", tensor::Layout::kChw32, tensor::ElemType::kInt8, 16, 4, 4);
  host::Status s = plan_of (yolo_config (3), m, p.get ());
  EXPECT_EQ (s.code, host::Code::kSettings);
  EXPECT_NE (s.message.find ("'p16'"), std::string::npos) << s.message;
  EXPECT_NE (s.message.find ("scale"), std::string::npos) << s.message;

  Config c = yolo_config (3);
  c.outputs = {"p8", "missing"};
  s = plan_of (c, yolo_model (3), p.get ());
  EXPECT_NE (s.message.find ("'missing'"), std::string::npos) << s.message;
  EXPECT_NE (s.message.find ("'p16'"), std::string::npos) << s.message;

  c.outputs = {"p8", "p8"};
  s = plan_of (c, yolo_model (3), p.get ());
  EXPECT_NE (s.message.find ("'p16' (fp16 chw16 1x16x4x4) is read by 0 levels"), std::string::npos)
      << s.message;

  c = yolo_config (3);
  c.class_thresholds = {{5, 0.5f}};
  s = plan_of (c, yolo_model (3), p.get ());
  EXPECT_NE (s.message.find ("class 5 of 3"), std::string::npos) << s.message;

  Config none;
  s = plan_of (none, yolo_model (3), p.get ());
  EXPECT_NE (s.message.find ("dlainfer-anchors is not set"), std::string::npos) << s.message;
}

TEST (DetectPriors, CaffeOrder)
{
  const auto pr = detect::ssd_priors (30.f, 60.f, {2.f, 1.f}, true);
  ASSERT_EQ (pr.size (), 4u);
  EXPECT_FLOAT_EQ (pr[1].first, std::sqrt (1800.f));
  EXPECT_FLOAT_EQ (pr[2].first, 30.f * std::sqrt (2.f));
  EXPECT_FLOAT_EQ (pr[3].second, 30.f * std::sqrt (2.f));
}

using Keys = std::map<std::string, std::string>;

/* One 4x4 grid, one anchor 16x16 (stride 8 on a 32x32 input), 2 classes, FP16 dla_linear. */
struct Tiny {
  std::unique_ptr<detect::Plan> plan = std::make_unique<detect::Plan> ();
  host::TensorDesc out = desc ("o", tensor::Layout::kDlaLinear, tensor::ElemType::kFp16, 7, 4, 4);
  std::vector<uint16_t> data;
  detect::Frame frame{};
  std::unique_ptr<detect::Result> result = std::make_unique<detect::Result> ();

  explicit Tiny (Keys extra = {})
  {
    Config c;
    extra.insert ({{"dlainfer-anchors", "16,16"}, {"dlainfer-classes", "2"}, {"dlainfer-strides", "8"}});
    EXPECT_TRUE (detect::parse_config (extra, &c).ok ());
    ModelTensors m;
    m.input_width = m.input_height = 32;
    m.outputs = {out};
    m.output_scales = {0.f};
    EXPECT_TRUE (detect::build_plan (c, m, plan.get ()).ok ());
    data.assign (size_t (out.view.size / 2), tensor::float_to_half (-10.f));
    frame.outputs[0] = data.data ();
    frame.x = geometry::Axis{0, 32, 32, 0};
    frame.y = geometry::Axis{0, 32, 32, 0};
  }
  void set (int ch, int y, int x, float v)
  {
    data[size_t (out.view.offset (0, ch, y, x) / 2)] = tensor::float_to_half (v);
  }
  /* An object at cell (y, x): box raw 0 (centre +0.5 cell, 16x16), objectness and class logits. */
  void plant (int y, int x, int cls, float obj = 3.f)
  {
    for (int k = 0; k < 4; ++k)
      set (k, y, x, 0.f);
    set (4, y, x, obj);
    set (5 + cls, y, x, 4.f);
  }
  void run () { detect::decode_reference (*plan, frame, result.get ()); }
};

TEST (DetectReference, NothingPasses)
{
  Tiny t;
  t.run ();
  EXPECT_EQ (t.result->count, 0);
  EXPECT_EQ (t.result->candidates, 0);
}

TEST (DetectReference, ClassAwareNmsAndClipping)
{
  Tiny t;
  t.plant (0, 0, 0, 3.f);
  t.plant (0, 1, 0, 2.f); /* 8 px right of the first, same class: IoU 0.33 < 0.45, kept */
  t.plant (2, 2, 1, 3.f);
  t.plant (3, 3, 1, 2.5f); /* overlaps (2,2) less than needed: kept */
  t.set (4, 2, 3, 2.f);    /* (2,3): class 1 as well, IoU 0.33 with (2,2) */
  t.set (6, 2, 3, 4.f);
  t.run ();
  ASSERT_EQ (t.result->candidates, 5);
  EXPECT_EQ (t.result->count, 5);
  /* YOLOv5 box of (0,0) with raw 0: centre (0 + 2 * 0.5 - 0.5) * 8 = 4, width (2 * 0.5)^2 * 16 = 16. */
  const detect::Detection &d = t.result->detections[0];
  EXPECT_FLOAT_EQ (d.x0, 0.f); /* -4 clipped to the crop */
  EXPECT_FLOAT_EQ (d.x1, 12.f);

  Tiny s (Keys{{"dlainfer-nms-iou-threshold", "0.3"}});
  s.plant (0, 0, 0, 3.f);
  s.plant (0, 1, 0, 2.f); /* IoU 0.33 > 0.3, same class: suppressed */
  s.plant (1, 0, 1, 2.f); /* IoU 0.33, another class: kept */
  s.run ();
  EXPECT_EQ (s.result->count, 2);
  EXPECT_EQ (s.result->detections[1].cls, 1);
}

TEST (DetectReference, BoundsAndDropped)
{
  Tiny t (Keys{{"dlainfer-max-candidates", "3"}, {"dlainfer-max-detections", "2"}});
  for (int x = 0; x < 4; ++x)
    t.plant (3, x, 0, 1.f + float (x));
  t.run ();
  EXPECT_EQ (t.result->candidates, 4);
  EXPECT_EQ (t.result->dropped, 1);
  ASSERT_EQ (t.result->count, 2);
  /* Kept: the first three in index order (x = 0, 1, 2); best of them first. */
  EXPECT_GT (t.result->detections[0].score, t.result->detections[1].score);
  EXPECT_NEAR (t.result->detections[0].score, 1.f / (1.f + std::exp (-3.f)) / (1.f + std::exp (-4.f)), 1e-3);
}

}  // namespace
