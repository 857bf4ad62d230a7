/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/outputs/result_message.h"

namespace dlainfer {
namespace {

void append (GValue *array, GValue *item)
{
  gst_value_array_append_and_take_value (array, item);
  *item = G_VALUE_INIT;
}

}  // namespace

FrameTimes frame_times (GstBuffer *buf, const GstSegment *segment)
{
  FrameTimes times;
  times.timestamp = GST_BUFFER_PTS (buf);
  times.duration = GST_BUFFER_DURATION (buf);
  if (segment->format == GST_FORMAT_TIME && GST_CLOCK_TIME_IS_VALID (times.timestamp)) {
    times.running_time = gst_segment_to_running_time (segment, GST_FORMAT_TIME, times.timestamp);
    times.stream_time = gst_segment_to_stream_time (segment, GST_FORMAT_TIME, times.timestamp);
  }
  return times;
}

GstStructure *frame_structure (const FrameTimes &times, GQuark backend)
{
  return gst_structure_new (kResultMessageName, "timestamp", G_TYPE_UINT64, guint64 (times.timestamp),
                            "stream-time", G_TYPE_UINT64, guint64 (times.stream_time), "running-time",
                            G_TYPE_UINT64, guint64 (times.running_time), "duration", G_TYPE_UINT64,
                            guint64 (times.duration), "backend", G_TYPE_STRING,
                            backend ? g_quark_to_string (backend) : "", nullptr);
}

GstStructure *result_structure (const GstDlaClassification *results, guint n, const FrameTimes &times,
                                GQuark backend, int dla_core)
{
  GValue ids = G_VALUE_INIT, labels = G_VALUE_INIT, confidences = G_VALUE_INIT;
  g_value_init (&ids, GST_TYPE_ARRAY);
  g_value_init (&labels, GST_TYPE_ARRAY);
  g_value_init (&confidences, GST_TYPE_ARRAY);
  for (guint i = 0; i < n; ++i) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, G_TYPE_INT);
    g_value_set_int (&v, results[i].class_id);
    append (&ids, &v);
    g_value_init (&v, G_TYPE_STRING);
    g_value_set_static_string (&v, g_quark_to_string (results[i].label));
    append (&labels, &v);
    g_value_init (&v, G_TYPE_FLOAT);
    g_value_set_float (&v, results[i].confidence);
    append (&confidences, &v);
  }
  GstStructure *s = frame_structure (times, backend);
  gst_structure_set (s, "dla-core", G_TYPE_INT, dla_core, nullptr);
  gst_structure_take_value (s, "class-ids", &ids);
  gst_structure_take_value (s, "labels", &labels);
  gst_structure_take_value (s, "confidences", &confidences);
  return s;
}

}  // namespace dlainfer
