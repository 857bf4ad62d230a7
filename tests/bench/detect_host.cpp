/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark: dladetect's host CPU per detection in the src task (the detection target allows 0.3 us
 * per detection): DetectionOutput::attach (an ODMtd on >= 1.24, a ROI meta with DL Streamer's
 * "detection" parameter) on a fresh buffer freed after it, and the "dladetect-result" message
 * built and freed, at 16 and 100 detections a frame against none. CPU only; the GPU host's
 * `dladetect` benchmark measures the whole element. Prints the median of 9 rounds, thread CPU
 * microseconds per detection.
 * PerDetectionColdCaches: the attach and the free each timed alone with the core's own caches
 * emptied before it (a walk over kEvictBytes, more than a server core's 1-2 MiB L2; the shared L3
 * keeps what it holds), as the element meets them: its src task attaches when it wakes a frame
 * period after its last frame, and the sink frees the buffer a frame later (fakesink keeps the last
 * one). The median frames. */
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "gst/outputs/detection_output.h"
#include "thread_cpu.h"

namespace {

using dlainfer::DetectionOutput;

constexpr int kFrames = 2000;

constexpr size_t kEvictBytes = size_t (8) << 20;
/* Below this an attach did nothing: no processor makes a ROI meta, its seven-field structure and an
 * ODMtd in 50 ns (0.24-0.35 us here). */
constexpr double kNothingUs = 0.05;
constexpr int kColdFrames = 3000;

double us_per_frame (const std::function<void ()> &frame)
{
  return bench::median_us_per_call (kFrames, frame);
}

/* n boxes of 80 classes over a 1080p frame, best first. */
std::vector<detect::Detection> detections (int n)
{
  std::vector<detect::Detection> d;
  for (int k = 0; k < n; ++k) {
    const float x = float (k % 10) * 190.f, y = float (k / 10 % 10) * 105.f;
    d.push_back ({x, y, x + 150.f, y + 90.f, 0.9f - 0.001f * float (k), k % 80});
  }
  return d;
}

struct Steps {
  double attach, message;
};

/* One frame's metas: attached to a fresh 1080p buffer, freed with it. */
void attach_frame (DetectionOutput &out, const std::vector<detect::Detection> &d)
{
  GstBuffer *buf = gst_buffer_new ();
  out.attach (buf, d.data (), int (d.size ()), 1920, 1080);
  gst_buffer_unref (buf);
}

/* Warm: the median of 9 rounds of kFrames attaches. */
double warm_attach_us (DetectionOutput &out, int n)
{
  const std::vector<detect::Detection> d = detections (n);
  return us_per_frame ([&] { attach_frame (out, d); });
}

Steps steps_us (DetectionOutput &out, int n)
{
  const std::vector<detect::Detection> d = detections (n);
  const dlainfer::FrameTimes times{0, 0, 0, 33 * GST_MSECOND};
  Steps s;
  s.attach = warm_attach_us (out, n);
  s.message = us_per_frame ([&] { gst_structure_free (out.message (d.data (), n, times, 0)); });
  return s;
}

/* A frame's two cold steps: the attach, and the free a frame later (a sink keeps the last buffer). */
struct ColdSteps {
  double attach, free;
};

/* Thread CPU of the steps alone, each after the core's caches were emptied: the median frames. */
ColdSteps cold_steps_us (DetectionOutput &out, int n, std::vector<unsigned char> &evict)
{
  const std::vector<detect::Detection> d = detections (n);
  std::vector<double> attach, free;
  unsigned sum = 0;
  const auto empty_caches = [&] {
    for (size_t i = 0; i < evict.size (); i += 64) /* written: dirty lines leave too */
      sum += ++evict[i];
  };
  for (int f = 0; f < kColdFrames; ++f) {
    GstBuffer *buf = gst_buffer_new ();
    empty_caches ();
    double t0 = bench::thread_cpu_seconds ();
    out.attach (buf, d.data (), int (d.size ()), 1920, 1080);
    attach.push_back (1e6 * (bench::thread_cpu_seconds () - t0));
    empty_caches ();
    t0 = bench::thread_cpu_seconds ();
    gst_buffer_unref (buf);
    free.push_back (1e6 * (bench::thread_cpu_seconds () - t0));
  }
  evict[0] = static_cast<unsigned char> (sum); /* the walk is used: not optimised away */
  return {bench::median (attach), bench::median (free)};
}

/* The output prepared for 80 named classes, as a COCO detector's. */
void prepare_80_classes (DetectionOutput &out)
{
  std::vector<std::string> labels;
  for (int c = 0; c < 80; ++c)
    labels.push_back ("class_" + std::to_string (c));
  out.prepare (labels, 80, g_quark_from_static_string ("swdla"));
}

}  // namespace

TEST (DetectHost, PerDetection)
{
  DetectionOutput out;
  prepare_80_classes (out);
  const Steps none = steps_us (out, 0);
  std::printf ("\ndladetect's host steps per detection (thread CPU, median of 9 rounds of %d frames)\n\n",
               kFrames);
  std::printf (
      "| detections / frame | attach us/frame | message us/frame | attach us/det | message us/det | "
      "both us/det |\n|--:|--:|--:|--:|--:|--:|\n");
  for (int n : {16, 100}) {
    const Steps s = steps_us (out, n);
    const double a = (s.attach - none.attach) / n, m = (s.message - none.message) / n;
    std::printf ("| %d | %.2f | %.2f | %.3f | %.3f | %.3f |\n", n, s.attach, s.message, a, m, a + m);
    EXPECT_GT (a, kNothingUs) << "attaching " << n << " detections cost nothing: the bench measures nothing";
  }
}

TEST (DetectHost, PerDetectionColdCaches)
{
  DetectionOutput out;
  prepare_80_classes (out);
  std::vector<unsigned char> evict (kEvictBytes);
  const double warm_none = warm_attach_us (out, 0);
  const ColdSteps cold_none = cold_steps_us (out, 0, evict);
  std::printf (
      "\ndladetect's metas per detection, warm (attached and freed) and with the caches emptied before "
      "the attach and again before the free (%zu MiB walked; cold: thread CPU of each step alone, median "
      "of %d frames)\n\n",
      kEvictBytes >> 20, kColdFrames);
  std::printf (
      "| detections / frame | warm us/frame | warm us/det | cold attach us/det | cold free us/det | cold "
      "both us/det |\n|--:|--:|--:|--:|--:|--:|\n| 0 | %.2f | - | %.2f | %.2f | - |\n",
      warm_none, cold_none.attach, cold_none.free);
  for (int n : {16, 100}) {
    const double warm = warm_attach_us (out, n);
    const ColdSteps cold = cold_steps_us (out, n, evict);
    const double attach = (cold.attach - cold_none.attach) / n, free = (cold.free - cold_none.free) / n;
    std::printf ("| %d | %.2f | %.3f | %.3f | %.3f | %.3f |\n", n, warm, (warm - warm_none) / n, attach, free,
                 attach + free);
    EXPECT_GT (attach, kNothingUs) << "attaching " << n
                                   << " detections cost nothing: the bench measures nothing";
  }
}
