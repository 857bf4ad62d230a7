/* gst-dlainfer: the classification result carried on each buffer.
 *
 * Minimal for now: the surface issue turns this into the public meta library (installed header,
 * shared library, pkg-config) under the same names, so the element core only ever calls
 * gst_buffer_add_dla_classification_meta() and needs no change. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/** @brief One class of a result: its index in the model's output, its label, its confidence. */
typedef struct {
  gint class_id;
  GQuark label;
  gfloat confidence;
} GstDlaClassification;

/** @brief The sorted results of one inference, and who produced them. */
typedef struct {
  GstMeta meta;

  guint n_results;
  GstDlaClassification *results; /* sorted by confidence, best first; owned by the meta */
  GQuark element;                /* name of the producing element */
  GQuark backend;                /* "dla", or "swdla" for the software DLA */
  gboolean carried;              /* result carried from an earlier frame (not yet produced) */
  guint age;                     /* frames since the result was inferred (0: this frame) */
} GstDlaClassificationMeta;

GType gst_dla_classification_meta_api_get_type (void);
#define GST_DLA_CLASSIFICATION_META_API_TYPE (gst_dla_classification_meta_api_get_type ())

const GstMetaInfo *gst_dla_classification_meta_get_info (void);
#define GST_DLA_CLASSIFICATION_META_INFO (gst_dla_classification_meta_get_info ())

/** @brief Adds a meta holding a copy of `results` (n of them) to a writable buffer. */
GstDlaClassificationMeta *gst_buffer_add_dla_classification_meta (GstBuffer *buffer,
    const GstDlaClassification *results, guint n_results, GQuark element, GQuark backend);

#define gst_buffer_get_dla_classification_meta(b) \
  ((GstDlaClassificationMeta *) gst_buffer_get_meta ((b), GST_DLA_CLASSIFICATION_META_API_TYPE))

G_END_DECLS
