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
 * Its tracking id (dlatrack, gvatrack): gst_dla_object_get_tracking_id. From Python, which cannot
 * iterate a buffer's metas, gst_dla_buffer_get_object gives the n-th ROI meta.
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

/**
 * gst_dla_object_get_tracking_id:
 * @roi: an object's region-of-interest meta
 * @id: (out) (optional): the object's tracking id
 *
 * The tracking id a tracker put on the object: the `id` field of its `object_id` parameter, as
 * dlatrack and DL Streamer's gvatrack write it (the meta's own `id` is no tracking id).
 *
 * Returns: whether the object has one.
 */
GST_DLA_API gboolean gst_dla_object_get_tracking_id (GstVideoRegionOfInterestMeta *roi, guint64 *id);

/**
 * gst_dla_buffer_get_object:
 * @buffer: a buffer
 * @index: which of the buffer's region-of-interest metas, from 0 in the buffer's order
 *
 * The @index-th GstVideoRegionOfInterestMeta of @buffer: for bindings that cannot iterate a
 * buffer's metas (PyGObject), `while (roi = gst_dla_buffer_get_object (buf, i++))`.
 *
 * Returns: (transfer none) (nullable): the meta, valid while the buffer is; %NULL past the last.
 */
GST_DLA_API GstVideoRegionOfInterestMeta *gst_dla_buffer_get_object (GstBuffer *buffer, guint index);

G_END_DECLS
