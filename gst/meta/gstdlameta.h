/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the classification result dlainfer attaches to each buffer — the public metadata
 * library (libgstdlainfer-1.0, pkg-config gstreamer-dlainfer-1.0).
 *
 * Installed as <gst/dlainfer/gstdlameta.h>. Reading a result in a pad probe or an appsink:
 *
 *   GstDlaClassificationMeta *m = gst_buffer_get_dla_classification_meta (buffer);
 *   const gchar *label;
 *   gfloat confidence;
 *   if (m && gst_dla_classification_meta_get_result (m, 0, NULL, &label, &confidence))
 *     g_print ("%s %.2f (age %u)\n", label, confidence, gst_dla_classification_meta_get_age (m));
 *
 * Read it through the accessors (GObject introspection, and so Python, sees only those): the
 * struct's public fields stay readable for C users of the first version, and the struct has room
 * for what later versions add (object results, per-result cores) without a new soversion.
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
 * (it describes the picture, not its pixels). The fields above are those of the first version
 * and keep their offsets; what follows them is private.
 */
typedef struct {
  GstMeta meta;

  guint n_results;
  GstDlaClassification *results;
  GQuark element;
  GQuark backend;
  gboolean carried;
  guint age;

  /*< private >*/
  gint dla_core; /* the DLA core that produced the results, -1 unknown */
  gpointer priv; /* a growable private part (object results, per-result cores), owned by the meta */
  gpointer _gst_reserved[GST_PADDING_LARGE];
} GstDlaClassificationMeta;

/**
 * gst_dla_classification_meta_api_get_type:
 *
 * Returns: the #GType of the classification meta's API
 */
GST_DLA_API GType gst_dla_classification_meta_api_get_type (void);
#define GST_DLA_CLASSIFICATION_META_API_TYPE (gst_dla_classification_meta_api_get_type ())

/**
 * gst_dla_classification_meta_get_info:
 *
 * Returns: (transfer none): the #GstMetaInfo of the classification meta
 */
GST_DLA_API const GstMetaInfo *gst_dla_classification_meta_get_info (void);
#define GST_DLA_CLASSIFICATION_META_INFO (gst_dla_classification_meta_get_info ())

/**
 * gst_buffer_add_dla_classification_meta_full:
 * @buffer: a writable buffer
 * @results: (array length=n_results) (nullable): the results, already sorted, best first
 * @n_results: how many
 * @element: the producing element's name, as a quark
 * @backend: "dla" or "swdla", as a quark
 * @dla_core: the DLA core that produced the results (-1: unknown)
 * @carried: the frame was not inferred: these are the last results, carried forward
 * @age: frames since the results were inferred
 *
 * Adds a meta holding a copy of @results and everything dlainfer sets.
 *
 * Returns: (transfer none) (nullable): the meta
 */
GST_DLA_API GstDlaClassificationMeta *gst_buffer_add_dla_classification_meta_full (
    GstBuffer *buffer, const GstDlaClassification *results, guint n_results, GQuark element, GQuark backend,
    gint dla_core, gboolean carried, guint age);

/**
 * gst_buffer_add_dla_classification_meta:
 * @buffer: a writable buffer
 * @results: (array length=n_results) (nullable): the results, already sorted, best first
 * @n_results: how many
 * @element: the producing element's name, as a quark
 * @backend: "dla" or "swdla", as a quark
 *
 * The first version's add: @dla_core -1, @carried FALSE, @age 0.
 *
 * Returns: (transfer none) (nullable): the meta
 */
GST_DLA_API GstDlaClassificationMeta *gst_buffer_add_dla_classification_meta (
    GstBuffer *buffer, const GstDlaClassification *results, guint n_results, GQuark element, GQuark backend);

/**
 * gst_buffer_get_dla_classification_meta:
 * @buffer: a buffer
 *
 * Returns: (transfer none) (nullable): the first classification meta of @buffer, or %NULL
 */
GST_DLA_API GstDlaClassificationMeta *gst_buffer_get_dla_classification_meta (GstBuffer *buffer);

/**
 * gst_buffer_get_dla_classification_meta_for_element:
 * @buffer: a buffer
 * @element_name: the name of a dlainfer element
 *
 * Returns: (transfer none) (nullable): the classification meta that the element named
 *   @element_name added, or %NULL
 */
GST_DLA_API GstDlaClassificationMeta *gst_buffer_get_dla_classification_meta_for_element (
    GstBuffer *buffer, const gchar *element_name);

/**
 * gst_dla_classification_meta_get_label:
 * @meta: a #GstDlaClassificationMeta
 * @index: which result, from 0 (best first)
 *
 * Returns: (transfer none) (nullable): the label of result @index, or %NULL when @index >= the
 *   number of results
 */
GST_DLA_API const gchar *gst_dla_classification_meta_get_label (const GstDlaClassificationMeta *meta,
                                                                guint index);

/**
 * gst_dla_classification_meta_get_element_name:
 * @meta: a #GstDlaClassificationMeta
 *
 * Returns: (transfer none) (nullable): the name of the element that produced the results
 */
GST_DLA_API const gchar *gst_dla_classification_meta_get_element_name (const GstDlaClassificationMeta *meta);
/**
 * gst_dla_classification_meta_get_backend:
 * @meta: a #GstDlaClassificationMeta
 *
 * Returns: (transfer none) (nullable): "dla" (the hardware) or "swdla" (the software DLA)
 */
GST_DLA_API const gchar *gst_dla_classification_meta_get_backend (const GstDlaClassificationMeta *meta);

/**
 * gst_dla_classification_meta_get_n_results:
 * @meta: a #GstDlaClassificationMeta
 *
 * Returns: the number of results (0 when no class passed the threshold)
 */
GST_DLA_API guint gst_dla_classification_meta_get_n_results (const GstDlaClassificationMeta *meta);

/**
 * gst_dla_classification_meta_get_result:
 * @meta: a #GstDlaClassificationMeta
 * @index: which result, from 0 (best first)
 * @class_id: (out) (optional): the class's index in the model's output
 * @label: (out) (optional) (transfer none): the class's label
 * @confidence: (out) (optional): the score after the element's activation
 *
 * Returns: %FALSE (and sets nothing) when @index >= the number of results
 */
GST_DLA_API gboolean gst_dla_classification_meta_get_result (const GstDlaClassificationMeta *meta,
                                                             guint index, gint *class_id, const gchar **label,
                                                             gfloat *confidence);

/**
 * gst_dla_classification_meta_get_carried:
 * @meta: a #GstDlaClassificationMeta
 *
 * Returns: %TRUE when the frame was not inferred and the results are the last ones, carried forward
 */
GST_DLA_API gboolean gst_dla_classification_meta_get_carried (const GstDlaClassificationMeta *meta);
/**
 * gst_dla_classification_meta_get_age:
 * @meta: a #GstDlaClassificationMeta
 *
 * Returns: frames since the results were inferred (0 on the inferred frame)
 */
GST_DLA_API guint gst_dla_classification_meta_get_age (const GstDlaClassificationMeta *meta);
/**
 * gst_dla_classification_meta_get_dla_core:
 * @meta: a #GstDlaClassificationMeta
 *
 * Returns: the DLA core that produced the results, -1 when unknown (a meta added by the first
 *   version's add)
 */
GST_DLA_API gint gst_dla_classification_meta_get_dla_core (const GstDlaClassificationMeta *meta);

G_END_DECLS
