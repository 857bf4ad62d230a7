/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: GstDlaClassificationMeta (see gstdlameta.h). */
#include "gst/meta/gstdlameta.h"

namespace {

gboolean meta_init (GstMeta *meta, gpointer, GstBuffer *)
{
  auto *m = reinterpret_cast<GstDlaClassificationMeta *> (meta);
  m->n_results = 0;
  m->results = nullptr;
  m->element = 0;
  m->backend = 0;
  m->carried = FALSE;
  m->age = 0;
  m->dla_core = -1;
  m->priv = nullptr;
  return TRUE;
}

void meta_free (GstMeta *meta, GstBuffer *)
{
  auto *m = reinterpret_cast<GstDlaClassificationMeta *> (meta);
  g_free (m->results);
  m->results = nullptr;
  m->n_results = 0;
}

/* The result describes the whole picture, so it survives copies and any transformation
 * (scaling, conversion, cropping by a later element keep the classification true). */
gboolean meta_transform (GstBuffer *dest, GstMeta *meta, GstBuffer *, GQuark, gpointer)
{
  const auto *src = reinterpret_cast<const GstDlaClassificationMeta *> (meta);
  return gst_buffer_add_dla_classification_meta_full (dest, src->results, src->n_results, src->element,
                                                      src->backend, src->dla_core, src->carried,
                                                      src->age) != nullptr;
}

}  // namespace

GType gst_dla_classification_meta_api_get_type (void)
{
  static GType type = 0;
  /* No tags: elements that change the picture (scale, convert) keep the meta. */
  static const gchar *tags[] = {nullptr};
  if (g_once_init_enter (&type)) {
    const GType t = gst_meta_api_type_register ("GstDlaClassificationMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

const GstMetaInfo *gst_dla_classification_meta_get_info (void)
{
  static const GstMetaInfo *info = nullptr;
  if (g_once_init_enter (&info)) {
    const GstMetaInfo *i =
        gst_meta_register (GST_DLA_CLASSIFICATION_META_API_TYPE, "GstDlaClassificationMeta",
                           sizeof (GstDlaClassificationMeta), meta_init, meta_free, meta_transform);
    g_once_init_leave (&info, i);
  }
  return info;
}

GstDlaClassificationMeta *gst_buffer_add_dla_classification_meta (GstBuffer *buffer,
                                                                  const GstDlaClassification *results,
                                                                  guint n_results, GQuark element,
                                                                  GQuark backend)
{
  return gst_buffer_add_dla_classification_meta_full (buffer, results, n_results, element, backend, -1, FALSE,
                                                      0);
}

GstDlaClassificationMeta *gst_buffer_add_dla_classification_meta_full (GstBuffer *buffer,
                                                                       const GstDlaClassification *results,
                                                                       guint n_results, GQuark element,
                                                                       GQuark backend, gint dla_core,
                                                                       gboolean carried, guint age)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), nullptr);
  g_return_val_if_fail (n_results == 0 || results != nullptr, nullptr);
  auto *m = reinterpret_cast<GstDlaClassificationMeta *> (
      gst_buffer_add_meta (buffer, GST_DLA_CLASSIFICATION_META_INFO, nullptr));
  if (!m)
    return nullptr;
  m->results = n_results
                   ? static_cast<GstDlaClassification *> (g_memdup2 (results, n_results * sizeof *results))
                   : nullptr;
  m->n_results = n_results;
  m->element = element;
  m->backend = backend;
  m->dla_core = dla_core;
  m->carried = carried;
  m->age = age;
  return m;
}

GstDlaClassificationMeta *gst_buffer_get_dla_classification_meta (GstBuffer *buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), nullptr);
  return reinterpret_cast<GstDlaClassificationMeta *> (
      gst_buffer_get_meta (buffer, GST_DLA_CLASSIFICATION_META_API_TYPE));
}

GstDlaClassificationMeta *gst_buffer_get_dla_classification_meta_for_element (GstBuffer *buffer,
                                                                              const gchar *element_name)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), nullptr);
  g_return_val_if_fail (element_name != nullptr, nullptr);
  /* try_string: a name never interned cannot be on any meta. */
  const GQuark wanted = g_quark_try_string (element_name);
  if (!wanted)
    return nullptr;
  gpointer state = nullptr;
  while (GstMeta *meta =
             gst_buffer_iterate_meta_filtered (buffer, &state, GST_DLA_CLASSIFICATION_META_API_TYPE)) {
    auto *m = reinterpret_cast<GstDlaClassificationMeta *> (meta);
    if (m->element == wanted)
      return m;
  }
  return nullptr;
}

const gchar *gst_dla_classification_meta_get_label (const GstDlaClassificationMeta *meta, guint index)
{
  g_return_val_if_fail (meta != nullptr, nullptr);
  if (index >= meta->n_results)
    return nullptr;
  return g_quark_to_string (meta->results[index].label);
}

const gchar *gst_dla_classification_meta_get_element_name (const GstDlaClassificationMeta *meta)
{
  g_return_val_if_fail (meta != nullptr, nullptr);
  return g_quark_to_string (meta->element);
}

const gchar *gst_dla_classification_meta_get_backend (const GstDlaClassificationMeta *meta)
{
  g_return_val_if_fail (meta != nullptr, nullptr);
  return g_quark_to_string (meta->backend);
}

guint gst_dla_classification_meta_get_n_results (const GstDlaClassificationMeta *meta)
{
  g_return_val_if_fail (meta != nullptr, 0);
  return meta->n_results;
}

gboolean gst_dla_classification_meta_get_result (const GstDlaClassificationMeta *meta, guint index,
                                                 gint *class_id, const gchar **label, gfloat *confidence)
{
  g_return_val_if_fail (meta != nullptr, FALSE);
  if (index >= meta->n_results)
    return FALSE;
  const GstDlaClassification &r = meta->results[index];
  if (class_id)
    *class_id = r.class_id;
  if (label)
    *label = g_quark_to_string (r.label);
  if (confidence)
    *confidence = r.confidence;
  return TRUE;
}

gboolean gst_dla_classification_meta_get_carried (const GstDlaClassificationMeta *meta)
{
  g_return_val_if_fail (meta != nullptr, FALSE);
  return meta->carried;
}

guint gst_dla_classification_meta_get_age (const GstDlaClassificationMeta *meta)
{
  g_return_val_if_fail (meta != nullptr, 0);
  return meta->age;
}

gint gst_dla_classification_meta_get_dla_core (const GstDlaClassificationMeta *meta)
{
  g_return_val_if_fail (meta != nullptr, -1);
  return meta->dla_core;
}
