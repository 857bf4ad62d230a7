/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: GstDlaTensorMeta (see gstdlatensormeta.h). */
#include "gst/meta/gstdlatensormeta.h"

namespace {

gboolean meta_init (GstMeta *meta, gpointer, GstBuffer *)
{
  auto *m = reinterpret_cast<GstDlaTensorMeta *> (meta);
  m->num_tensors = 0;
  m->tensors = nullptr;
  m->element = 0;
  m->priv = nullptr;
  return TRUE;
}

void meta_free (GstMeta *meta, GstBuffer *)
{
  auto *m = reinterpret_cast<GstDlaTensorMeta *> (meta);
  for (gsize i = 0; i < m->num_tensors; ++i)
    gst_buffer_unref (m->tensors[i].data);
  g_free (m->tensors);
  m->tensors = nullptr;
  m->num_tensors = 0;
}

/* Copies only: the outputs describe the picture the model saw, not one scaled or cropped later. */
gboolean meta_transform (GstBuffer *dest, GstMeta *meta, GstBuffer *, GQuark type, gpointer)
{
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  const auto *src = reinterpret_cast<const GstDlaTensorMeta *> (meta);
  GstDlaTensorMeta *m = gst_buffer_add_dla_tensor_meta (dest, src->element);
  for (gsize i = 0; m && i < src->num_tensors; ++i) {
    const GstDlaTensor &t = src->tensors[i];
    gst_dla_tensor_meta_add_tensor (m, t.id, t.data_type, t.dims_order, t.num_dims, t.dims,
                                    gst_buffer_ref (t.data));
  }
  return m != nullptr;
}

gsize element_size (GstDlaTensorDataType type)
{
  return type == GST_DLA_TENSOR_DATA_TYPE_FLOAT16 ? 2 : 4;
}

}  // namespace

GType gst_dla_tensor_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = {nullptr};
  if (g_once_init_enter (&type)) {
    const GType t = gst_meta_api_type_register ("GstDlaTensorMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

const GstMetaInfo *gst_dla_tensor_meta_get_info (void)
{
  static const GstMetaInfo *info = nullptr;
  if (g_once_init_enter (&info)) {
    const GstMetaInfo *i =
        gst_meta_register (GST_DLA_TENSOR_META_API_TYPE, "GstDlaTensorMeta", sizeof (GstDlaTensorMeta),
                           meta_init, meta_free, meta_transform);
    g_once_init_leave (&info, i);
  }
  return info;
}

GstDlaTensorMeta *gst_buffer_add_dla_tensor_meta (GstBuffer *buffer, GQuark element)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), nullptr);
  auto *m =
      reinterpret_cast<GstDlaTensorMeta *> (gst_buffer_add_meta (buffer, GST_DLA_TENSOR_META_INFO, nullptr));
  if (m)
    m->element = element;
  return m;
}

GstDlaTensorMeta *gst_buffer_get_dla_tensor_meta (GstBuffer *buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), nullptr);
  return reinterpret_cast<GstDlaTensorMeta *> (gst_buffer_get_meta (buffer, GST_DLA_TENSOR_META_API_TYPE));
}

gboolean gst_dla_tensor_meta_add_tensor (GstDlaTensorMeta *meta, GQuark id, GstDlaTensorDataType data_type,
                                         GstDlaTensorDimOrder dims_order, gsize num_dims, const gsize *dims,
                                         GstBuffer *data)
{
  g_return_val_if_fail (meta != nullptr && GST_IS_BUFFER (data), FALSE);
  gsize elements = 1;
  for (gsize i = 0; dims && i < num_dims; ++i)
    elements *= dims[i];
  if (num_dims < 1 || num_dims > GST_DLA_TENSOR_MAX_DIMS || !dims ||
      gst_buffer_get_size (data) != elements * element_size (data_type)) {
    gst_buffer_unref (data);
    return FALSE;
  }
  meta->tensors = g_renew (GstDlaTensor, meta->tensors, meta->num_tensors + 1);
  GstDlaTensor &t = meta->tensors[meta->num_tensors++];
  t = GstDlaTensor{};
  t.id = id;
  t.data_type = data_type;
  t.data = data;
  t.dims_order = dims_order;
  t.num_dims = num_dims;
  for (gsize i = 0; i < num_dims; ++i)
    t.dims[i] = dims[i];
  return TRUE;
}

gsize gst_dla_tensor_meta_get_n_tensors (const GstDlaTensorMeta *meta)
{
  g_return_val_if_fail (meta != nullptr, 0);
  return meta->num_tensors;
}

gint gst_dla_tensor_meta_get_index_from_id (const GstDlaTensorMeta *meta, const gchar *id)
{
  g_return_val_if_fail (meta != nullptr && id != nullptr, -1);
  const GQuark q = g_quark_try_string (id);
  for (gsize i = 0; q && i < meta->num_tensors; ++i)
    if (meta->tensors[i].id == q)
      return gint (i);
  return -1;
}

const gchar *gst_dla_tensor_meta_get_id (const GstDlaTensorMeta *meta, gsize index)
{
  g_return_val_if_fail (meta != nullptr, nullptr);
  return index < meta->num_tensors ? g_quark_to_string (meta->tensors[index].id) : nullptr;
}

GstDlaTensorDataType gst_dla_tensor_meta_get_data_type (const GstDlaTensorMeta *meta, gsize index)
{
  g_return_val_if_fail (meta != nullptr && index < meta->num_tensors, GST_DLA_TENSOR_DATA_TYPE_FLOAT32);
  return meta->tensors[index].data_type;
}

GstDlaTensorDimOrder gst_dla_tensor_meta_get_dims_order (const GstDlaTensorMeta *meta, gsize index)
{
  g_return_val_if_fail (meta != nullptr && index < meta->num_tensors, GST_DLA_TENSOR_DIM_ORDER_ROW_MAJOR);
  return meta->tensors[index].dims_order;
}

const gsize *gst_dla_tensor_meta_get_dims (const GstDlaTensorMeta *meta, gsize index, gsize *num_dims)
{
  g_return_val_if_fail (meta != nullptr && num_dims != nullptr, nullptr);
  *num_dims = index < meta->num_tensors ? meta->tensors[index].num_dims : 0;
  return index < meta->num_tensors ? meta->tensors[index].dims : nullptr;
}

GstBuffer *gst_dla_tensor_meta_get_data (const GstDlaTensorMeta *meta, gsize index)
{
  g_return_val_if_fail (meta != nullptr, nullptr);
  return index < meta->num_tensors ? meta->tensors[index].data : nullptr;
}
