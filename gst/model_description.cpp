/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/model_description.h"

namespace dlainfer {
namespace {

GstStructure *tensor_structure (const dla::TensorInfo &t)
{
  const tensor::View &v = t.view;
  return gst_structure_new (
      "tensor", "name", G_TYPE_STRING, t.name.c_str (), "layout", G_TYPE_STRING,
      tensor::layout_name (v.layout), "type", G_TYPE_STRING, tensor::elem_type_name (v.type), "n",
      G_TYPE_INT64, gint64 (v.n), "c", G_TYPE_INT64, gint64 (v.c), "h", G_TYPE_INT64, gint64 (v.h), "w",
      G_TYPE_INT64, gint64 (v.w), "size", G_TYPE_INT64, gint64 (v.size), "row-stride", G_TYPE_INT64,
      gint64 (v.row_stride), "plane-stride", G_TYPE_INT64, gint64 (v.plane_stride), "batch-stride",
      G_TYPE_INT64, gint64 (v.batch_stride), "reading", G_TYPE_STRING, t.reading.c_str (), "raw",
      G_TYPE_STRING, dla::describe_raw (t.raw).c_str (), nullptr);
}

void set_tensors (GstStructure *s, const char *field, const std::vector<dla::TensorInfo> *tensors)
{
  GValue array = G_VALUE_INIT;
  g_value_init (&array, GST_TYPE_ARRAY);
  if (tensors) {
    for (const dla::TensorInfo &t : *tensors) {
      GValue item = G_VALUE_INIT;
      g_value_init (&item, GST_TYPE_STRUCTURE);
      g_value_take_boxed (&item, tensor_structure (t));
      gst_value_array_append_and_take_value (&array, &item);
    }
  }
  gst_structure_take_value (s, field, &array);
}

}  // namespace

GstStructure *model_info_structure (const ModelDescription &d)
{
  GstStructure *s = gst_structure_new (
      "dlainfer-model-info", "model", G_TYPE_STRING, d.model.c_str (), "backend", G_TYPE_STRING,
      d.backend.c_str (), "cudla-version", G_TYPE_STRING, d.cudla_version.c_str (), "library", G_TYPE_STRING,
      d.library.c_str (), "dla-core", G_TYPE_INT, d.dla_core, "cuda-device", G_TYPE_INT, d.cuda_device,
      "classes", G_TYPE_INT, d.classes, "labels", G_TYPE_INT, d.labels, nullptr);
  if (!d.instance.empty ())
    gst_structure_set (s, "model-instance-id", G_TYPE_STRING, d.instance.c_str (), nullptr);
  GstStructure *origin = gst_structure_new_empty ("settings-source");
  if (d.origin)
    for (const auto &o : *d.origin)
      gst_structure_set (origin, o.first.c_str (), G_TYPE_STRING, o.second.c_str (), nullptr);
  GValue cores = G_VALUE_INIT;
  g_value_init (&cores, GST_TYPE_ARRAY);
  for (int c : d.dla_cores) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, G_TYPE_INT);
    g_value_set_int (&v, c);
    gst_value_array_append_and_take_value (&cores, &v);
  }
  gst_structure_take_value (s, "dla-cores", &cores);
  gst_structure_set (s, "modelinfo", G_TYPE_STRING, d.modelinfo.c_str (), "settings-source",
                     GST_TYPE_STRUCTURE, origin, nullptr);
  gst_structure_free (origin);
  set_tensors (s, "inputs", d.inputs);
  set_tensors (s, "outputs", d.outputs);
  gst_structure_set (s, "description", G_TYPE_STRING, d.description.c_str (), nullptr);
  return s;
}

}  // namespace dlainfer
