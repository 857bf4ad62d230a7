/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the raw output tensors dlainfer attaches with tensor-meta=true on GStreamer 1.22 and
 * 1.24, where GStreamer has no public tensor meta (1.26 and later get upstream's GstTensorMeta
 * instead) — part of the public metadata library (libgstdlainfer-1.0).
 *
 * Installed as <gst/dlainfer/gstdlatensormeta.h>. The fields are upstream GstTensor's (id, data
 * type, data, dims order, dims) with the same enum values, so code written for one reads the other:
 *
 *   GstDlaTensorMeta *m = gst_buffer_get_dla_tensor_meta (buffer);
 *   gint i = m ? gst_dla_tensor_meta_get_index_from_id (m, "classification-generic-out") : -1;
 *   gsize n_dims;
 *   const gsize *dims = i >= 0 ? gst_dla_tensor_meta_get_dims (m, i, &n_dims) : NULL;
 *
 * As for GstDlaClassificationMeta, read it through the accessors (Python sees only those); the
 * structs keep their public fields' offsets and have room to grow. */
#pragma once

#include <gst/gst.h>

/* Same folder, in the build tree and installed: GST_DLA_API. */
#include "gstdlameta.h"

G_BEGIN_DECLS

/**
 * GstDlaTensorDataType:
 * @GST_DLA_TENSOR_DATA_TYPE_FLOAT16: IEEE binary16
 * @GST_DLA_TENSOR_DATA_TYPE_FLOAT32: IEEE binary32
 *
 * The element type of a tensor's data, with GstTensorDataType's values (GStreamer >= 1.26).
 */
typedef enum {
  GST_DLA_TENSOR_DATA_TYPE_FLOAT16 = 10,
  GST_DLA_TENSOR_DATA_TYPE_FLOAT32 = 11,
} GstDlaTensorDataType;

/**
 * GstDlaTensorDimOrder:
 * @GST_DLA_TENSOR_DIM_ORDER_ROW_MAJOR: the last dimension varies fastest
 * @GST_DLA_TENSOR_DIM_ORDER_COL_MAJOR: the first dimension varies fastest
 *
 * How a tensor's elements are laid out, with GstTensorDimOrder's values.
 */
typedef enum {
  GST_DLA_TENSOR_DIM_ORDER_ROW_MAJOR = 0,
  GST_DLA_TENSOR_DIM_ORDER_COL_MAJOR = 1,
} GstDlaTensorDimOrder;

/**
 * GST_DLA_TENSOR_MAX_DIMS:
 *
 * The most dimensions a #GstDlaTensor has (dlainfer's are 2 or 4).
 */
#define GST_DLA_TENSOR_MAX_DIMS 8

/**
 * GstDlaTensor:
 * @id: what the tensor holds, as a quark (e.g. "classification-generic-out")
 * @data_type: the element type
 * @data: the elements, contiguous, in @dims_order; owned by the meta
 * @dims_order: the order of the elements
 * @num_dims: how many of @dims are used
 * @dims: the dimensions
 *
 * One tensor, dense (no padding).
 */
typedef struct {
  GQuark id;
  GstDlaTensorDataType data_type;
  GstBuffer *data;
  GstDlaTensorDimOrder dims_order;
  gsize num_dims;
  gsize dims[GST_DLA_TENSOR_MAX_DIMS];

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstDlaTensor;

/**
 * GstDlaTensorMeta:
 * @meta: the parent #GstMeta
 * @num_tensors: number of entries in @tensors
 * @tensors: the tensors, in the model's output order; owned by the meta
 * @element: the name of the dlainfer element that attached them, as a quark
 *
 * Every output of one inference. The fields above keep their offsets; what follows is private.
 */
typedef struct {
  GstMeta meta;

  gsize num_tensors;
  GstDlaTensor *tensors;
  GQuark element;

  /*< private >*/
  gpointer priv;
  gpointer _gst_reserved[GST_PADDING_LARGE];
} GstDlaTensorMeta;

/**
 * gst_dla_tensor_meta_api_get_type:
 *
 * Returns: the #GType of the tensor meta's API
 */
GST_DLA_API GType gst_dla_tensor_meta_api_get_type (void);
#define GST_DLA_TENSOR_META_API_TYPE (gst_dla_tensor_meta_api_get_type ())

/**
 * gst_dla_tensor_meta_get_info:
 *
 * Returns: (transfer none): the #GstMetaInfo of the tensor meta
 */
GST_DLA_API const GstMetaInfo *gst_dla_tensor_meta_get_info (void);
#define GST_DLA_TENSOR_META_INFO (gst_dla_tensor_meta_get_info ())

/**
 * gst_buffer_add_dla_tensor_meta:
 * @buffer: a writable buffer
 * @element: the producing element's name, as a quark
 *
 * Adds an empty tensor meta; fill it with gst_dla_tensor_meta_add_tensor().
 *
 * Returns: (transfer none) (nullable): the meta
 */
GST_DLA_API GstDlaTensorMeta *gst_buffer_add_dla_tensor_meta (GstBuffer *buffer, GQuark element);

/**
 * gst_buffer_get_dla_tensor_meta:
 * @buffer: a buffer
 *
 * Returns: (transfer none) (nullable): the first tensor meta of @buffer, or %NULL
 */
GST_DLA_API GstDlaTensorMeta *gst_buffer_get_dla_tensor_meta (GstBuffer *buffer);

/**
 * gst_dla_tensor_meta_add_tensor:
 * @meta: a #GstDlaTensorMeta
 * @id: what the tensor holds, as a quark
 * @data_type: the element type
 * @dims_order: the order of the elements
 * @num_dims: how many dimensions (1 to %GST_DLA_TENSOR_MAX_DIMS)
 * @dims: (array length=num_dims): the dimensions
 * @data: (transfer full): the elements: their product times the element size in bytes
 *
 * Appends a tensor.
 *
 * Returns: %FALSE (and @data is unreffed) when @num_dims or the size of @data does not fit
 */
GST_DLA_API gboolean gst_dla_tensor_meta_add_tensor (GstDlaTensorMeta *meta, GQuark id,
                                                     GstDlaTensorDataType data_type,
                                                     GstDlaTensorDimOrder dims_order, gsize num_dims,
                                                     const gsize *dims, GstBuffer *data);

/**
 * gst_dla_tensor_meta_get_n_tensors:
 * @meta: a #GstDlaTensorMeta
 *
 * Returns: the number of tensors
 */
GST_DLA_API gsize gst_dla_tensor_meta_get_n_tensors (const GstDlaTensorMeta *meta);

/**
 * gst_dla_tensor_meta_get_index_from_id:
 * @meta: a #GstDlaTensorMeta
 * @id: a tensor id, e.g. "classification-generic-out"
 *
 * Returns: the index of the first tensor with @id, or -1
 */
GST_DLA_API gint gst_dla_tensor_meta_get_index_from_id (const GstDlaTensorMeta *meta, const gchar *id);

/**
 * gst_dla_tensor_meta_get_id:
 * @meta: a #GstDlaTensorMeta
 * @index: which tensor
 *
 * Returns: (transfer none) (nullable): the tensor's id, %NULL when @index is out of range
 */
GST_DLA_API const gchar *gst_dla_tensor_meta_get_id (const GstDlaTensorMeta *meta, gsize index);

/**
 * gst_dla_tensor_meta_get_data_type:
 * @meta: a #GstDlaTensorMeta
 * @index: which tensor (must be in range)
 *
 * Returns: the tensor's element type
 */
GST_DLA_API GstDlaTensorDataType gst_dla_tensor_meta_get_data_type (const GstDlaTensorMeta *meta,
                                                                    gsize index);

/**
 * gst_dla_tensor_meta_get_dims_order:
 * @meta: a #GstDlaTensorMeta
 * @index: which tensor (must be in range)
 *
 * Returns: the tensor's element order
 */
GST_DLA_API GstDlaTensorDimOrder gst_dla_tensor_meta_get_dims_order (const GstDlaTensorMeta *meta,
                                                                     gsize index);

/**
 * gst_dla_tensor_meta_get_dims:
 * @meta: a #GstDlaTensorMeta
 * @index: which tensor
 * @num_dims: (out): the number of dimensions (0 when @index is out of range)
 *
 * Returns: (array length=num_dims) (transfer none) (nullable): the dimensions
 */
GST_DLA_API const gsize *gst_dla_tensor_meta_get_dims (const GstDlaTensorMeta *meta, gsize index,
                                                       gsize *num_dims);

/**
 * gst_dla_tensor_meta_get_data:
 * @meta: a #GstDlaTensorMeta
 * @index: which tensor
 *
 * Returns: (transfer none) (nullable): the tensor's elements, %NULL when @index is out of range
 */
GST_DLA_API GstBuffer *gst_dla_tensor_meta_get_data (const GstDlaTensorMeta *meta, gsize index);

G_END_DECLS
