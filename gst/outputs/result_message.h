/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the element message posted per inference when post-messages=true, so
 * `gst-launch-1.0 -m` shows results without code. */
#pragma once

#include <gst/gst.h>

#include "gst/meta/gstdlameta.h"

namespace dlainfer {

/* The structure's name. */
constexpr const char *kResultMessageName = "dlainfer-result";

struct FrameTimes {
  GstClockTime timestamp = GST_CLOCK_TIME_NONE; /* the buffer's PTS */
  GstClockTime stream_time = GST_CLOCK_TIME_NONE;
  GstClockTime running_time = GST_CLOCK_TIME_NONE;
  GstClockTime duration = GST_CLOCK_TIME_NONE;
};

/* A buffer's times in its segment. */
FrameTimes frame_times (GstBuffer *buf, const GstSegment *segment);

/* "dlainfer-result, timestamp=(guint64), stream-time=(guint64), running-time=(guint64),
 * duration=(guint64), backend=(string)": a frame's part of the message (roi-list adds its
 * `objects` array, objects/object_output.h). */
GstStructure *frame_structure (const FrameTimes &times, GQuark backend);

/* "dlainfer-result, timestamp=(guint64), stream-time=(guint64), running-time=(guint64),
 * duration=(guint64), backend=(string), dla-core=(int), class-ids=(int)<...>, labels=(string)<...>,
 * confidences=(float)<...>": the results in their order (best first); dla-core: the core that
 * produced them (-1: unknown). */
GstStructure *result_structure (const GstDlaClassification *results, guint n, const FrameTimes &times,
                                GQuark backend, int dla_core = -1);

}  // namespace dlainfer
