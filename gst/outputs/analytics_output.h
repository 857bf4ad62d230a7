/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the results as a GstAnalyticsClsMtd (a detection: an ODMtd) in the buffer's
 * GstAnalyticsRelationMeta (GStreamer >= 1.24, HAVE_GST_ANALYTICS); nothing in builds without it. */
#pragma once

#include <gst/gst.h>

#include <cstddef>

namespace dlainfer {

/* Whether this build writes GstAnalytics metadata. */
bool analytics_enabled ();

/* Adds one classification (n confidences and their label quarks, best first) to the buffer's
 * relation meta, made when missing. The arrays are not modified (the GStreamer API takes them
 * non-const). False when the build has no GstAnalytics or the meta cannot be added. */
bool add_analytics_classification (GstBuffer *buffer, const float *confidences, const GQuark *labels,
                                   size_t n);

/* A detection: its type's quark, its box in frame pixels, its confidence. */
struct AnalyticsBox {
  GQuark type;
  int x, y, w, h;
  float confidence;
};

/* Adds n detections as GstAnalyticsODMtds, in order, to the buffer's relation meta (looked up or
 * made once for all of them). False as above. */
bool add_analytics_detections (GstBuffer *buffer, const AnalyticsBox *boxes, size_t n);

}  // namespace dlainfer
