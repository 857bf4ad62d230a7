/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: an object's result, as dlainfer inference-region=roi-list wrote it on the
 * object's GstVideoRegionOfInterestMeta (every GStreamer version) — the public metadata library.
 *
 * Installed as <gst/dlainfer/gstdlaobject.h>. For each object of a buffer:
 *
 *   gpointer state = NULL;
 *   GstMeta *m;
 *   while ((m = gst_buffer_iterate_meta_filtered (buffer, &state,
 *               GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
 *     const gchar *label;
 *     gfloat confidence;
 *     if (gst_dla_object_get_result ((GstVideoRegionOfInterestMeta *) m, NULL, NULL, &label,
 *                                    &confidence, NULL, NULL))
 *       g_print ("%s %.2f\n", label, confidence);
 *   }
 *
 * On GStreamer >= 1.24 an object described by a GstAnalyticsODMtd (and no ROI meta) has its
 * result as a GstAnalyticsClsMtd related to it (RELATE_TO and CONTAIN from the detection): read it
 * with gst_analytics_relation_meta_get_direct_related (docs/objects.md). */
#pragma once

#include <gst/video/video.h>

#include "gstdlameta.h"

G_BEGIN_DECLS

/**
 * gst_dla_object_get_result:
 * @roi: an object's region-of-interest meta
 * @attribute: (nullable): the dlainfer element's `attribute-name` (by default its name); %NULL:
 *   the first dlainfer result on the meta
 * @class_id: (out) (optional): the top-1 class's index
 * @label: (out) (optional) (transfer none): the top-1 class's label, valid while the meta is
 * @confidence: (out) (optional): the top-1 confidence
 * @carried: (out) (optional): TRUE when the result was carried from an earlier frame
 *   (`reclassify-interval`)
 * @age: (out) (optional): frames since the object was classified (0: on this frame)
 *
 * Returns: whether dlainfer wrote a result on the object.
 */
GST_DLA_API gboolean gst_dla_object_get_result (GstVideoRegionOfInterestMeta *roi, const gchar *attribute,
                                                gint *class_id, const gchar **label, gfloat *confidence,
                                                gboolean *carried, guint *age);

G_END_DECLS
