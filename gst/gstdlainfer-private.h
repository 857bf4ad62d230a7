/* gst-dlainfer: the dlainfer element's instance data, shared by its source files
 * (gstdlainfer.cpp: the element's life and per-frame flow; gstdlainferprops.cpp: its properties). */
#pragma once

#include <gst/cuda/gstcudacontext.h>
#include <gst/video/video.h>

#include <memory>
#include <string>
#include <vector>

#include "engine.h"
#include "gstdlainfer.h"
#include "gstdlameta.h"
#include "interval.h"
#include "launch_graphs.h"
#include "postprocess.h"
#include "preprocess.h"
#include "primary_context.h"
#include "settings.h"
#include "staging.h"
#include "stats.h"

GST_DEBUG_CATEGORY_EXTERN (gst_dla_infer_debug);

/* C++ state of one element: new'd in _init, deleted in _finalize. */
struct GstDlaInferPrivate {
  /* Properties; GST_OBJECT_LOCK. */
  dlainfer::Settings settings;
  GstStructure *model_info = nullptr; /* the open model (model-info), made in start, freed in stop */

  /* The `stats` property; its own lock. Reset at start, kept after stop for a last read. */
  dlainfer::Stats stats;

  /* The one CUDA context (ARCHITECTURE section 4), held from NULL->READY to READY->NULL.
   * `context` is read by context queries from other threads: GST_OBJECT_LOCK. */
  dla::PrimaryContext primary;
  GstCudaContext *context = nullptr;
  GstCudaContext *offered = nullptr; /* a neighbour's GstCudaContext, adopted if it wraps `primary` */
  std::string context_error;         /* why there is no context (reported at start) */

  /* Made in start/set_caps, released in stop; streaming thread only. */
  std::unique_ptr<dla::Engine> engine;
  std::unique_ptr<preprocess::LaunchGraphs> graphs; /* the kernel's launches; in the primary context */
  std::vector<std::string> labels;
  std::vector<GQuark> label_quarks;
  tensor::View input_view{};  /* what the kernel writes: the model's input with c = 3 */
  tensor::View output_view{}; /* the class scores: the first output, c = the class count */
  GQuark element_quark = 0;
  GQuark backend_quark = 0;
  GstVideoInfo info{};
  preprocess::SourceView source{};
  dlainfer::Staging staging;
  bool foreign_context_logged = false;
  dlainfer::Interval interval; /* which frames run the model; meta_results is the result carried */

  /* Per-frame scratch, sized once so frames do not allocate. */
  preprocess::KernelLaunch launch{};
  std::vector<float> scores;
  std::vector<postprocess::Result> results;
  std::vector<GstDlaClassification> meta_results;
  std::vector<float> analytics_confidences; /* meta_results split for GstAnalyticsClsMtd */
  std::vector<GQuark> analytics_labels;
};

struct _GstDlaInfer {
  GstBaseTransform parent;
  GstDlaInferPrivate *priv;
};

/* The property table (gstdlainferprops.cpp). */
void gst_dla_infer_install_properties (GObjectClass *klass);
void gst_dla_infer_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec);
void gst_dla_infer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec);

#define GST_TYPE_DLA_INFER_CHANNEL_ORDER (gst_dla_infer_channel_order_get_type ())
GType gst_dla_infer_channel_order_get_type (void);
#define GST_TYPE_DLA_INFER_RESIZE_MODE (gst_dla_infer_resize_mode_get_type ())
GType gst_dla_infer_resize_mode_get_type (void);
#define GST_TYPE_DLA_INFER_ACTIVATION (gst_dla_infer_activation_get_type ())
GType gst_dla_infer_activation_get_type (void);
