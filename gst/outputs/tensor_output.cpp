/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gst/meta/gstdlatensormeta.h"
#include "gst/outputs/tensor_output.h"

#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 26, 0)
#include <gst/analytics/analytics.h>
#define DLAINFER_UPSTREAM_TENSORS 1
#endif

namespace dlainfer {

GstBuffer *depad_to_buffer (const TensorPlan &plan, const void *data, GstBufferPool *pool)
{
  GstBuffer *out = nullptr;
  if (!pool || gst_buffer_pool_acquire_buffer (pool, &out, nullptr) != GST_FLOW_OK)
    out = gst_buffer_new_allocate (nullptr, depad::dense_bytes (plan.view, plan.type), nullptr);
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

void TensorOutput::PoolFree::operator() (GstBufferPool *pool) const
{
  gst_buffer_pool_set_active (pool, FALSE); /* buffers still downstream are freed when released */
  gst_object_unref (pool);
}

namespace {

GstBufferPool *make_pool (guint size)
{
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, nullptr, size, 2, 0);
  if (!gst_buffer_pool_set_config (pool, config) || !gst_buffer_pool_set_active (pool, TRUE)) {
    gst_object_unref (pool);
    return nullptr; /* depad_to_buffer allocates instead */
  }
  return pool;
}

}  // namespace

void TensorOutput::prepare (const std::vector<dla::TensorInfo> &outputs, const Settings &s, int classes,
                            GQuark element)
{
  plans_ = plan_tensors (outputs, s, classes);
  warned_copies_ = false;
  pools_.clear ();
  for (const TensorPlan &p : plans_)
    pools_.emplace_back (s.tensor_meta ? make_pool (guint (depad::dense_bytes (p.view, p.type))) : nullptr);
  attach_ = s.tensor_meta;
  classifier_ = classes > 0;
  input_scale_ = s.input_scale;
  element_ = element;
}

bool TensorOutput::start_device (dla::Engine &engine, std::string *error)
{
  device_.clear ();
  if (!attach_ || plans_.empty ())
    return true;
  return device_.start (engine, plans_, error);
}

bool TensorOutput::start_device (int cuda_device, int slots, dla::AfterTask *after, std::string *error)
{
  device_.clear ();
  return !attach_ || plans_.empty () || device_.start (cuda_device, slots, plans_, after, error);
}

void TensorOutput::attach_device (GstElement *element, GstBuffer *buf, int slot)
{
  values_.clear ();
  for (size_t i = 0; i < plans_.size (); ++i)
    values_.push_back (device_.take (slot, i, pools_[i].get ()));
  attach_values (buf, values_);
  if (element && !warned_copies_ && device_.copies () > 0) {
    /* Not an error: the frames go on, each tensor then costs a host copy. */
    warned_copies_ = true;
    GST_ELEMENT_WARNING (
        element, RESOURCE, NO_SPACE_LEFT,
        ("raw tensors: downstream holds every pinned buffer of the pool (max-in-flight + 16 "
         "per output); from now on a tensor whose buffer is not back is copied on the host"),
        ("release the buffers (their GstTensorMeta) sooner downstream, or raise max-in-flight; "
         "stats' tensor-copies counts the copies"));
  }
}

const float *TensorOutput::class_scores (int slot) const
{
  return classifier_ && device_.active () ? static_cast<const float *> (device_.values (slot, 0)) : nullptr;
}

void TensorOutput::attach (GstElement *element, GstBuffer *buf, dla::Engine &engine, int slot)
{
  if (attach_ && device_.active ()) {
    attach_device (element, buf, slot);
  } else if (attach_) {
    std::vector<const void *> outputs;
    for (size_t i = 0; i < plans_.size (); ++i)
      outputs.push_back (engine.host_output (slot, int (i)));
    attach_host (buf, outputs);
  }
  std::string error;
  if (!dump_.write (engine, slot, plans_, input_scale_, &error))
    GST_ELEMENT_WARNING (element, RESOURCE, WRITE, ("%s", error.c_str ()), ("dump-count is now 0"));
}

#ifdef DLAINFER_UPSTREAM_TENSORS

bool upstream_tensor_meta ()
{
  return true;
}

void TensorOutput::attach_values (GstBuffer *buf, const std::vector<GstBuffer *> &values)
{
  /* A buffer has one GstTensorMeta: another element's tensors (a second dlainfer) are kept, first. */
  GstTensorMeta *meta = gst_buffer_get_tensor_meta (buf);
  const gsize kept = meta ? meta->num_tensors : 0;
  GstTensor **tensors = g_new0 (GstTensor *, kept + plans_.size ());
  guint n = 0;
  for (gsize i = 0; i < kept; ++i)
    tensors[n++] = gst_tensor_copy (meta->tensors[i]);
  for (size_t i = 0; i < plans_.size (); ++i) {
    const TensorPlan &p = plans_[i];
    GstBuffer *data = values[i];
    if (!data)
      continue;
    /* The API takes the dims non-const and copies them: no copy of ours per frame. */
    tensors[n++] = gst_tensor_new_simple (
        p.id, p.type == depad::Type::kFloat16 ? GST_TENSOR_DATA_TYPE_FLOAT16 : GST_TENSOR_DATA_TYPE_FLOAT32,
        data, GST_TENSOR_DIM_ORDER_ROW_MAJOR, p.dims.size (), const_cast<gsize *> (p.dims.data ()));
  }
  gst_tensor_meta_set (meta ? meta : gst_buffer_add_tensor_meta (buf), n, tensors);
}

#else

bool upstream_tensor_meta ()
{
  return false;
}

void TensorOutput::attach_values (GstBuffer *buf, const std::vector<GstBuffer *> &values)
{
  GstDlaTensorMeta *meta = gst_buffer_add_dla_tensor_meta (buf, element_);
  for (size_t i = 0; i < plans_.size (); ++i) {
    const TensorPlan &p = plans_[i];
    GstBuffer *data = values[i];
    if (data && !meta)
      gst_buffer_unref (data);
    else if (data)
      gst_dla_tensor_meta_add_tensor (meta, p.id,
                                      p.type == depad::Type::kFloat16 ? GST_DLA_TENSOR_DATA_TYPE_FLOAT16
                                                                      : GST_DLA_TENSOR_DATA_TYPE_FLOAT32,
                                      GST_DLA_TENSOR_DIM_ORDER_ROW_MAJOR, p.dims.size (), p.dims.data (),
                                      data);
  }
}

#endif

void TensorOutput::attach_host (GstBuffer *buf, const std::vector<const void *> &outputs)
{
  if (!attach_ || plans_.empty ())
    return;
  values_.clear ();
  for (size_t i = 0; i < plans_.size (); ++i)
    values_.push_back (depad_to_buffer (plans_[i], outputs[i], pools_[i].get ()));
  attach_values (buf, values_);
}

}  // namespace dlainfer
