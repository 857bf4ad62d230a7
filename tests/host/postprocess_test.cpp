/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host post-processing: every output layout (padded and not, FP16 and INT8) de-padded through the
 * layout header, activations, and top-k order. Pad bytes are filled with poison so reading one
 * shows up as a wrong score. */
#include "host/postprocess.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <ostream>
#include <vector>

#include "common/numeric.h"
#include "common/tensor_layout.h"
#include "host/depad.h"

namespace {

using tensor::ElemType;
using tensor::Layout;

struct Case {
  Layout layout;
  ElemType type;
  int64_t classes;
};

/* Named, so GoogleTest does not print the struct's padding bytes (uninitialised under valgrind). */
void PrintTo (const Case &c, std::ostream *os)
{
  *os << tensor::layout_name (c.layout) << " " << tensor::elem_type_name (c.type) << " C=" << c.classes;
}

/* A host tensor holding score(c) for class c, every other byte poisoned. */
std::vector<uint8_t> make_output (const tensor::View &v, float scale, float (*score) (int64_t))
{
  std::vector<uint8_t> data (size_t (v.size), 0x7c); /* 0x7c7c: a large FP16 number; 124 as INT8 */
  for (int64_t c = 0; c < v.c; ++c) {
    uint8_t *p = data.data () + v.offset (0, c, 0, 0);
    if (v.type == ElemType::kFp16) {
      const uint16_t h = tensor::float_to_half (score (c));
      std::memcpy (p, &h, 2);
    } else {
      *p = uint8_t (tensor::quantize_int8 (score (c), scale));
    }
  }
  return data;
}

float ramp (int64_t c)
{
  return float (c % 13) * 0.25f - 1.5f;
}

class EveryLayout : public testing::TestWithParam<Case> {};

/* Every class reads back its own value (to FP16/INT8 precision), never a pad byte. */
TEST_P (EveryLayout, ReadsEachClassAndNoPadding)
{
  const Case k = GetParam ();
  tensor::View v;
  ASSERT_TRUE (tensor::make_view (k.layout, k.type, 1, k.classes, 1, 1, &v));
  std::string why;
  EXPECT_TRUE (postprocess::is_classification_vector (v, &why)) << why;
  const float scale = 1.f / 8.f;
  const std::vector<uint8_t> data = make_output (v, scale, ramp);
  std::vector<float> scores;
  postprocess::read_scores (v, data.data (), scale, &scores);
  ASSERT_EQ (scores.size (), size_t (k.classes));
  for (int64_t c = 0; c < k.classes; ++c)
    EXPECT_NEAR (scores[size_t (c)], ramp (c), k.type == ElemType::kFp16 ? 1e-3 : scale / 2 + 1e-6)
        << "class " << c;
}

INSTANTIATE_TEST_SUITE_P (
    Layouts, EveryLayout,
    testing::Values (Case{Layout::kChw16, ElemType::kFp16, 8},     /* padded to 16 lanes */
                     Case{Layout::kChw16, ElemType::kFp16, 16},    /* exactly one vector: no padding */
                     Case{Layout::kChw16, ElemType::kFp16, 1000},  /* 63 groups, 8 pad lanes */
                     Case{Layout::kChw32, ElemType::kInt8, 8},     /* padded to 32 lanes */
                     Case{Layout::kChw32, ElemType::kInt8, 64},    /* no padding */
                     Case{Layout::kDlaLinear, ElemType::kFp16, 8}, /* one value per 64-byte row */
                     Case{Layout::kDlaLinear, ElemType::kFp16, 1000},
                     Case{Layout::kDlaLinear, ElemType::kInt8, 8},
                     Case{Layout::kDlaLinear, ElemType::kInt8, 1000}),
    [] (const testing::TestParamInfo<Case> &info) {
      return std::string (tensor::layout_name (info.param.layout)) + "_" +
             tensor::elem_type_name (info.param.type) + "_c" + std::to_string (info.param.classes);
    });

/* The padded dla_linear vector holds one value per 64-byte row: class c at byte 64 * c. */
TEST (Postprocess, DlaLinearVectorHasOneValuePerRow)
{
  tensor::View v;
  ASSERT_TRUE (tensor::make_view (Layout::kDlaLinear, ElemType::kFp16, 1, 4, 1, 1, &v));
  EXPECT_EQ (v.size, 4 * 64);
  std::vector<uint8_t> data (size_t (v.size), 0);
  for (int c = 0; c < 4; ++c) {
    const uint16_t h = tensor::float_to_half (float (c + 1));
    std::memcpy (&data[size_t (c) * 64], &h, 2);
  }
  std::vector<float> scores;
  postprocess::read_scores (v, data.data (), 1.f, &scores);
  EXPECT_EQ (scores, (std::vector<float>{1.f, 2.f, 3.f, 4.f}));
}

/* A feature map is not a classification vector, and the reason names its shape. */
TEST (Postprocess, RefusesFeatureMaps)
{
  tensor::View v;
  ASSERT_TRUE (tensor::make_view (Layout::kChw16, ElemType::kFp16, 1, 8, 7, 7, &v));
  std::string why;
  EXPECT_FALSE (postprocess::is_classification_vector (v, &why));
  EXPECT_NE (why.find ("1x8x7x7"), std::string::npos) << why;
}

/* Softmax sums to 1, keeps the order, and stays finite for large logits. */
TEST (Postprocess, SoftmaxIsStable)
{
  std::vector<float> s{1000.f, 999.f, -1000.f, 0.f};
  postprocess::activate (postprocess::Activation::kSoftmax, &s);
  EXPECT_NEAR (std::accumulate (s.begin (), s.end (), 0.0), 1.0, 1e-6);
  EXPECT_NEAR (s[0], 1.f / (1.f + std::exp (-1.f)), 1e-6);
  EXPECT_GT (s[0], s[1]);
  EXPECT_EQ (s[2], 0.f);
  for (float v : s)
    EXPECT_TRUE (std::isfinite (v));
}

TEST (Postprocess, SigmoidAndNone)
{
  std::vector<float> s{0.f, 2.f};
  postprocess::activate (postprocess::Activation::kSigmoid, &s);
  EXPECT_FLOAT_EQ (s[0], 0.5f);
  EXPECT_NEAR (s[1], 1.f / (1.f + std::exp (-2.f)), 1e-6);
  std::vector<float> n{-3.f, 7.f};
  postprocess::activate (postprocess::Activation::kNone, &n);
  EXPECT_EQ (n, (std::vector<float>{-3.f, 7.f}));
}

/* Top-k: best first, ties by lower class id, threshold applied, k larger than C clamps. */
/* A NaN or infinite score (a broken model, a wrong output-scale) does not wipe out the frame's
 * results: NaN gets probability 0, +inf scores share all of it. */
TEST (Postprocess, NonFiniteScores)
{
  std::vector<float> s = {1.f, NAN, 3.f, 2.f};
  postprocess::activate (postprocess::Activation::kSoftmax, &s);
  EXPECT_EQ (s[1], 0.f);
  EXPECT_NEAR (s[0] + s[2] + s[3], 1.0, 1e-6);
  EXPECT_GT (s[2], s[3]);
  std::vector<float> inf = {1.f, INFINITY, 0.f, INFINITY};
  postprocess::activate (postprocess::Activation::kSoftmax, &inf);
  EXPECT_EQ (inf, (std::vector<float>{0.f, 0.5f, 0.f, 0.5f}));
  std::vector<float> none = {NAN, -INFINITY};
  postprocess::activate (postprocess::Activation::kSoftmax, &none);
  EXPECT_EQ (none, (std::vector<float>{0.f, 0.f}));
  std::vector<float> sig = {NAN, 0.f};
  postprocess::activate (postprocess::Activation::kSigmoid, &sig);
  EXPECT_EQ (sig, (std::vector<float>{0.f, 0.5f}));
}

TEST (Postprocess, TopKSortedWithTiesAndThreshold)
{
  const std::vector<float> s{0.1f, 0.4f, 0.05f, 0.4f, 0.3f, 0.2f, 0.f};
  std::vector<postprocess::Result> r;
  postprocess::top_k (s, 5, 0.f, &r);
  ASSERT_EQ (r.size (), 5u);
  const int ids[] = {1, 3, 4, 5, 0};
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ (r[size_t (i)].class_id, ids[i]) << "rank " << i;
  postprocess::top_k (s, 5, 0.25f, &r);
  ASSERT_EQ (r.size (), 3u);
  EXPECT_EQ (r[2].class_id, 4);
  postprocess::top_k (s, 100, 0.f, &r);
  EXPECT_EQ (r.size (), s.size ());
  postprocess::top_k (s, 0, 0.f, &r); /* 0: all */
  EXPECT_EQ (r.size (), s.size ());
}

/* Every k (the one-pass insertion up to 32, the partial sort beyond) and threshold gives what a full
 * sort by confidence, ties by class id, gives: scores with many ties, NaN, +-inf, 1000 classes. */
TEST (Postprocess, TopKEqualsAFullSort)
{
  std::vector<float> s (1000);
  uint32_t x = 12345;
  for (float &v : s) {
    x = x * 1664525u + 1013904223u;
    v = float ((x >> 8) % 64) / 64.f; /* 64 levels: many ties */
  }
  s[7] = NAN;
  s[99] = INFINITY;
  s[500] = -INFINITY;
  std::vector<postprocess::Result> all;
  for (size_t i = 0; i < s.size (); ++i)
    if (!std::isnan (s[i])) /* never at or above a threshold */
      all.push_back ({int (i), s[i]});
  std::stable_sort (all.begin (), all.end (),
                    [] (const postprocess::Result &a, const postprocess::Result &b) {
                      return a.confidence > b.confidence;
                    });
  std::vector<postprocess::Result> r;
  for (const float threshold : {-INFINITY, 0.f, 0.5f, 0.99f, 2.f})
    for (const int k : {1, 2, 5, 8, 31, 32, 33, 100, 0}) {
      std::vector<postprocess::Result> want;
      for (const postprocess::Result &a : all)
        if (a.confidence >= threshold && (k <= 0 || want.size () < size_t (k)))
          want.push_back (a);
      postprocess::top_k (s, k, threshold, &r);
      ASSERT_EQ (r.size (), want.size ()) << "k " << k << " threshold " << threshold;
      for (size_t i = 0; i < r.size (); ++i) {
        EXPECT_EQ (r[i].class_id, want[i].class_id)
            << "k " << k << " threshold " << threshold << " rank " << i;
        EXPECT_EQ (r[i].confidence, want[i].confidence);
      }
    }
}

/* The whole chain on an INT8 chw32 output: dequantised with the scale, softmax, top-5. */
TEST (Postprocess, RunInt8EndToEnd)
{
  tensor::View v;
  ASSERT_TRUE (tensor::make_view (Layout::kChw32, ElemType::kInt8, 1, 8, 1, 1, &v));
  const float scale = 1.f / 8.f;
  const std::vector<uint8_t> data = make_output (v, scale, [] (int64_t c) { return c == 5 ? 4.f : -4.f; });
  postprocess::Params p;
  p.int8_scale = scale;
  std::vector<float> scores;
  std::vector<postprocess::Result> results;
  postprocess::run (v, data.data (), p, &scores, &results);
  ASSERT_EQ (results.size (), 5u);
  EXPECT_EQ (results[0].class_id, 5);
  EXPECT_NEAR (results[0].confidence, std::exp (8.f) / (std::exp (8.f) + 7.f), 1e-5);
}

/* With raw tensors on the GPU, classification reads the de-padded FLOAT32 scores (run_scores): the
 * results equal those from the padded tensor, for FP16 and INT8, every activation. */
TEST (Postprocess, RunScoresFromDepaddedValuesEqualsRun)
{
  for (const auto &lt :
       {std::make_pair (Layout::kChw16, ElemType::kFp16), std::make_pair (Layout::kChw32, ElemType::kInt8)})
    for (const auto act : {postprocess::Activation::kSoftmax, postprocess::Activation::kSigmoid,
                           postprocess::Activation::kNone}) {
      tensor::View v;
      ASSERT_TRUE (tensor::make_view (lt.first, lt.second, 1, 1000, 1, 1, &v));
      const float scale = 1.f / 16.f;
      const std::vector<uint8_t> data =
          make_output (v, scale, [] (int64_t c) { return float ((c * 37) % 101) / 16.f - 3.f; });
      postprocess::Params p;
      p.activation = act;
      p.int8_scale = scale;
      p.top_k = 7;
      std::vector<float> scores, dense (1000);
      std::vector<postprocess::Result> want, got;
      postprocess::run (v, data.data (), p, &scores, &want);
      depad::depad (v, data.data (), scale, depad::Type::kFloat32, dense.data ());
      postprocess::run_scores (dense.data (), 1000, p, &scores, &got);
      ASSERT_EQ (got.size (), want.size ());
      for (size_t i = 0; i < want.size (); ++i) {
        EXPECT_EQ (got[i].class_id, want[i].class_id) << i;
        EXPECT_EQ (got[i].confidence, want[i].confidence) << i;
      }
    }
}

}  // namespace
