/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark: dladetect's host CPU per detection in the src task (the detection target allows 0.3 us
 * per detection): DetectionOutput::attach (an ODMtd on >= 1.24, a ROI meta with DL Streamer's
 * "detection" parameter) on a fresh buffer freed after it, and the "dladetect-result" message
 * built and freed, at 16 and 100 detections a frame against none. CPU only; the GPU host's
 * `dladetect` benchmark measures the whole element. Prints the median of 9 rounds, thread CPU
 * microseconds per detection. */
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

Steps steps_us (DetectionOutput &out, int n)
{
  const std::vector<detect::Detection> d = detections (n);
  const dlainfer::FrameTimes times{0, 0, 0, 33 * GST_MSECOND};
  Steps s;
  s.attach = us_per_frame ([&] {
    GstBuffer *buf = gst_buffer_new ();
    out.attach (buf, d.data (), n, 1920, 1080);
    gst_buffer_unref (buf);
  });
  s.message = us_per_frame ([&] { gst_structure_free (out.message (d.data (), n, times, 0)); });
  return s;
}

}  // namespace

TEST (DetectHost, PerDetection)
{
  std::vector<std::string> labels;
  for (int c = 0; c < 80; ++c)
    labels.push_back ("class_" + std::to_string (c));
  DetectionOutput out;
  out.prepare (labels, 80, g_quark_from_static_string ("swdla"));
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
    EXPECT_GT (a, 0.0) << "attaching " << n << " detections cost nothing: the bench measures nothing";
  }
}
