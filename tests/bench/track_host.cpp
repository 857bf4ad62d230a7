/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark: dlatrack's host CPU per detection at 32 detections a frame (target: <= 2 us), objects
 * moving 6 px a frame: the tracker alone (gst/track/tracker.h), then the element's whole step on a
 * buffer (objects read from the metas, tracked, ids written back) with ROI metas and, on >= 1.24,
 * with ODMtds (each gets a TrackingMtd) — less the cost of making the buffer. Prints the median of
 * 9 rounds in thread CPU microseconds per detection. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "gst/track/track_meta.h"
#include "gst/track/tracker.h"
#include "thread_cpu.h"

#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 24, 0)
#define BENCH_ANALYTICS 1
#include <gst/analytics/analytics.h>
#endif

namespace {

using namespace dlainfer::track;

constexpr int kDetections = 32, kFrames = 2000;

/* Median over 9 rounds of kFrames calls of `frame(i)`: us per detection. */
double us_per_detection (const std::function<void (int)> &frame)
{
  std::vector<double> rounds;
  for (int r = 0; r < 9; ++r) {
    const double t0 = bench::thread_cpu_seconds ();
    for (int i = 0; i < kFrames; ++i)
      frame (r * kFrames + i);
    rounds.push_back (1e6 * (bench::thread_cpu_seconds () - t0) / kFrames / kDetections);
  }
  std::sort (rounds.begin (), rounds.end ());
  return rounds[rounds.size () / 2];
}

/* Detection d on frame i: an 8 x 4 grid of 40 px boxes, each moving 6 px a frame, back and forth
 * over 120 px (the prediction overshoots a turn by 12 px: still matched). */
TrackBox box_of (int d, int i)
{
  const int p = (i * 6) % 240, x = p > 120 ? 240 - p : p;
  return {double ((d % 8) * 200 + x), double ((d / 8) * 200), 40, 40};
}

GstBuffer *frame_with (int i, bool od)
{
  GstBuffer *b = gst_buffer_new ();
#ifdef BENCH_ANALYTICS
  GstAnalyticsRelationMeta *rmeta = od ? gst_buffer_add_analytics_relation_meta (b) : nullptr;
#endif
  for (int d = 0; d < kDetections; ++d) {
    const TrackBox t = box_of (d, i);
    if (od) {
#ifdef BENCH_ANALYTICS
      GstAnalyticsODMtd m;
      gst_analytics_relation_meta_add_od_mtd (rmeta, g_quark_from_static_string ("face"), gint (t.x),
                                              gint (t.y), gint (t.w), gint (t.h), 0.9f, &m);
#endif
    } else {
      gst_buffer_add_video_region_of_interest_meta (b, "face", guint (t.x), guint (t.y), guint (t.w),
                                                    guint (t.h));
    }
  }
  return b;
}

TEST (TrackHost, PerDetection)
{
  Tracker tracker;
  std::vector<Detection> d (kDetections);
  std::vector<Assigned> out;
  std::vector<uint64_t> ended;
  const double alone = us_per_detection ([&] (int i) {
    for (int k = 0; k < kDetections; ++k)
      d[size_t (k)] = {box_of (k, i), g_quark_from_static_string ("face")};
    tracker.update (d, uint64_t (i), &out, &ended);
  });
  std::printf ("track-host: tracker alone     %.3f us per detection\n", alone);
  EXPECT_EQ (tracker.counts ().confirmed, uint64_t (kDetections)) << "every object kept one track";

  for (bool od : {false, true}) {
#ifndef BENCH_ANALYTICS
    if (od)
      continue;
#endif
    Tracker t;
    dlainfer::objects::CollectedObjects objects;
    std::vector<Detection> dets;
    const double make = us_per_detection ([&] (int i) { gst_buffer_unref (frame_with (i, od)); });
    const double whole = us_per_detection ([&] (int i) {
      GstBuffer *b = frame_with (i, od);
      read_detections (b, &objects, &dets);
      t.update (dets, uint64_t (i), &out, &ended);
      write_tracks (b, objects, out, ended, GstClockTime (i));
      gst_buffer_unref (b);
    });
    std::printf ("track-host: element step, %s %.3f us per detection (buffer making %.3f taken off)\n",
                 od ? "ODMtds  " : "ROI metas", whole - make, make);
    EXPECT_EQ (t.counts ().confirmed, uint64_t (kDetections));
  }
}

}  // namespace
