/**
 * SECTION:element-dlainfer
 * @title: dlainfer
 *
 * Classifies video frames on NVIDIA's Deep Learning Accelerator (DLA) through cuDLA in hybrid mode,
 * and attaches the result (GstDlaClassificationMeta) to each buffer, which passes unchanged.
 *
 * Frames in CUDA memory (`memory:CUDAMemory`) or system memory, in NV12, I420, RGBA, BGRA, RGBx or
 * BGRx, go through one fused CUDA kernel (colour conversion, resize, mean/std, FP16/INT8) straight
 * into the DLA's input tensor. The element works in the device's primary CUDA context and offers
 * it to its neighbours, so `cudaupload`, `cudaconvert` and decoders allocate in the same context.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! cudaupload ! \
 *     dlainfer model=resnet50.dla.bin labels=imagenet.txt mean="<0.485,0.456,0.406>" \
 *              std="<0.229,0.224,0.225>" ! fakesink
 * ]|
 * ## Results on the bus, every 5th frame inferred
 * |[
 * gst-launch-1.0 -m videotestsrc ! cudaupload ! dlainfer model=resnet50.dla.bin labels=imagenet.txt \
 *     resize-mode=center-crop interval=4 top-k=3 post-messages=true ! fakesink
 * ]|
 * Applications read GstDlaClassificationMeta (library gstreamer-dlainfer-1.0, header
 * <gst/dlainfer/gstdlameta.h>); with GStreamer >= 1.24 the results are also a GstAnalyticsClsMtd
 * in the buffer's GstAnalyticsRelationMeta. `stats` and `model-info` describe the running element.
 * The model is a cuDLA loadable (`trtexec --useDLACore=0 --buildDLAStandalone --fp16
 * --inputIOFormats=fp16:chw16 --outputIOFormats=fp16:chw16 --saveEngine=model.dla.bin`).
 * `DLAINFER_CUDLA_LIBRARY` names another cuDLA library (the software DLA used by the tests).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include <atomic>
#include <chrono>

#include "analytics_output.h"
#include "frame_source.h"
#include "gstdlainfer-private.h"
#include "gstdlainfer.h"
#include "labels.h"
#include "model_info.h"
#include "result_message.h"
#include "status_names.h"

GST_DEBUG_CATEGORY (gst_dla_infer_debug);
#define GST_CAT_DEFAULT gst_dla_infer_debug

#define DLA_INFER_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx }"
#define DLA_INFER_CAPS                                                                       \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, DLA_INFER_FORMATS) \
  ";" GST_VIDEO_CAPS_MAKE (DLA_INFER_FORMATS)

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (DLA_INFER_CAPS));
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (DLA_INFER_CAPS));

#define gst_dla_infer_parent_class parent_class
G_DEFINE_TYPE (GstDlaInfer, gst_dla_infer, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (dla_infer, "dlainfer", GST_RANK_NONE, GST_TYPE_DLA_INFER,
                                       GST_DEBUG_CATEGORY_INIT (gst_dla_infer_debug, "dlainfer", 0,
                                                                "DLA inference"));

namespace {

/* cudaErrorExternalDevice leaves CUDA unusable in the whole process: once seen, every element
 * refuses to go on. */
std::atomic<bool> cuda_poisoned{false};

constexpr const char *kRestart =
    "The DLA reported a fatal error (cudaErrorExternalDevice): CUDA is unusable in this process; "
    "restart the process";

/* Posts a dla::Status as an error message in the domain its code stands for. Never call with the
 * object lock held. */
void post_status (GstDlaInfer *self, const dla::Status &st, const std::string &debug)
{
  const char *text = st.message.c_str ();
  const char *dbg = debug.c_str ();
  switch (st.code) {
    case dla::Code::kOk:
      break;
    case dla::Code::kNotFound:
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("%s", text), ("%s", dbg));
      break;
    case dla::Code::kSettings:
    case dla::Code::kModel:
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", text), ("%s", dbg));
      break;
    case dla::Code::kInit:
      GST_ELEMENT_ERROR (self, LIBRARY, INIT, ("%s", text), ("%s", dbg));
      break;
    case dla::Code::kRuntime:
    case dla::Code::kTimeout:
    case dla::Code::kFatal:
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", text), ("%s", dbg));
      break;
  }
}

/* The per-frame failure path: a fatal status poisons the process, every status is posted. */
GstFlowReturn frame_failed (GstDlaInfer *self, const dla::Status &st, const char *step)
{
  self->priv->stats.failed ();
  if (st.code == dla::Code::kFatal) {
    cuda_poisoned = true;
    post_status (self, dla::Status::Error (dla::Code::kFatal, kRestart),
                 std::string (step) + ": " + st.message);
  } else {
    post_status (self, st, step);
  }
  return GST_FLOW_ERROR;
}

/* Maps a frame for the scope of a frame's processing. */
class MappedFrame {
 public:
  bool map (const GstVideoInfo *info, GstBuffer *buf, GstMapFlags flags)
  {
    /* NO_REF: the frame's ref would make the buffer read-only for the meta added in place. */
    mapped_ = gst_video_frame_map (&frame_, info, buf, GstMapFlags (flags | GST_VIDEO_FRAME_MAP_FLAG_NO_REF));
    return mapped_;
  }
  void unmap ()
  {
    if (mapped_)
      gst_video_frame_unmap (&frame_);
    mapped_ = false;
  }
  ~MappedFrame () { unmap (); }
  GstVideoFrame *get () { return &frame_; }

 private:
  GstVideoFrame frame_{};
  bool mapped_ = false;
};

GstCudaContext *ref_context (GstDlaInfer *self)
{
  GST_OBJECT_LOCK (self);
  GstCudaContext *ctx =
      self->priv->context ? GST_CUDA_CONTEXT (gst_object_ref (self->priv->context)) : nullptr;
  GST_OBJECT_UNLOCK (self);
  return ctx;
}

/* NULL->READY: retain the primary context and wrap it (or adopt a neighbour's wrapper of it), so
 * neighbours can allocate in it before any caps exist. A failure is not a failed state change:
 * start() reports it, after the checks that need no GPU. */
void open_context (GstDlaInfer *self)
{
  GstDlaInferPrivate *priv = self->priv;
  GST_OBJECT_LOCK (self);
  const int device = priv->settings.device ();
  GstCudaContext *offered = priv->offered;
  priv->offered = nullptr;
  GST_OBJECT_UNLOCK (self);

  priv->context_error.clear ();
  GstCudaContext *ctx = nullptr;
  dla::Status st = dla::PrimaryContext::Retain (device, &priv->primary);
  if (!st.ok ()) {
    priv->context_error = st.message;
  } else if (!gst_cuda_load_library ()) {
    priv->context_error = "GStreamer's CUDA library could not load the CUDA driver (libcuda.so.1)";
  } else if (offered && gst_cuda_context_get_handle (offered) == priv->primary.handle ()) {
    ctx = GST_CUDA_CONTEXT (gst_object_ref (offered));
    GST_DEBUG_OBJECT (
        self, "adopting the neighbour's GstCudaContext %" GST_PTR_FORMAT " (same primary context)", ctx);
  } else {
    ctx = gst_cuda_context_new_wrapped (static_cast<CUcontext> (priv->primary.handle ()),
                                        static_cast<CUdevice> (priv->primary.device ()));
    if (!ctx)
      priv->context_error = "gst_cuda_context_new_wrapped failed for the primary context of CUDA device " +
                            std::to_string (device);
  }
  if (offered)
    gst_object_unref (offered);
  if (!ctx) {
    GST_INFO_OBJECT (self, "no CUDA context: %s", priv->context_error.c_str ());
    return;
  }
  GST_OBJECT_LOCK (self);
  priv->context = ctx;
  GST_OBJECT_UNLOCK (self);
  GST_INFO_OBJECT (self, "using the primary context %p of CUDA device %d as %" GST_PTR_FORMAT,
                   priv->primary.handle (), device, ctx);
  /* Announce it like gst_cuda_ensure_element_context does, so the pipeline hands it out too. */
  GstContext *context = gst_context_new_cuda_context (ctx);
  gst_element_post_message (GST_ELEMENT (self), gst_message_new_have_context (GST_OBJECT (self), context));
}

void close_context (GstDlaInfer *self)
{
  GST_OBJECT_LOCK (self);
  GstCudaContext *ctx = self->priv->context;
  self->priv->context = nullptr;
  GST_OBJECT_UNLOCK (self);
  if (ctx)
    gst_object_unref (ctx);
  self->priv->primary = dla::PrimaryContext ();
}

/* Frames from another CUDA context are read anyway (unified addressing), but said once: two
 * contexts time-slice the GPU. Another device cannot be read. */
bool check_memory_context (GstDlaInfer *self, GstCudaContext *mem_ctx, dla::Status *st)
{
  GstDlaInferPrivate *priv = self->priv;
  if (!mem_ctx || gst_cuda_context_get_handle (mem_ctx) == priv->primary.handle ())
    return true;
  gint device = -1;
  g_object_get (mem_ctx, "cuda-device-id", &device, nullptr);
  if (device != priv->primary.ordinal ()) {
    *st = dla::Status::Error (dla::Code::kRuntime, "The frame is in the memory of CUDA device " +
                                                       std::to_string (device) +
                                                       " but the element runs on device " +
                                                       std::to_string (priv->primary.ordinal ()) +
                                                       ": set cuda-device-id=" + std::to_string (device));
    return false;
  }
  if (!priv->foreign_context_logged) {
    priv->foreign_context_logged = true;
    GST_INFO_OBJECT (
        self,
        "frames come from another CUDA context (%p, ours is the primary context %p): read anyway, but two "
        "contexts time-slice the GPU; let upstream take our context",
        gst_cuda_context_get_handle (mem_ctx), priv->primary.handle ());
  }
  return true;
}

/* Puts meta_results on the buffer: our meta, and a GstAnalyticsClsMtd where the build has it.
 * Nothing here allocates but the metas themselves. */
void attach_results (GstDlaInfer *self, GstBuffer *buf, bool carried, guint age)
{
  GstDlaInferPrivate *priv = self->priv;
  GstDlaClassificationMeta *m = gst_buffer_add_dla_classification_meta (
      buf, priv->meta_results.data (), guint (priv->meta_results.size ()), priv->element_quark,
      priv->backend_quark);
  if (m) {
    m->carried = carried;
    m->age = age;
  }
  /* An empty classification is no ClsMtd (the analytics API wants at least one class). */
  if (!dlainfer::analytics_enabled () || priv->meta_results.empty ())
    return;
  priv->analytics_confidences.clear ();
  priv->analytics_labels.clear ();
  for (const GstDlaClassification &r : priv->meta_results) {
    priv->analytics_confidences.push_back (r.confidence);
    priv->analytics_labels.push_back (r.label);
  }
  if (!dlainfer::add_analytics_classification (buf, priv->analytics_confidences.data (),
                                               priv->analytics_labels.data (),
                                               priv->analytics_labels.size ()))
    GST_DEBUG_OBJECT (self, "could not add the GstAnalyticsClsMtd");
}

/* One "dlainfer-result" element message for an inferred frame (post-messages=true). */
void post_result_message (GstDlaInfer *self, GstBuffer *buf)
{
  GstDlaInferPrivate *priv = self->priv;
  const GstSegment *segment = &GST_BASE_TRANSFORM (self)->segment;
  dlainfer::FrameTimes times;
  times.timestamp = GST_BUFFER_PTS (buf);
  times.duration = GST_BUFFER_DURATION (buf);
  if (segment->format == GST_FORMAT_TIME && GST_CLOCK_TIME_IS_VALID (times.timestamp)) {
    times.running_time = gst_segment_to_running_time (segment, GST_FORMAT_TIME, times.timestamp);
    times.stream_time = gst_segment_to_stream_time (segment, GST_FORMAT_TIME, times.timestamp);
  }
  GstStructure *s = dlainfer::result_structure (
      priv->meta_results.data (), guint (priv->meta_results.size ()), times, priv->backend_quark);
  gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self), s));
}

}  // namespace

static void gst_dla_infer_dispose (GObject *object);
static void gst_dla_infer_finalize (GObject *object);
static GstStateChangeReturn gst_dla_infer_change_state (GstElement *element, GstStateChange transition);
static void gst_dla_infer_set_context (GstElement *element, GstContext *context);
static gboolean gst_dla_infer_start (GstBaseTransform *trans);
static gboolean gst_dla_infer_stop (GstBaseTransform *trans);
static gboolean gst_dla_infer_query (GstBaseTransform *trans, GstPadDirection direction, GstQuery *query);
static gboolean gst_dla_infer_accept_caps (GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps);
static gboolean gst_dla_infer_set_caps (GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps);
static GstFlowReturn gst_dla_infer_transform_ip (GstBaseTransform *trans, GstBuffer *buf);
static gboolean gst_dla_infer_sink_event (GstBaseTransform *trans, GstEvent *event);

static void gst_dla_infer_class_init (GstDlaInferClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->dispose = gst_dla_infer_dispose;
  gobject_class->finalize = gst_dla_infer_finalize;
  gobject_class->set_property = gst_dla_infer_set_property;
  gobject_class->get_property = gst_dla_infer_get_property;
  gst_dla_infer_install_properties (gobject_class);

  gst_element_class_set_static_metadata (
      element_class, "DLA inference", "Filter/Analyzer/Video",
      "Classifies video frames on the NVIDIA DLA (cuDLA hybrid mode) and attaches the results as metadata",
      "gst-dlainfer developers");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  element_class->change_state = GST_DEBUG_FUNCPTR (gst_dla_infer_change_state);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_dla_infer_set_context);

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_dla_infer_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_dla_infer_stop);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_dla_infer_query);
  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_dla_infer_accept_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_dla_infer_set_caps);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_dla_infer_transform_ip);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_dla_infer_sink_event);

  gst_type_mark_as_plugin_api (GST_TYPE_DLA_INFER_CHANNEL_ORDER, GstPluginAPIFlags (0));
  gst_type_mark_as_plugin_api (GST_TYPE_DLA_INFER_RESIZE_MODE, GstPluginAPIFlags (0));
  gst_type_mark_as_plugin_api (GST_TYPE_DLA_INFER_ACTIVATION, GstPluginAPIFlags (0));
}

static void gst_dla_infer_init (GstDlaInfer *self)
{
  self->priv = new GstDlaInferPrivate ();
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  /* Always adds metadata: in place, never passthrough; every frame is inferred, so no QoS drops. */
  gst_base_transform_set_in_place (trans, TRUE);
  gst_base_transform_set_passthrough (trans, FALSE);
  gst_base_transform_set_qos_enabled (trans, FALSE);
}

static void gst_dla_infer_dispose (GObject *object)
{
  GstDlaInfer *self = GST_DLA_INFER (object);
  GST_OBJECT_LOCK (self);
  GstCudaContext *ctx = self->priv->context;
  GstCudaContext *offered = self->priv->offered;
  self->priv->context = nullptr;
  self->priv->offered = nullptr;
  GST_OBJECT_UNLOCK (self);
  if (ctx)
    gst_object_unref (ctx);
  if (offered)
    gst_object_unref (offered);
  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void gst_dla_infer_finalize (GObject *object)
{
  GstDlaInfer *self = GST_DLA_INFER (object);
  if (self->priv->model_info)
    gst_structure_free (self->priv->model_info);
  delete self->priv;
  self->priv = nullptr;
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static GstStateChangeReturn gst_dla_infer_change_state (GstElement *element, GstStateChange transition)
{
  GstDlaInfer *self = GST_DLA_INFER (element);
  if (transition == GST_STATE_CHANGE_NULL_TO_READY)
    open_context (self);
  const GstStateChangeReturn ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_NULL ||
      (transition == GST_STATE_CHANGE_NULL_TO_READY && ret == GST_STATE_CHANGE_FAILURE))
    close_context (self);
  return ret;
}

static void gst_dla_infer_set_context (GstElement *element, GstContext *context)
{
  GstDlaInfer *self = GST_DLA_INFER (element);
  GST_OBJECT_LOCK (self);
  const int device = self->priv->settings.cuda_device_id;
  GST_OBJECT_UNLOCK (self);
  /* Kept only as a candidate: open_context adopts it if it wraps the primary context. */
  GstCudaContext *other = nullptr;
  if (gst_cuda_handle_set_context (element, context, device, &other) && other) {
    GST_OBJECT_LOCK (self);
    std::swap (self->priv->offered, other);
    GST_OBJECT_UNLOCK (self);
    if (other)
      gst_object_unref (other);
  }
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean gst_dla_infer_query (GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  GstDlaInfer *self = GST_DLA_INFER (trans);
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    GstCudaContext *ctx = ref_context (self);
    const gboolean answered = ctx && gst_cuda_handle_context_query (GST_ELEMENT (self), query, ctx);
    if (ctx)
      gst_object_unref (ctx);
    if (answered)
      return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction, query);
}

static gboolean gst_dla_infer_start (GstBaseTransform *trans)
{
  GstDlaInfer *self = GST_DLA_INFER (trans);
  GstDlaInferPrivate *priv = self->priv;

  if (cuda_poisoned) {
    post_status (self, dla::Status::Error (dla::Code::kFatal, kRestart),
                 "an earlier frame hit the 911 error");
    return FALSE;
  }

  GST_OBJECT_LOCK (self);
  const dlainfer::Settings s = priv->settings;
  GST_OBJECT_UNLOCK (self);

  if (s.model.empty ()) {
    post_status (self,
                 dla::Status::Error (dla::Code::kSettings,
                                     "No model set: set the 'model' property to a cuDLA loadable file"),
                 "property 'model' is empty");
    return FALSE;
  }

  priv->labels.clear ();
  if (!s.labels.empty ()) {
    std::string why;
    bool not_found = false;
    if (!labels::load (s.labels, &priv->labels, &why, &not_found)) {
      post_status (self, dla::Status::Error (not_found ? dla::Code::kNotFound : dla::Code::kSettings, why),
                   "property 'labels'");
      return FALSE;
    }
  }

  dla::EngineConfig config;
  config.model_path = s.model;
  config.dla_core = s.dla_core;
  config.cuda_device = s.device ();
  config.task_timeout_ms = s.task_timeout_ms;
  config.num_slots = 1; /* synchronous: one frame in flight */
  {
    dla::ScopedContext scope (priv->primary.handle ());
    const dla::Status st = dla::Engine::Open (config, &priv->engine);
    if (!st.ok ()) {
      post_status (self, st,
                   "dla::Engine::Open (model=" + s.model + ", dla-core=" + std::to_string (s.dla_core) +
                       ", cuda-device-id=" + std::to_string (s.cuda_device_id) + ")");
      priv->engine.reset ();
      return FALSE;
    }
  }
  /* The engine retains the same primary context; ours only fails where the engine would too. */
  GstCudaContext *ctx = ref_context (self);
  if (ctx)
    gst_object_unref (ctx);
  if (!ctx) {
    post_status (self, dla::Status::Error (dla::Code::kInit, "No CUDA context: " + priv->context_error),
                 "open_context");
    priv->engine.reset ();
    return FALSE;
  }
  /* The context neighbours were given at NULL->READY is the one the frames run in. */
  if (priv->primary.ordinal () != s.device ()) {
    post_status (
        self,
        dla::Status::Error (dla::Code::kSettings,
                            "cuda-device-id was changed to " + std::to_string (s.device ()) +
                                " in READY, after the element shared "
                                "the context of CUDA device " +
                                std::to_string (priv->primary.ordinal ()) +
                                " with its neighbours: set cuda-device-id while the element is in NULL"),
        "cuda-device-id");
    priv->engine.reset ();
    return FALSE;
  }

  dla::ClassificationShape shape;
  dla::Status st = dla::validate_classification (priv->engine->inputs (), priv->engine->outputs (), &shape);
  if (st.ok () && shape.batch != 1)
    st = dla::Status::Error (
        dla::Code::kModel,
        "The model's input has batch " + std::to_string (shape.batch) +
            "; full-frame classification uses batch 1 for now: rebuild the loadable with batch 1 (trtexec "
            "--shapes=<input>:1x3xHxW, or an ONNX file with a batch of 1)");
  if (st.ok () && shape.channels != 3)
    st = dla::Status::Error (dla::Code::kModel, "The model's input has " + std::to_string (shape.channels) +
                                                    " channel(s); the preprocessing writes 3 (RGB or BGR): "
                                                    "rebuild the model with a 3-channel input (" +
                                                    dla::kInputFormatsHint + ")");
  if (!st.ok ()) {
    post_status (self, st,
                 "dla::validate_classification (model=" + s.model + ")\n" + priv->engine->describe ());
    priv->engine.reset ();
    return FALSE;
  }
  if (priv->engine->outputs ().size () > 1)
    GST_INFO_OBJECT (self, "the model has %u outputs; the first ('%s') holds the class scores",
                     guint (priv->engine->outputs ().size ()), priv->engine->outputs ()[0].name.c_str ());

  const int classes =
      int (dla::resolve_class_count (priv->engine->outputs ()[0], int64_t (priv->labels.size ())));
  if (priv->labels.empty () && !shape.classes_may_include_padding.empty () &&
      shape.classes_may_include_padding[0])
    GST_WARNING_OBJECT (self,
                        "the model's output reports %d classes, a whole number of %s vectors: some may be "
                        "padding lanes that read as class_N; give a labels file with the real class count",
                        classes, tensor::layout_name (priv->engine->outputs ()[0].view.layout));
  if (!priv->labels.empty () && priv->labels.size () != size_t (classes)) {
    post_status (self,
                 dla::Status::Error (dla::Code::kSettings, "The labels file '" + s.labels + "' has " +
                                                               std::to_string (priv->labels.size ()) +
                                                               " labels but the model has " +
                                                               std::to_string (classes) + " classes"),
                 "labels count != output channels");
    priv->engine.reset ();
    return FALSE;
  }
  if (shape.input_view.type == tensor::ElemType::kInt8 && !(s.input_scale > 0.f)) {
    post_status (
        self,
        dla::Status::Error (
            dla::Code::kSettings,
            "The model's input is INT8: set input-scale to its quantisation scale (value = q * scale; e.g. "
            "input-scale=0.0078740157 for 1/127), as calibrated when the loadable was built"),
        "input-scale is not set\n" + priv->engine->describe ());
    priv->engine.reset ();
    return FALSE;
  }
  if (priv->engine->outputs ()[0].view.type == tensor::ElemType::kInt8 && !(s.output_scale > 0.f)) {
    post_status (
        self,
        dla::Status::Error (
            dla::Code::kSettings,
            "The model's output is INT8: set output-scale to its quantisation scale (value = q * scale), as "
            "calibrated when the loadable was built, or rebuild it with --outputIOFormats=fp16:chw16"),
        "output-scale is not set\n" + priv->engine->describe ());
    priv->engine.reset ();
    return FALSE;
  }
  priv->input_view = shape.input_view;
  priv->output_view = priv->engine->outputs ()[0].view;
  priv->output_view.c = classes; /* a padded count the labels resolved: the pad lanes are not classes */
  priv->label_quarks.resize (size_t (classes));
  for (int i = 0; i < classes; ++i)
    priv->label_quarks[size_t (i)] = g_quark_from_string (labels::name_for (priv->labels, i).c_str ());
  priv->element_quark = g_quark_from_string (GST_OBJECT_NAME (self));
  priv->backend_quark = g_quark_from_string (priv->engine->backend ().c_str ());
  priv->graphs = std::make_unique<preprocess::LaunchGraphs> ();
  priv->scores.reserve (size_t (classes));
  priv->results.reserve (size_t (classes));
  priv->meta_results.reserve (size_t (classes));
  priv->analytics_confidences.reserve (size_t (classes));
  priv->analytics_labels.reserve (size_t (classes));
  priv->meta_results.clear ();
  priv->foreign_context_logged = false;
  priv->interval.reset ();
  priv->stats.reset ();

  dlainfer::ModelDescription d;
  d.model = s.model;
  d.backend = priv->engine->backend ();
  d.cudla_version = priv->engine->cudla_version ();
  d.library = priv->engine->library_path ();
  d.description = priv->engine->describe ();
  d.dla_core = s.dla_core;
  d.cuda_device = s.device ();
  d.classes = classes;
  d.labels = int (priv->labels.size ());
  d.inputs = &priv->engine->inputs ();
  d.outputs = &priv->engine->outputs ();
  GstStructure *info = dlainfer::model_info_structure (d);
  GST_OBJECT_LOCK (self);
  std::swap (priv->model_info, info);
  GST_OBJECT_UNLOCK (self);
  if (info)
    gst_structure_free (info);

  const tensor::View &in = priv->input_view;
  GST_INFO_OBJECT (self,
                   "model %s on %s core %d: input %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                   " %s:%s, %d classes%s",
                   s.model.c_str (), priv->engine->backend ().c_str (), s.dla_core, in.c, in.h, in.w,
                   tensor::elem_type_name (in.type), tensor::layout_name (in.layout), classes,
                   priv->labels.empty () ? " (no labels: class_<index>)" : "");
  /* All of it runs on the DLA: a loadable has no GPU fallback layers. */
  GST_INFO_OBJECT (self, "model details: %s", d.description.c_str ());
  return TRUE;
}

static gboolean gst_dla_infer_stop (GstBaseTransform *trans)
{
  GstDlaInfer *self = GST_DLA_INFER (trans);
  GstDlaInferPrivate *priv = self->priv;
  {
    /* The engine waits for its stream before freeing anything; the staging buffers go after it. */
    dla::ScopedContext scope (priv->primary.handle ());
    priv->graphs.reset ();
    priv->engine.reset ();
    priv->staging.release ();
  }
  priv->labels.clear ();
  priv->label_quarks.clear ();
  GST_OBJECT_LOCK (self);
  GstStructure *info = priv->model_info;
  priv->model_info = nullptr;
  GST_OBJECT_UNLOCK (self);
  if (info)
    gst_structure_free (info);
  return TRUE;
}

static gboolean gst_dla_infer_accept_caps (GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps)
{
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->accept_caps (trans, direction, caps))
    return FALSE;
  GstVideoInfo info;
  std::string why;
  if (gst_caps_is_fixed (caps) && gst_video_info_from_caps (&info, caps) &&
      !dlainfer::caps_supported (&info, &why)) {
    GST_INFO_OBJECT (trans, "refusing caps %" GST_PTR_FORMAT ": %s", caps, why.c_str ());
    return FALSE;
  }
  return TRUE;
}

static gboolean gst_dla_infer_set_caps (GstBaseTransform *trans, GstCaps *incaps, GstCaps *)
{
  GstDlaInfer *self = GST_DLA_INFER (trans);
  GstDlaInferPrivate *priv = self->priv;
  GstVideoInfo info;
  std::string why = "not video caps";
  preprocess::SourceView source;
  if (!gst_video_info_from_caps (&info, incaps) || !dlainfer::source_template (&info, &source, &why)) {
    GST_WARNING_OBJECT (self, "refusing caps %" GST_PTR_FORMAT ": %s", incaps, why.c_str ());
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Cannot take these caps: %s", why.c_str ()),
                       ("caps %" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  priv->info = info;
  priv->source = source;

  const GstCapsFeatures *features = gst_caps_get_features (incaps, 0);
  const bool on_device =
      features && gst_caps_features_contains (features, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
  if (!on_device) {
    dla::ScopedContext scope (priv->primary.handle ());
    const dla::Status st = priv->staging.reserve (dlainfer::staging_bytes (&info));
    if (!st.ok ()) {
      post_status (self, st, "upload staging for system-memory frames");
      return FALSE;
    }
  }
  GST_DEBUG_OBJECT (self, "caps %" GST_PTR_FORMAT " (%s memory)", incaps, on_device ? "CUDA" : "system");
  return TRUE;
}

static GstFlowReturn gst_dla_infer_transform_ip (GstBaseTransform *trans, GstBuffer *buf)
{
  GstDlaInfer *self = GST_DLA_INFER (trans);
  GstDlaInferPrivate *priv = self->priv;
  dla::Engine *engine = priv->engine.get ();

  if (cuda_poisoned)
    return frame_failed (self, dla::Status::Error (dla::Code::kFatal, kRestart), "refusing frames");
  if (!engine) {
    priv->stats.failed ();
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("No model is open"), ("transform_ip before start"));
    return GST_FLOW_ERROR;
  }

  /* Per-frame settings under the lock; nothing here allocates. */
  GST_OBJECT_LOCK (self);
  preprocess::Params pre = dlainfer::preprocess_params (priv->settings);
  const postprocess::Params post = dlainfer::postprocess_params (priv->settings);
  const uint32_t interval = priv->settings.interval;
  const bool post_messages = priv->settings.post_messages;
  GST_OBJECT_UNLOCK (self);

  if (!priv->interval.infer_now (interval)) {
    attach_results (self, buf, true, priv->interval.age ());
    priv->stats.skipped ();
    return GST_FLOW_OK;
  }
  pre.crop = {0, 0, GST_VIDEO_INFO_WIDTH (&priv->info), GST_VIDEO_INFO_HEIGHT (&priv->info)};
  pre.par_n = GST_VIDEO_INFO_PAR_N (&priv->info);
  pre.par_d = GST_VIDEO_INFO_PAR_D (&priv->info);

  dla::ScopedContext scope (priv->primary.handle ());
  preprocess::SourceView source = priv->source;
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  MappedFrame frame;
  dla::Status st;

  if (gst_is_cuda_memory (mem)) {
    GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (mem);
    if (!check_memory_context (self, cmem->context, &st))
      return frame_failed (self, st, "frame memory");
    if (!frame.map (&priv->info, buf, GstMapFlags (GST_MAP_READ | GST_MAP_CUDA)))
      return frame_failed (self,
                           dla::Status::Error (dla::Code::kRuntime, "Cannot map the frame's CUDA memory"),
                           "gst_video_frame_map (GST_MAP_CUDA)");
#if GST_CHECK_VERSION(1, 24, 0)
    /* Mapping does not wait for the stream that wrote the frame: order our kernel after it. */
    if (GstCudaStream *upstream = gst_cuda_memory_get_stream (cmem)) {
      if (gst_cuda_context_get_handle (cmem->context) == priv->primary.handle ()) {
        st = engine->wait_for_stream (gst_cuda_stream_get_handle (upstream));
        if (!st.ok ())
          return frame_failed (self, st, "ordering after the upstream CUDA stream");
      } else {
        /* Our event cannot be recorded on another context's stream: wait on the host instead. */
        gst_cuda_memory_sync (cmem);
      }
    }
#endif
    dlainfer::set_planes (frame.get (), &source);
  } else {
    if (!frame.map (&priv->info, buf, GST_MAP_READ))
      return frame_failed (self, dla::Status::Error (dla::Code::kRuntime, "Cannot map the frame's memory"),
                           "gst_video_frame_map");
    const size_t bytes = dlainfer::staging_bytes (frame.get ());
    if (bytes > priv->staging.capacity ()) {
      /* Only when frames are laid out larger than their caps say (padded strides): once. */
      GST_INFO_OBJECT (self, "growing the upload staging to %" G_GSIZE_FORMAT " bytes", bytes);
      st = priv->staging.reserve (bytes);
      if (!st.ok ())
        return frame_failed (self, st, "upload staging");
    }
    dlainfer::pack_planes (frame.get (), priv->staging.host (), priv->staging.device (), &source);
    st = priv->staging.upload (bytes, engine->stream ());
    if (!st.ok ())
      return frame_failed (self, st, "upload of a system-memory frame");
  }

  constexpr int kSlot = 0;
  std::string why;
  const preprocess::Status pst = preprocess::plan_launch (source, priv->input_view, engine->input_ptr (kSlot),
                                                          pre, nullptr, 0, &priv->launch, &why);
  if (pst != preprocess::Status::kOk)
    return frame_failed (
        self,
        dla::Status::Error (dla::Code::kRuntime, std::string ("The preprocessing kernel cannot run: ") +
                                                     preprocess::status_name (pst) + ": " + why),
        "preprocess::plan_launch");
  /* Before begin (): making a graph must not count as the frame's preprocessing time. */
  const size_t launch = priv->graphs->prepare (priv->launch);
  st = engine->begin (kSlot);
  if (!st.ok ())
    return frame_failed (self, st, "dla::Engine::begin");
  const cudaError_t launched = priv->graphs->launch (launch, static_cast<cudaStream_t> (engine->stream ()));
  if (launched != cudaSuccess)
    return frame_failed (
        self,
        dla::Status::Error (
            launched == dla::kCudaErrorExternalDevice ? dla::Code::kFatal : dla::Code::kRuntime,
            "The preprocessing kernel failed to launch: " + dla::cuda_error_name (launched)),
        "preprocess::LaunchGraphs::launch");
  st = engine->submit (kSlot);
  if (!st.ok ())
    return frame_failed (self, st, "dla::Engine::submit");
  st = engine->complete (kSlot);
  if (!st.ok ())
    return frame_failed (self, st, "dla::Engine::complete");
  frame.unmap (); /* the kernel that read it has finished */

  const auto post_start = std::chrono::steady_clock::now ();
  postprocess::run (priv->output_view, engine->host_output (kSlot, 0), post, &priv->scores, &priv->results);
  priv->meta_results.clear ();
  for (const postprocess::Result &r : priv->results)
    priv->meta_results.push_back ({r.class_id, priv->label_quarks[size_t (r.class_id)], r.confidence});
  const float post_ms =
      std::chrono::duration<float, std::milli> (std::chrono::steady_clock::now () - post_start).count ();
  const dla::SlotTimings t = engine->timings (kSlot);
  priv->stats.inferred (t.preprocess_ms, t.dla_ms, post_ms, t.total_ms, priv->graphs->graphed (launch));
  priv->interval.inferred ();
  attach_results (self, buf, false, 0);
  if (post_messages)
    post_result_message (self, buf);
  if (!priv->results.empty ())
    GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": %s %.3f", GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
                    g_quark_to_string (priv->meta_results[0].label), double (priv->results[0].confidence));
  return GST_FLOW_OK;
}

static gboolean gst_dla_infer_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  /* After a flush (a seek) or a new stream (concat, input-selector) the last result belongs
   * elsewhere: it is never carried across. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP || GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START)
    GST_DLA_INFER (trans)->priv->interval.reset ();
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}
