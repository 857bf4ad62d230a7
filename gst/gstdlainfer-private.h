/* gst-dlainfer: the dlainfer element's instance data, shared by its source files
 * (gstdlainfer.cpp: the element's life and per-frame flow; gstdlainferprops.cpp: its properties).
 * Grouped by lifetime; each group is one part of the element with its own file. */
#pragma once

#include <gst/gst.h>

#include <memory>

#include "gst/cuda_context.h"
#include "gst/frame_input.h"
#include "gst/gstdlainfer.h"
#include "gst/interval.h"
#include "gst/model.h"
#include "gst/outputs/classification.h"
#include "gst/outputs/tensor_output.h"
#include "gst/settings.h"
#include "gst/stats.h"

GST_DEBUG_CATEGORY_EXTERN (gst_dla_infer_debug);

/* C++ state of one element: new'd in _init, deleted in _finalize. */
struct GstDlaInferPrivate {
  /* The element's life. Properties: GST_OBJECT_LOCK. The `stats` property: its own lock; reset at
   * start, kept after stop for a last read. */
  dlainfer::Settings settings;
  dlainfer::Stats stats;

  /* NULL->READY to READY->NULL: the one CUDA context, shared with neighbours (cuda_context.h). */
  dlainfer::CudaContext cuda;

  /* start to stop, streaming thread: the open model (model.h), the frames' way into it
   * (frame_input.h, configured again by each set_caps), the results shown (outputs/). The open
   * model's description (`model-info`): GST_OBJECT_LOCK. */
  std::unique_ptr<dlainfer::Model> model;
  GstStructure *model_info = nullptr;
  dlainfer::FrameInput input;
  dlainfer::ClassificationOutput output;
  dlainfer::TensorOutput tensors;

  /* The stream (reset at start, flush and stream-start): which frames run the model. */
  dlainfer::Interval interval;

  /* Streaming thread (and start): when `stats` was last notified (g_get_monotonic_time). */
  gint64 stats_notified_us = 0;
};

struct _GstDlaInfer {
  GstBaseTransform parent;
  GstDlaInferPrivate *priv;
};

/* The property table (gstdlainferprops.cpp). */
void gst_dla_infer_install_properties (GObjectClass *klass);
void gst_dla_infer_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec);
void gst_dla_infer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec);

/* g_object_notify_by_pspec for the read-only properties: `model-info` once after start, `stats`
 * at most once a second and at EOS. Any thread; never with the object lock held. */
enum GstDlaInferNotify { GST_DLA_INFER_NOTIFY_STATS, GST_DLA_INFER_NOTIFY_MODEL_INFO };
void gst_dla_infer_notify (GstDlaInfer *self, GstDlaInferNotify which);

#define GST_TYPE_DLA_INFER_CHANNEL_ORDER (gst_dla_infer_channel_order_get_type ())
GType gst_dla_infer_channel_order_get_type (void);
#define GST_TYPE_DLA_INFER_RESIZE_MODE (gst_dla_infer_resize_mode_get_type ())
GType gst_dla_infer_resize_mode_get_type (void);
#define GST_TYPE_DLA_INFER_ACTIVATION (gst_dla_infer_activation_get_type ())
GType gst_dla_infer_activation_get_type (void);
#define GST_TYPE_DLA_INFER_TENSOR_TYPE (gst_dla_infer_tensor_type_get_type ())
GType gst_dla_infer_tensor_type_get_type (void);
