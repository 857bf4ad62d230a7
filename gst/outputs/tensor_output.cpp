#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gst/meta/gstdlatensormeta.h"
#include "gst/modelinfo.h"
#include "gst/outputs/tensor_output.h"

#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 26, 0)
#include <gst/analytics/analytics.h>
#define DLAINFER_UPSTREAM_TENSORS 1
#endif

namespace dlainfer {
namespace {

constexpr const char *kClassVectorId = "classification-generic-out";

TensorPlan plan_one (const dla::TensorInfo &t, const Settings &s, bool class_vector, int classes)
{
  TensorPlan p;
  p.name = t.name;
  p.view = t.view;
  p.int8_scale = s.output_scale > 0.f ? s.output_scale : 1.f;
  const ModelInfoTensor *mi = s.modelinfo ? s.modelinfo->find (t.name) : nullptr;
  std::string id = mi && !mi->id.empty () ? mi->id : class_vector ? kClassVectorId : t.name;
  p.id = g_quark_from_string (id.c_str ());
  if (class_vector) {
    p.view.c = classes; /* pad lanes the labels resolved are no classes */
    p.dims = {gsize (p.view.n), gsize (classes)};
    return p; /* always FLOAT32: the decoder reads nothing else */
  }
  const bool fp16 =
      s.user_set.count ("tensor-type") || !mi || mi->type.empty () ? s.tensor_fp16 : mi->type == "float16";
  p.type = fp16 ? depad::Type::kFloat16 : depad::Type::kFloat32;
  p.dims = {gsize (p.view.n), gsize (p.view.c), gsize (p.view.h), gsize (p.view.w)};
  return p;
}

}  // namespace

std::vector<TensorPlan> plan_tensors (const std::vector<dla::TensorInfo> &outputs, const Settings &s,
                                      int classes)
{
  std::vector<TensorPlan> plans;
  for (size_t i = 0; i < outputs.size (); ++i)
    plans.push_back (plan_one (outputs[i], s, i == 0 && classes > 0, classes));
  return plans;
}

GstBuffer *depad_to_buffer (const TensorPlan &plan, const void *data)
{
  GstBuffer *out = gst_buffer_new_allocate (nullptr, depad::dense_bytes (plan.view, plan.type), nullptr);
  GstMapInfo map;
  if (!out || !gst_buffer_map (out, &map, GST_MAP_WRITE)) {
    if (out)
      gst_buffer_unref (out);
    return nullptr;
  }
  depad::depad (plan.view, data, plan.int8_scale, plan.type, map.data);
  gst_buffer_unmap (out, &map);
  return out;
}

void TensorOutput::prepare (const std::vector<dla::TensorInfo> &outputs, const Settings &s, int classes,
                            GQuark element)
{
  plans_ = s.tensor_meta ? plan_tensors (outputs, s, classes) : std::vector<TensorPlan> ();
  element_ = element;
}

void TensorOutput::attach (GstBuffer *buf, const dla::Engine &engine, int slot) const
{
  if (plans_.empty ())
    return;
  std::vector<const void *> outputs;
  for (size_t i = 0; i < plans_.size (); ++i)
    outputs.push_back (engine.host_output (slot, int (i)));
  attach_host (buf, outputs);
}

#ifdef DLAINFER_UPSTREAM_TENSORS

bool upstream_tensor_meta ()
{
  return true;
}

void TensorOutput::attach_host (GstBuffer *buf, const std::vector<const void *> &outputs) const
{
  if (plans_.empty ())
    return;
  GstTensor **tensors = g_new0 (GstTensor *, plans_.size ());
  guint n = 0;
  for (size_t i = 0; i < plans_.size (); ++i) {
    const TensorPlan &p = plans_[i];
    GstBuffer *data = depad_to_buffer (p, outputs[i]);
    if (!data)
      continue;
    std::vector<gsize> dims = p.dims; /* the API takes them non-const */
    tensors[n++] = gst_tensor_new_simple (
        p.id, p.type == depad::Type::kFloat16 ? GST_TENSOR_DATA_TYPE_FLOAT16 : GST_TENSOR_DATA_TYPE_FLOAT32,
        data, GST_TENSOR_DIM_ORDER_ROW_MAJOR, dims.size (), dims.data ());
  }
  gst_tensor_meta_set (gst_buffer_add_tensor_meta (buf), n, tensors);
}

#else

bool upstream_tensor_meta ()
{
  return false;
}

void TensorOutput::attach_host (GstBuffer *buf, const std::vector<const void *> &outputs) const
{
  if (plans_.empty ())
    return;
  GstDlaTensorMeta *meta = gst_buffer_add_dla_tensor_meta (buf, element_);
  for (size_t i = 0; meta && i < plans_.size (); ++i) {
    const TensorPlan &p = plans_[i];
    GstBuffer *data = depad_to_buffer (p, outputs[i]);
    if (data)
      gst_dla_tensor_meta_add_tensor (meta, p.id,
                                      p.type == depad::Type::kFloat16 ? GST_DLA_TENSOR_DATA_TYPE_FLOAT16
                                                                      : GST_DLA_TENSOR_DATA_TYPE_FLOAT32,
                                      GST_DLA_TENSOR_DIM_ORDER_ROW_MAJOR, p.dims.size (), p.dims.data (),
                                      data);
  }
}

#endif

}  // namespace dlainfer
