/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/outputs/detection_output.h"

#include <gst/video/gstvideometa.h>

#include <algorithm>
#include <cmath>

#include "gst/objects/field_names.h"
#include "gst/objects/plain_values.h"
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

using objects::field_names::Name;
using namespace objects::plain_values;

/* Field names made once: a structure per detection per frame must not look each up
 * (gst/objects/field_names.h). */
struct Fields {
  Name detection, label, label_id, confidence, x_min, y_min, x_max, y_max, class_id, x, y, width, height;
};

const Fields &fields ()
{
  using objects::field_names::name;
  static const Fields f{name ("detection"), name ("label"), name ("label_id"), name ("confidence"),
                        name ("x_min"),     name ("y_min"), name ("x_max"),    name ("y_max"),
                        name ("class-id"),  name ("x"),     name ("y"),        name ("width"),
                        name ("height")};
  return f;
}

void take (GstStructure *s, const Name &field, GValue v)
{
  objects::field_names::take (s, field, &v);
}

/* DL Streamer's "detection" parameter (gvadetect): label, label_id, confidence, the box normalised. */
GstStructure *detection_param (const detect::Detection &d, GQuark label, int width, int height)
{
  const Fields &f = fields ();
  GstStructure *s = objects::field_names::new_structure (f.detection);
  take (s, f.label, interned_string_value (g_quark_to_string (label)));
  take (s, f.label_id, int_value (d.cls));
  take (s, f.confidence, double_value (double (d.score)));
  take (s, f.x_min, double_value (double (d.x0) / width));
  take (s, f.y_min, double_value (double (d.y0) / height));
  take (s, f.x_max, double_value (double (d.x1) / width));
  take (s, f.y_max, double_value (double (d.y1) / height));
  return s;
}

void append_detection (GValue *array, const detect::Detection &d, GQuark label)
{
  const Fields &f = fields ();
  const PixelBox b = pixels (d);
  GstStructure *s = objects::field_names::new_structure (f.detection);
  take (s, f.label, interned_string_value (g_quark_to_string (label)));
  take (s, f.class_id, int_value (d.cls));
  take (s, f.confidence, float_value (d.score));
  take (s, f.x, int_value (b.x));
  take (s, f.y, int_value (b.y));
  take (s, f.width, int_value (b.w));
  take (s, f.height, int_value (b.h));
  GValue item = G_VALUE_INIT;
  g_value_init (&item, GST_TYPE_STRUCTURE);
  g_value_take_boxed (&item, s);
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

void DetectionOutput::attach (GstBuffer *buffer, const detect::Detection *d, int n, int width, int height)
{
  boxes_.clear ();
  for (int i = 0; i < n; ++i) {
    const PixelBox b = pixels (d[i]);
    boxes_.push_back ({label (d[i].cls), b.x, b.y, b.w, b.h, d[i].score});
  }
  add_analytics_detections (buffer, boxes_.data (), boxes_.size ());
  for (int i = 0; i < n; ++i) {
    const AnalyticsBox &b = boxes_[size_t (i)];
    GstVideoRegionOfInterestMeta *roi = gst_buffer_add_video_region_of_interest_meta_id (
        buffer, b.type, guint (std::max (b.x, 0)), guint (std::max (b.y, 0)), guint (std::max (b.w, 0)),
        guint (std::max (b.h, 0)));
    roi->id = i; /* the detection's index on this frame, as DL Streamer's detectors set it */
    gst_video_region_of_interest_meta_add_param (roi, detection_param (d[i], b.type, width, height));
  }
}

GstStructure *DetectionOutput::message (const detect::Detection *d, int n, const FrameTimes &times,
                                        int dla_core) const
{
  GValue array = G_VALUE_INIT;
  gst_value_array_init (&array, guint (n));
  for (int i = 0; i < n; ++i)
    append_detection (&array, d[i], label (d[i].cls));
  GstStructure *s = frame_structure (times, backend_);
  gst_structure_set_name (s, kDetectMessageName);
  gst_structure_set (s, "dla-core", G_TYPE_INT, dla_core, nullptr);
  gst_structure_take_value (s, "detections", &array);
  return s;
}

}  // namespace dlainfer
