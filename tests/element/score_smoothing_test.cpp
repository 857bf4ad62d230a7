/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-track smoothing of class scores (gst/objects/score_smoothing.h) against the closed-form
 * EWMA, its resets (forget, unseen frames, the cap, a new class count, the flow's reset), and
 * through the flow's reader (ObjectFlow::read_result): tracked objects only, label flips after the
 * least n with a^n < 1/2, off at 0. CPU only. */
#include "gst/objects/score_smoothing.h"

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "common/numeric.h"
#include "common/tensor_layout.h"
#include "gst/objects/frame_objects.h"
#include "objects_test_support.h"

namespace {

using namespace dlainfer::objects;
using objects_test::BufferPtr;

/* s_1 = x_1, s_n = a^(n-1) x_1 + (1 - a) sum_{k=2..n} a^(n-k) x_k, per class. */
std::vector<double> closed_form (const std::vector<std::vector<float>> &x, double a)
{
  const size_t n = x.size ();
  std::vector<double> s (x[0].size (), 0.0);
  for (size_t c = 0; c < s.size (); ++c) {
    s[c] = std::pow (a, double (n - 1)) * x[0][c];
    for (size_t k = 1; k < n; ++k)
      s[c] += (1 - a) * std::pow (a, double (n - 1 - k)) * x[k][c];
  }
  return s;
}

TEST (ScoreSmoother, MatchesClosedFormEwma)
{
  for (float a : {0.f, 0.3f, 0.8f, 0.95f}) {
    SCOPED_TRACE (a);
    ScoreSmoother sm (16);
    std::vector<std::vector<float>> seen;
    for (int t = 0; t < 40; ++t) {
      std::vector<float> x = {float (std::sin (t * 0.7) * 0.5 + 0.5), float ((t * 37 % 11) / 11.0),
                              t % 5 == 0 ? 1.f : 0.f};
      seen.push_back (x);
      sm.apply (9, a, uint64_t (t), &x);
      const std::vector<double> want = closed_form (seen, a);
      for (size_t c = 0; c < x.size (); ++c)
        EXPECT_NEAR (x[c], want[c], 1e-5) << "t " << t << " class " << c;
    }
  }
}

/* One-hot A for a while, then one-hot B: B leads from the least n with a^n < 1/2. */
TEST (ScoreSmoother, LabelFlipsAfterTheDocumentedCount)
{
  const struct {
    float a;
    int n;
  } cases[] = {{0.5f, 2}, {0.7f, 2}, {0.8f, 4}, {0.9f, 7}, {0.95f, 14}};
  for (const auto &c : cases) {
    SCOPED_TRACE (c.a);
    ScoreSmoother sm (4);
    for (int t = 0; t < 200; ++t) {
      std::vector<float> x = {1.f, 0.f};
      sm.apply (1, c.a, uint64_t (t), &x);
    }
    int flipped = 0;
    for (int k = 1; k <= 40 && !flipped; ++k) {
      std::vector<float> x = {0.f, 1.f};
      sm.apply (1, c.a, uint64_t (200 + k), &x);
      if (x[1] > x[0])
        flipped = k;
    }
    EXPECT_EQ (flipped, c.n);
  }
}

TEST (ScoreSmoother, TracksAreIndependentAndForgetResets)
{
  ScoreSmoother sm (4);
  std::vector<float> a = {1.f, 0.f}, b = {0.f, 1.f};
  sm.apply (1, 0.5f, 0, &a);
  sm.apply (2, 0.5f, 0, &b);
  std::vector<float> x = {0.f, 1.f};
  sm.apply (1, 0.5f, 1, &x);
  EXPECT_FLOAT_EQ (x[0], 0.5f);
  x = {1.f, 0.f};
  sm.apply (2, 0.5f, 1, &x);
  EXPECT_FLOAT_EQ (x[1], 0.5f);
  sm.forget (1);
  EXPECT_EQ (sm.size (), 1u);
  x = {0.f, 1.f};
  sm.apply (1, 0.5f, 2, &x);
  EXPECT_FLOAT_EQ (x[0], 0.f) << "a forgotten track starts from its new scores";
}

/* Unseen for longer than the result cache keeps an object: the state starts again. */
TEST (ScoreSmoother, UnseenTrackStartsAgain)
{
  ScoreSmoother sm (4);
  std::vector<float> x = {1.f, 0.f};
  sm.apply (1, 0.9f, 0, &x);
  x = {0.f, 1.f};
  sm.apply (1, 0.9f, ResultCache::kUnseenFrames, &x);
  EXPECT_NEAR (x[0], 0.9f, 1e-6) << "within the limit: blended";
  x = {0.f, 1.f};
  sm.apply (1, 0.9f, 2 * ResultCache::kUnseenFrames + 1, &x);
  EXPECT_FLOAT_EQ (x[1], 1.f) << "past it: fresh";
  EXPECT_EQ (sm.evicted (), 1u);
}

/* The cap: the least recently updated track goes; the table never grows. */
TEST (ScoreSmoother, CapEvictsLeastRecent)
{
  ScoreSmoother sm (3);
  for (guint64 id = 1; id <= 3; ++id) {
    std::vector<float> x = {1.f, 0.f};
    sm.apply (id, 0.5f, id, &x);
  }
  std::vector<float> x = {1.f, 0.f};
  sm.apply (4, 0.5f, 10, &x);
  EXPECT_EQ (sm.size (), 3u);
  EXPECT_EQ (sm.evicted (), 1u);
  x = {0.f, 1.f};
  sm.apply (1, 0.5f, 11, &x); /* id 1 (updated at 1) went */
  EXPECT_FLOAT_EQ (x[0], 0.f);
  for (guint64 id = 100; id < 10100; ++id) {
    std::vector<float> y = {1.f, 0.f};
    sm.apply (id, 0.5f, id, &y);
  }
  EXPECT_EQ (sm.size (), 3u);
  EXPECT_EQ (sm.capacity (), 3u);
}

TEST (ScoreSmoother, NewClassCountClears)
{
  ScoreSmoother sm (4);
  std::vector<float> x = {1.f, 0.f};
  sm.apply (1, 0.5f, 0, &x);
  std::vector<float> y = {0.f, 1.f, 0.f};
  sm.apply (1, 0.5f, 1, &y);
  EXPECT_FLOAT_EQ (y[1], 1.f);
  EXPECT_EQ (sm.size (), 1u);
}

/* A one-hot FP16 output of `classes` classes, batch 1, class `hot` at 1. */
struct OneHot {
  ::tensor::View v;
  std::vector<uint8_t> data;
  OneHot (int64_t classes, int64_t hot)
  {
    EXPECT_TRUE (
        ::tensor::make_view (::tensor::Layout::kChw16, ::tensor::ElemType::kFp16, 1, classes, 1, 1, &v));
    data.assign (size_t (v.size), 0);
    const uint16_t h = ::tensor::float_to_half (1.f);
    std::memcpy (data.data () + v.offset (0, hot, 0, 0), &h, 2);
  }
};

/* A flow at `smoothing` and what its reader needs: two labels, no activation, top-2. */
struct FlowReader {
  ObjectFlow flow;
  FlowParams params;
  postprocess::Params post;
  const std::vector<GQuark> labels = {g_quark_from_string ("happy"), g_quark_from_string ("sad")};
  std::vector<float> scores;
  std::vector<postprocess::Result> results;

  explicit FlowReader (float smoothing)
  {
    params.smoothing = smoothing;
    post.activation = postprocess::Activation::kNone;
    post.top_k = 2;
  }
  /* Object `o` of `fo` classified as class `hot` (one-hot scores). */
  void read (const FrameObjects &fo, int64_t hot, FrameObject *o)
  {
    const OneHot out (2, hot);
    flow.read_result (out.v, out.data.data (), 0, post, labels, fo, &scores, &results, o);
  }
};

/* A face tracked as gvatrack tracks it (object_id 7) and, with `untracked`, one without an id. */
void add_faces (GstBuffer *b, bool untracked)
{
  GstVideoRegionOfInterestMeta *roi = gst_buffer_add_video_region_of_interest_meta (b, "face", 0, 0, 64, 64);
  gst_video_region_of_interest_meta_add_param (roi,
                                               gst_structure_new ("object_id", "id", G_TYPE_INT, 7, nullptr));
  if (untracked)
    gst_buffer_add_video_region_of_interest_meta (b, "face", 100, 0, 64, 64);
}

/* A tracked ROI (gvatrack object_id 7) and an untracked one through the flow at smoothing 0.75:
 * the tracked one's label flips at the 3rd disagreeing classification (0.75^3 < 1/2 <= 0.75^2),
 * with the closed form's confidence; the untracked one follows its scores; reset clears. */
TEST (ScoreSmoother, ThroughTheFlowTrackedOnly)
{
  FlowReader r (0.75f);
  const int hot[] = {0, 1, 1, 1};
  const int want_best[] = {0, 0, 0, 1};
  const float want_conf[] = {1.f, 0.75f, 0.5625f, 1.f - 0.421875f};
  for (int f = 0; f < 4; ++f) {
    BufferPtr buf;
    add_faces (buf.b, true);
    FrameObjects fo;
    r.flow.prepare (buf.b, 320, 240, r.params, &fo);
    ASSERT_EQ (fo.objects.size (), 2u);
    for (FrameObject &o : fo.objects)
      r.read (fo, hot[f], &o);
    EXPECT_EQ (fo.objects[0].result.best ().class_id, want_best[f]) << "frame " << f;
    EXPECT_NEAR (fo.objects[0].result.best ().confidence, want_conf[f], 1e-6) << "frame " << f;
    EXPECT_EQ (fo.objects[1].result.best ().class_id, hot[f]) << "untracked: frame " << f;
    EXPECT_FLOAT_EQ (fo.objects[1].result.best ().confidence, 1.f);
  }
  EXPECT_EQ (r.flow.smoothed_tracks (), 1u);
  r.flow.reset ();
  EXPECT_EQ (r.flow.smoothed_tracks (), 0u);
}

#ifdef TEST_ANALYTICS

/* A tracker's lost TrackingMtd (dlatrack's ended track, related to no detection) drops the
 * track's smoothing state. */
TEST (ScoreSmoother, EndedTrackForgotten)
{
  FlowReader r (0.5f);
  {
    BufferPtr buf;
    GstAnalyticsRelationMeta *rmeta = gst_buffer_add_analytics_relation_meta (buf.b);
    GstAnalyticsODMtd od;
    ASSERT_TRUE (gst_analytics_relation_meta_add_od_mtd (rmeta, g_quark_from_string ("face"), 0, 0, 64, 64,
                                                         0.9f, &od));
    GstAnalyticsTrackingMtd trk;
    ASSERT_TRUE (gst_analytics_relation_meta_add_tracking_mtd (rmeta, 7, 0, &trk));
    ASSERT_TRUE (
        gst_analytics_relation_meta_set_relation (rmeta, GST_ANALYTICS_REL_TYPE_RELATE_TO, od.id, trk.id));
    FrameObjects fo;
    r.flow.prepare (buf.b, 320, 240, r.params, &fo);
    ASSERT_EQ (fo.objects.size (), 1u);
    ASSERT_TRUE (fo.objects[0].source.tracked);
    r.read (fo, 0, &fo.objects[0]);
    EXPECT_EQ (r.flow.smoothed_tracks (), 1u);
  }
  BufferPtr buf;
  GstAnalyticsRelationMeta *rmeta = gst_buffer_add_analytics_relation_meta (buf.b);
  GstAnalyticsTrackingMtd trk;
  ASSERT_TRUE (gst_analytics_relation_meta_add_tracking_mtd (rmeta, 7, 0, &trk));
  ASSERT_TRUE (gst_analytics_tracking_mtd_set_lost (&trk));
  GstAnalyticsODMtd od;
  ASSERT_TRUE (
      gst_analytics_relation_meta_add_od_mtd (rmeta, g_quark_from_string ("car"), 100, 0, 64, 64, 0.9f, &od));
  FrameObjects fo;
  r.flow.prepare (buf.b, 320, 240, r.params, &fo);
  EXPECT_EQ (r.flow.smoothed_tracks (), 0u);
}

#endif

TEST (ScoreSmoother, OffAtZero)
{
  FlowReader r (0.f);
  for (int f = 0; f < 2; ++f) {
    BufferPtr buf;
    add_faces (buf.b, false);
    FrameObjects fo;
    r.flow.prepare (buf.b, 320, 240, r.params, &fo);
    r.read (fo, f, &fo.objects[0]);
    EXPECT_EQ (fo.objects[0].result.best ().class_id, f);
  }
  EXPECT_EQ (r.flow.smoothed_tracks (), 0u);
}

}  // namespace
