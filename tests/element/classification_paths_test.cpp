/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The two ways a frame's classification is read (gst/outputs/classification.h) give the same
 * results: the host path post-processes the padded host copy of the class vector; with tensor-meta
 * the scores come de-padded (and dequantised: value = q * output-scale) by the tensors' plan
 * (gst/outputs/tensor_plan.h), here by the CPU de-pad that the GPU kernel mirrors. For every output
 * layout and type, output-scale and activation, each result's class and confidence must be equal:
 * a scale applied twice keeps the argmax, so only the confidences can tell. CPU only. */
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/numeric.h"
#include "gst/outputs/classification.h"
#include "gst/outputs/tensor_plan.h"
#include "gst/settings.h"
#include "host/depad.h"

/* classification.cpp logs to the element's category, which the plugin defines. */
GST_DEBUG_CATEGORY (gst_dla_infer_debug);

namespace {

using tensor::ElemType;
using tensor::Layout;

constexpr int kClasses = 37; /* more than a pixel vector's lanes: pad lanes in every layout */

/* A padded class vector of random values (pad bytes random too: neither path may read them). */
std::vector<uint8_t> random_output (const tensor::View &v, std::mt19937 &rng)
{
  std::vector<uint8_t> data (size_t (v.size));
  std::uniform_int_distribution<int> byte (0, 255), q (-128, 127);
  std::uniform_real_distribution<float> f (-6.f, 6.f);
  for (uint8_t &b : data)
    b = uint8_t (byte (rng));
  for (int64_t c = 0; c < v.c; ++c) {
    uint8_t *p = data.data () + v.offset (0, c, 0, 0);
    if (v.type == ElemType::kInt8) {
      *p = uint8_t (int8_t (q (rng)));
    } else {
      const uint16_t h = tensor::float_to_half (f (rng));
      std::memcpy (p, &h, sizeof h);
    }
  }
  return data;
}

struct Read {
  std::vector<int> ids;
  std::vector<float> confidences;
};

Read read_back (const dlainfer::ClassificationOutput &out, GstBuffer *buf)
{
  Read r;
  GstDlaClassificationMeta *m = gst_buffer_get_dla_classification_meta (buf);
  EXPECT_NE (m, nullptr);
  for (guint i = 0; m && i < m->n_results; ++i) {
    r.ids.push_back (m->results[i].class_id);
    r.confidences.push_back (m->results[i].confidence);
  }
  EXPECT_EQ (r.ids.empty () ? 0.f : r.confidences[0], out.best_confidence ());
  return r;
}

/* Host path and tensor-meta path for one output and settings: the same classes and confidences. */
void expect_paths_agree (Layout l, ElemType t, float output_scale, postprocess::Activation a,
                         std::mt19937 &rng)
{
  dla::TensorInfo info;
  info.name = "scores";
  ASSERT_TRUE (tensor::make_view (l, t, 1, kClasses, 1, 1, &info.view));
  dlainfer::Settings s;
  s.output_scale = output_scale;
  s.activation = a;
  s.top_k = 0; /* every class: each confidence compared */
  s.threshold = -1e9f;
  const postprocess::Params params = dlainfer::postprocess_params (s);
  const std::vector<dlainfer::TensorPlan> plans = dlainfer::plan_tensors ({info}, s, kClasses);
  ASSERT_EQ (plans.size (), 1u);
  ASSERT_EQ (plans[0].type, depad::Type::kFloat32) << "a class vector is published as FLOAT32";
  const std::vector<uint8_t> data = random_output (info.view, rng);
  std::vector<float> dense (static_cast<size_t> (kClasses));
  depad::depad (plans[0].view, data.data (), plans[0].int8_scale, plans[0].type, dense.data ());
  if (t == ElemType::kInt8) { /* the de-padded values are the dequantised ones, q * output-scale */
    for (int c = 0; c < kClasses; ++c)
      ASSERT_EQ (dense[size_t (c)],
                 float (int8_t (data[size_t (info.view.offset (0, c, 0, 0))])) * output_scale)
          << "class " << c;
  }

  std::vector<std::string> labels;
  for (int c = 0; c < kClasses; ++c)
    labels.push_back ("class" + std::to_string (c));
  Read got[2];
  for (int path = 0; path < 2; ++path) {
    dlainfer::ClassificationOutput out;
    out.prepare (labels, kClasses, g_quark_from_string ("dlainfer0"), g_quark_from_string ("swdla"));
    /* path 0: the host copy; path 1: the de-padded scores (tensor-meta). */
    out.classify (info.view, data.data (), path == 1 ? dense.data () : nullptr, params, 0);
    GstBuffer *buf = gst_buffer_new ();
    out.attach (nullptr, buf, false, 0);
    got[path] = read_back (out, buf);
    gst_buffer_unref (buf);
  }
  ASSERT_EQ (got[0].ids.size (), size_t (kClasses));
  EXPECT_EQ (got[0].ids, got[1].ids);
  for (size_t i = 0; i < got[0].confidences.size () && i < got[1].confidences.size (); ++i)
    EXPECT_EQ (got[0].confidences[i], got[1].confidences[i])
        << "result " << i << " (class " << got[0].ids[i] << "): the tensor-meta path's confidence differs";
}

const char *activation_name (postprocess::Activation a)
{
  return a == postprocess::Activation::kSoftmax   ? "softmax"
         : a == postprocess::Activation::kSigmoid ? "sigmoid"
                                                  : "none";
}

TEST (ClassificationPaths, TensorMetaScoresEqualTheHostPath)
{
  std::mt19937 rng (46);
  const struct {
    Layout l;
    ElemType t;
  } outputs[] = {{Layout::kChw16, ElemType::kFp16},
                 {Layout::kDlaLinear, ElemType::kFp16},
                 {Layout::kChw32, ElemType::kInt8},
                 {Layout::kDlaLinear, ElemType::kInt8}};
  /* 0: not set (FP16 outputs need none); the rest as INT8 models' scales come. */
  const float scales[] = {0.f, 1.f, 0.125f, 1.f / 127, 0.5f, 3.f};
  for (const auto &o : outputs)
    for (float scale : scales) {
      if (o.t == ElemType::kInt8 && scale == 0.f)
        continue; /* refused at start (output-scale is not set) */
      for (auto a : {postprocess::Activation::kSoftmax, postprocess::Activation::kSigmoid,
                     postprocess::Activation::kNone}) {
        SCOPED_TRACE (std::string (tensor::layout_name (o.l)) + " " + tensor::elem_type_name (o.t) +
                      " output-scale=" + std::to_string (scale) + " activation=" + activation_name (a));
        expect_paths_agree (o.l, o.t, scale, a, rng);
      }
    }
}

}  // namespace
