/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gst/outputs/analytics_output.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

namespace dlainfer {

#ifdef HAVE_GST_ANALYTICS

bool analytics_enabled ()
{
  return true;
}

namespace {

GstAnalyticsRelationMeta *relation_meta (GstBuffer *buffer)
{
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buffer);
  return rmeta ? rmeta : gst_buffer_add_analytics_relation_meta (buffer);
}

}  // namespace

bool add_analytics_detections (GstBuffer *buffer, const AnalyticsBox *boxes, size_t n)
{
  if (n == 0)
    return true;
  GstAnalyticsRelationMeta *rmeta = relation_meta (buffer);
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
