/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gst/outputs/analytics_output.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>

#include <algorithm>
#endif

namespace dlainfer {

#ifdef HAVE_GST_ANALYTICS

bool analytics_enabled ()
{
  return true;
}

namespace {

/* Bytes a relatable mtd takes in the meta's buffer, at most: GStreamer's header (three words) and
 * an ODMtd's box, type, confidence and angle, rounded up. */
constexpr gsize kMtdBytes = 64;

/* The buffer's relation meta; a new one has room for `mtds` mtds. GStreamer's default room (5 mtds,
 * grown 5 at a time, the relation matrix copied at each step) makes n detections cost O(n^3). */
GstAnalyticsRelationMeta *relation_meta (GstBuffer *buffer, gsize mtds = 5)
{
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buffer);
  if (rmeta)
    return rmeta;
  GstAnalyticsRelationMetaInitParams params = {std::max<gsize> (mtds, 5),
                                               std::max<gsize> (mtds, 16) * kMtdBytes};
  return gst_buffer_add_analytics_relation_meta_full (buffer, &params);
}

}  // namespace

bool add_analytics_detections (GstBuffer *buffer, const AnalyticsBox *boxes, size_t n)
{
  if (n == 0)
    return true;
  GstAnalyticsRelationMeta *rmeta = relation_meta (buffer, n);
  GstAnalyticsODMtd mtd;
  bool ok = rmeta != nullptr;
  for (size_t i = 0; ok && i < n; ++i) {
    const AnalyticsBox &b = boxes[i];
    ok = gst_analytics_relation_meta_add_od_mtd (rmeta, b.type, b.x, b.y, b.w, b.h, b.confidence, &mtd);
  }
  return ok;
}

bool add_analytics_classification (GstBuffer *buffer, const float *confidences, const GQuark *labels,
                                   size_t n)
{
  GstAnalyticsRelationMeta *rmeta = relation_meta (buffer);
  if (!rmeta)
    return false;
  GstAnalyticsClsMtd mtd;
  return gst_analytics_relation_meta_add_cls_mtd (rmeta, n, const_cast<gfloat *> (confidences),
                                                  const_cast<GQuark *> (labels), &mtd);
}

#else

bool analytics_enabled ()
{
  return false;
}

bool add_analytics_classification (GstBuffer *, const float *, const GQuark *, size_t)
{
  return false;
}

bool add_analytics_detections (GstBuffer *, const AnalyticsBox *, size_t)
{
  return false;
}

#endif

}  // namespace dlainfer
