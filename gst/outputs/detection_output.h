/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a detector's results on the buffer and the bus (docs/detection.md 6). Each detection
 * becomes a GstAnalyticsODMtd (GStreamer >= 1.24: the label's quark as its type, the confidence, the
 * box in frame pixels) and, on every version, a GstVideoRegionOfInterestMeta of that type and box
 * with a "detection" parameter in DL Streamer's fields (label, label_id, confidence, x_min, y_min,
 * x_max, y_max normalised to the frame), so `dlainfer inference-region=roi-list` and DL
 * Streamer-style readers see the same objects. The message: "dladetect-result". No CUDA. */
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

#include "common/detect_plan.h"
#include "gst/outputs/analytics_output.h"
#include "gst/outputs/result_message.h"

namespace dlainfer {

constexpr const char *kDetectMessageName = "dladetect-result";

class DetectionOutput {
 public:
  /* The labels of the class channels (none: "class_<n>"), the backend named in the message. */
  void prepare (const std::vector<std::string> &labels, int classes, GQuark backend);
  /* The detections (frame pixels, best first) on `buffer`, a frame of `width` x `height`. */
  void attach (GstBuffer *buffer, const detect::Detection *d, int n, int width, int height);
  /* "dladetect-result" with the frame's times, dla-core and `detections`, an array of "detection"
   * structures (label, class-id, confidence, x, y, width, height: frame pixels). */
  GstStructure *message (const detect::Detection *d, int n, const FrameTimes &times, int dla_core) const;
  GQuark label (int cls) const;

 private:
  std::vector<GQuark> labels_;
  GQuark backend_ = 0;
  std::vector<AnalyticsBox> boxes_; /* attach's, kept for its capacity */
};

}  // namespace dlainfer
