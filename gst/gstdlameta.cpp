#include "gstdlameta.h"

#include <cstring>

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
  return TRUE;
}

void meta_free (GstMeta *meta, GstBuffer *)
{
  auto *m = reinterpret_cast<GstDlaClassificationMeta *> (meta);
  g_free (m->results);
  m->results = nullptr;
}

void meta_set_results (GstDlaClassificationMeta *m, const GstDlaClassification *results, guint n)
{
  g_free (m->results);
  m->results = n ? static_cast<GstDlaClassification *> (g_memdup2 (results, n * sizeof *results)) : nullptr;
  m->n_results = n;
}

/* The result describes the whole picture, so it survives copies and any transformation. */
gboolean meta_transform (GstBuffer *dest, GstMeta *meta, GstBuffer *, GQuark, gpointer)
{
  const auto *src = reinterpret_cast<const GstDlaClassificationMeta *> (meta);
  GstDlaClassificationMeta *dst =
      gst_buffer_add_dla_classification_meta (dest, src->results, src->n_results, src->element, src->backend);
  if (!dst)
    return FALSE;
  dst->carried = src->carried;
  dst->age = src->age;
  return TRUE;
}

}  // namespace

GType gst_dla_classification_meta_api_get_type (void)
{
  static GType type = 0;
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
    const GstMetaInfo *i = gst_meta_register (GST_DLA_CLASSIFICATION_META_API_TYPE, "GstDlaClassificationMeta",
        sizeof (GstDlaClassificationMeta), meta_init, meta_free, meta_transform);
    g_once_init_leave (&info, i);
  }
  return info;
}

GstDlaClassificationMeta *gst_buffer_add_dla_classification_meta (GstBuffer *buffer,
    const GstDlaClassification *results, guint n_results, GQuark element, GQuark backend)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), nullptr);
  g_return_val_if_fail (n_results == 0 || results != nullptr, nullptr);
  auto *m = reinterpret_cast<GstDlaClassificationMeta *> (
      gst_buffer_add_meta (buffer, GST_DLA_CLASSIFICATION_META_INFO, nullptr));
  if (!m)
    return nullptr;
  meta_set_results (m, results, n_results);
  m->element = element;
  m->backend = backend;
  return m;
}
