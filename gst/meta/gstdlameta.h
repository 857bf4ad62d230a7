/* gst-dlainfer: the classification result dlainfer attaches to each buffer — the public metadata
 * library (libgstdlainfer-1.0, pkg-config gstreamer-dlainfer-1.0).
 *
 * Installed as <gst/dlainfer/gstdlameta.h>. Reading a result in a pad probe or an appsink:
 *
 *   GstDlaClassificationMeta *m = gst_buffer_get_dla_classification_meta (buffer);
 *   if (m && m->n_results > 0)
 *     g_print ("%s %.2f (age %u)\n", gst_dla_classification_meta_get_label (m, 0),
 *         m->results[0].confidence, m->age);
 *
 * With several dlainfer elements in a pipeline each adds its own meta; pick one with
 * gst_buffer_get_dla_classification_meta_for_element() or iterate with
 * gst_buffer_iterate_meta_filtered (buffer, &state, GST_DLA_CLASSIFICATION_META_API_TYPE). */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#ifndef GST_DLA_API
#ifdef BUILDING_GST_DLA_META
#define GST_DLA_API __attribute__ ((visibility ("default"))) extern
#else
#define GST_DLA_API extern
#endif
#endif

/**
 * GstDlaClassification:
 * @class_id: the class's index in the model's output
 * @label: the class's label (from the labels file, else "class_<index>"), as a quark
 * @confidence: the score after the element's activation (softmax by default: 0..1)
 */
typedef struct {
  gint class_id;
  GQuark label;
  gfloat confidence;
} GstDlaClassification;

/**
 * GstDlaClassificationMeta:
 * @meta: the parent #GstMeta
 * @n_results: number of entries in @results (0 when no class passed the threshold)
 * @results: the results, sorted by confidence, best first (ties: lower class id first); owned by
 *   the meta
 * @element: the name of the dlainfer element that produced the result, as a quark
 * @backend: "dla" (the hardware) or "swdla" (the software DLA of the tests), as a quark
 * @carried: TRUE when the frame was not inferred (the element's interval property) and the result
 *   is the last one, carried forward
 * @age: frames since the result was inferred: 0 on the frame that was inferred, 1 on the next...
 *
 * The result of one whole-frame classification. It survives buffer copies and every transform
 * (it describes the picture, not its pixels).
 */
typedef struct {
  GstMeta meta;

  guint n_results;
  GstDlaClassification *results;
  GQuark element;
  GQuark backend;
  gboolean carried;
  guint age;
} GstDlaClassificationMeta;

GST_DLA_API GType gst_dla_classification_meta_api_get_type (void);
#define GST_DLA_CLASSIFICATION_META_API_TYPE (gst_dla_classification_meta_api_get_type ())

GST_DLA_API const GstMetaInfo *gst_dla_classification_meta_get_info (void);
#define GST_DLA_CLASSIFICATION_META_INFO (gst_dla_classification_meta_get_info ())

/* Adds a meta holding a copy of @results (@n_results of them, already sorted) to a writable
 * buffer; @carried and @age start FALSE and 0. */
GST_DLA_API GstDlaClassificationMeta *gst_buffer_add_dla_classification_meta (
    GstBuffer *buffer, const GstDlaClassification *results, guint n_results, GQuark element, GQuark backend);

/* The first classification meta of @buffer, or NULL. */
GST_DLA_API GstDlaClassificationMeta *gst_buffer_get_dla_classification_meta (GstBuffer *buffer);

/* The classification meta that the element named @element_name added, or NULL. */
GST_DLA_API GstDlaClassificationMeta *gst_buffer_get_dla_classification_meta_for_element (
    GstBuffer *buffer, const gchar *element_name);

/* The label of result @index, or NULL when @index >= n_results. */
GST_DLA_API const gchar *gst_dla_classification_meta_get_label (const GstDlaClassificationMeta *meta,
                                                                guint index);

/* The producing element's name and the backend as strings. */
GST_DLA_API const gchar *gst_dla_classification_meta_get_element_name (const GstDlaClassificationMeta *meta);
GST_DLA_API const gchar *gst_dla_classification_meta_get_backend (const GstDlaClassificationMeta *meta);

G_END_DECLS
