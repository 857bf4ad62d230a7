/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/outputs/detection_output.h"

#include <gst/video/gstvideometa.h>

#include <algorithm>
#include <cmath>

#include "gst/outputs/analytics_output.h"
#include "host/labels.h"

namespace dlainfer {
namespace {

/* A box in whole frame pixels: each edge rounded. */
struct PixelBox {
  int x, y, w, h;
};

PixelBox pixels (const detect::Detection &d)
{
  const int x = int (std::lround (d.x0)), y = int (std::lround (d.y0));
  return {x, y, int (std::lround (d.x1)) - x, int (std::lround (d.y1)) - y};
}

/* DL Streamer's "detection" parameter (gvadetect): label, label_id, confidence, the box normalised. */
GstStructure *detection_param (const detect::Detection &d, GQuark label, int width, int height)
{
  return gst_structure_new ("detection", "label", G_TYPE_STRING, g_quark_to_string (label), "label_id",
                            G_TYPE_INT, d.cls, "confidence", G_TYPE_DOUBLE, double (d.score), "x_min",
                            G_TYPE_DOUBLE, double (d.x0) / width, "y_min", G_TYPE_DOUBLE,
                            double (d.y0) / height, "x_max", G_TYPE_DOUBLE, double (d.x1) / width, "y_max",
                            G_TYPE_DOUBLE, double (d.y1) / height, nullptr);
}

void append_detection (GValue *array, const detect::Detection &d, GQuark label)
{
  const PixelBox b = pixels (d);
  GValue item = G_VALUE_INIT;
  g_value_init (&item, GST_TYPE_STRUCTURE);
  g_value_take_boxed (
      &item,
      gst_structure_new ("detection", "label", G_TYPE_STRING, g_quark_to_string (label), "class-id",
                         G_TYPE_INT, d.cls, "confidence", G_TYPE_FLOAT, d.score, "x", G_TYPE_INT, b.x, "y",
                         G_TYPE_INT, b.y, "width", G_TYPE_INT, b.w, "height", G_TYPE_INT, b.h, nullptr));
  gst_value_array_append_and_take_value (array, &item);
}

}  // namespace

void DetectionOutput::prepare (const std::vector<std::string> &labels, int classes, GQuark backend)
{
  labels_.clear ();
  for (int c = 0; c < std::max (classes, 1); ++c)
    labels_.push_back (g_quark_from_string (labels::name_for (labels, c).c_str ()));
  backend_ = backend;
}

GQuark DetectionOutput::label (int cls) const
{
  if (cls >= 0 && size_t (cls) < labels_.size ())
    return labels_[size_t (cls)];
  return g_quark_from_string (labels::name_for ({}, cls).c_str ());
}

void DetectionOutput::attach (GstBuffer *buffer, const detect::Detection *d, int n, int width,
                              int height) const
{
  for (int i = 0; i < n; ++i) {
    const PixelBox b = pixels (d[i]);
    const GQuark type = label (d[i].cls);
    add_analytics_detection (buffer, type, b.x, b.y, b.w, b.h, d[i].score);
    GstVideoRegionOfInterestMeta *roi = gst_buffer_add_video_region_of_interest_meta_id (
        buffer, type, guint (std::max (b.x, 0)), guint (std::max (b.y, 0)), guint (std::max (b.w, 0)),
        guint (std::max (b.h, 0)));
    roi->id = i; /* the detection's index on this frame, as DL Streamer's detectors set it */
    gst_video_region_of_interest_meta_add_param (roi, detection_param (d[i], type, width, height));
  }
}

GstStructure *DetectionOutput::message (const detect::Detection *d, int n, const FrameTimes &times,
                                        int dla_core) const
{
  GValue array = G_VALUE_INIT;
  g_value_init (&array, GST_TYPE_ARRAY);
  for (int i = 0; i < n; ++i)
    append_detection (&array, d[i], label (d[i].cls));
  GstStructure *s = frame_structure (times, backend_);
  gst_structure_set_name (s, kDetectMessageName);
  gst_structure_set (s, "dla-core", G_TYPE_INT, dla_core, nullptr);
  gst_structure_take_value (s, "detections", &array);
  return s;
}

}  // namespace dlainfer
