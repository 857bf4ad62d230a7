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
 * The model is a cuDLA loadable: pipelines/build-loadable.sh builds one from an ONNX file, with the
 * trtexec recipe of TensorRT 11 and of TensorRT 10 and earlier (whose `--fp16` TensorRT 11 no
 * longer has). Interlaced video is refused by the pad templates (interlace-mode=progressive):
 * deinterlace upstream. `mean` and `std` take three numbers each (std > 0); anything else is kept
 * as set and fails at start with an error naming the property.
 * `DLAINFER_CUDLA_LIBRARY` names another cuDLA library (the software DLA used by the tests).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cuda/gstcudamemory.h>

#include <chrono>

#include "dla/fatal.h"
#include "dla/primary_context.h"
#include "gst/frame_source.h"
#include "gst/gstdlainfer-private.h"
#include "gst/gstdlainfer.h"
#include "gst/modelinfo_settings.h"

GST_DEBUG_CATEGORY (gst_dla_infer_debug);
#define GST_CAT_DEFAULT gst_dla_infer_debug

#define DLA_INFER_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx }"
/* Progressive only, in the templates: an interlaced source fails to link with GStreamer's own
 * caps message rather than a bare not-negotiated. */
#define DLA_INFER_PROGRESSIVE ", interlace-mode = (string) progressive"
#define DLA_INFER_CAPS                                                                       \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, DLA_INFER_FORMATS) \
  DLA_INFER_PROGRESSIVE ";" GST_VIDEO_CAPS_MAKE (DLA_INFER_FORMATS) DLA_INFER_PROGRESSIVE

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

constexpr const char *kRestart =
    "The DLA reported a fatal error (cudaErrorExternalDevice): CUDA is unusable in this process; "
    "restart the process";

/* Posts a dla::Status as an error message in the domain its code stands for, with the location
 * of the caller (post_status () and frame_failed () are macros that capture it), as
 * GST_ELEMENT_ERROR would. Never call with the object lock held. */
void post_status_at (GstDlaInfer *self, const dla::Status &st, const std::string &debug, const char *file,
                     const char *function, int line)
{
  GQuark domain = GST_STREAM_ERROR;
  gint code = GST_STREAM_ERROR_FAILED;
  switch (st.code) {
    case dla::Code::kOk:
      return;
    case dla::Code::kNotFound:
      domain = GST_RESOURCE_ERROR;
      code = GST_RESOURCE_ERROR_NOT_FOUND;
      break;
    case dla::Code::kSettings:
    case dla::Code::kModel:
      domain = GST_RESOURCE_ERROR;
      code = GST_RESOURCE_ERROR_SETTINGS;
      break;
    case dla::Code::kInit:
      domain = GST_LIBRARY_ERROR;
      code = GST_LIBRARY_ERROR_INIT;
      break;
    case dla::Code::kRuntime:
    case dla::Code::kTimeout:
    case dla::Code::kFatal:
      break;
  }
  GST_WARNING_OBJECT (self, "error: %s", st.message.c_str ());
  GST_WARNING_OBJECT (self, "error: %s", debug.c_str ());
  gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR, domain, code,
                            g_strdup (st.message.c_str ()), g_strdup (debug.c_str ()), file, function, line);
}
#define post_status(self, st, debug) post_status_at ((self), (st), (debug), __FILE__, G_STRFUNC, __LINE__)

/* The per-frame failure path: a fatal status says "restart the process" (dla/fatal.h has poisoned
 * it), every status is posted. */
GstFlowReturn frame_failed_at (GstDlaInfer *self, const dla::Status &st, const char *step, const char *file,
                               const char *function, int line)
{
  self->priv->stats.failed ();
  if (st.code == dla::Code::kFatal)
    post_status_at (self, dla::Status::Error (dla::Code::kFatal, kRestart),
                    std::string (step) + ": " + st.message, file, function, line);
  else
    post_status_at (self, st, step, file, function, line);
  return GST_FLOW_ERROR;
}
#define frame_failed(self, st, step) frame_failed_at ((self), (st), (step), __FILE__, G_STRFUNC, __LINE__)

/* `stats` is notified at most once a second while frames flow, and at EOS (never per frame). */
void maybe_notify_stats (GstDlaInfer *self)
{
  const gint64 now = g_get_monotonic_time ();
  if (now - self->priv->stats_notified_us < G_USEC_PER_SEC)
    return;
  self->priv->stats_notified_us = now;
  gst_dla_infer_notify (self, GST_DLA_INFER_NOTIFY_STATS);
}

/* The settings one frame uses, copied under the lock. */
struct FrameSettings {
  preprocess::Params pre;
  postprocess::Params post;
  uint32_t interval = 0;
  bool post_messages = false;
};

FrameSettings frame_settings (GstDlaInfer *self, std::string *bad)
{
  FrameSettings f;
  GST_OBJECT_LOCK (self);
  /* A mean/std changed to a wrong value while playing fails the stream, as it would fail start. */
  dlainfer::check (self->priv->settings, bad);
  f.pre = dlainfer::preprocess_params (self->priv->settings);
  f.post = dlainfer::postprocess_params (self->priv->settings);
  f.interval = self->priv->settings.interval;
  f.post_messages = self->priv->settings.post_messages;
  GST_OBJECT_UNLOCK (self);
  return f;
}

/* One task through the engine: acquire a slot, write its input on our stream, submit, wait. A
 * failure waits for our stream before the frame is released, and gives back a slot not submitted. */
class FrameTask {
 public:
  FrameTask (dla::Engine &engine, dlainfer::FrameInput &input) : engine_ (engine), input_ (input) {}
  ~FrameTask ()
  {
    if (!submitted_)
      engine_.release (task_);
  }
  dla::Status run (GstDlaInfer *self, GstBuffer *buf, const preprocess::Params &pre, const char **step);
  const dla::Task &task () const { return task_; }

 private:
  dla::Engine &engine_;
  dlainfer::FrameInput &input_;
  dla::Task task_;
  bool submitted_ = false;
};

dla::Status FrameTask::run (GstDlaInfer *self, GstBuffer *buf, const preprocess::Params &pre,
                            const char **step)
{
  GstDlaInferPrivate *priv = self->priv;
  dlainfer::MappedFrame frame;
  void *ready = nullptr;
  dla::Status st = engine_.acquire (&task_);
  *step = "dla::Engine::acquire";
  if (st.ok ()) {
    st = input_.write (GST_ELEMENT (self), priv->cuda, buf, task_, priv->model->plan.input_view, pre, &frame,
                       &ready);
    *step = "writing the model input";
  }
  if (st.ok ()) {
    st = engine_.submit (task_, ready);
    *step = "dla::Engine::submit";
  }
  if (st.ok ()) {
    /* Submitted: the engine owns the task until the wait ends it, failed or not. */
    submitted_ = true;
    st = engine_.wait (task_);
    *step = "dla::Engine::wait";
  }
  if (!st.ok ())
    input_.drain ();
  return st; /* the frame is unmapped here: the kernel that read it has finished */
}

/* A frame that runs the model: the task, then its results on the buffer. */
GstFlowReturn infer (GstDlaInfer *self, GstBuffer *buf, const FrameSettings &f)
{
  GstDlaInferPrivate *priv = self->priv;
  dla::Engine &engine = *priv->model->engine;
  dla::ScopedContext scope (priv->cuda.primary ());
  FrameTask task (engine, priv->input);
  const char *step = "";
  const dla::Status st = task.run (self, buf, f.pre, &step);
  if (!st.ok ())
    return frame_failed (self, st, step);

  const auto post_start = std::chrono::steady_clock::now ();
  priv->output.classify (priv->model->plan.output_view, engine.host_output (task.task ().slot, 0), f.post);
  const float post_ms =
      std::chrono::duration<float, std::milli> (std::chrono::steady_clock::now () - post_start).count ();
  const dla::SlotTimings t = engine.timings (task.task ().slot);
  priv->stats.inferred (priv->input.preprocess_ms (task.task ()), t.dla_ms, post_ms, t.total_ms,
                        priv->input.graphed ());
  priv->interval.inferred ();
  priv->output.attach (GST_OBJECT (self), buf, false, 0);
  priv->tensors.attach (GST_ELEMENT (self), buf, engine, task.task ().slot);
  if (f.post_messages)
    priv->output.post (GST_ELEMENT (self), buf, &GST_BASE_TRANSFORM (self)->segment);
  if (!priv->output.empty ())
    GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": %s %.3f", GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
                    priv->output.best_label (), double (priv->output.best_confidence ()));
  return GST_FLOW_OK;
}

/* After a model opened: what the frames need, and what the element shows of it. */
void publish_model (GstDlaInfer *self, const dlainfer::Settings &s)
{
  GstDlaInferPrivate *priv = self->priv;
  const dlainfer::Model &m = *priv->model;
  priv->output.prepare (m.labels, m.plan.classes, g_quark_from_string (GST_OBJECT_NAME (self)),
                        g_quark_from_string (m.engine->backend ().c_str ()), s.dla_core);
  priv->tensors.prepare (m.engine->outputs (), s, m.plan.classes,
                         g_quark_from_string (GST_OBJECT_NAME (self)));
  priv->cuda.reset_log ();
  priv->interval.reset ();
  priv->stats.reset ();
  GstStructure *info = dlainfer::model_info (s, m);
  GST_OBJECT_LOCK (self);
  std::swap (priv->model_info, info);
  GST_OBJECT_UNLOCK (self);
  if (info)
    gst_structure_free (info);

  const tensor::View &in = m.plan.input_view;
  GST_INFO_OBJECT (self,
                   "model %s on %s core %d: input %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                   " %s:%s, %d classes%s",
                   s.model.c_str (), m.engine->backend ().c_str (), s.dla_core, in.c, in.h, in.w,
                   tensor::elem_type_name (in.type), tensor::layout_name (in.layout), m.plan.classes,
                   m.labels.empty () ? " (no labels: class_<index>)" : "");
  /* All of it runs on the DLA: a loadable has no GPU fallback layers. */
  GST_INFO_OBJECT (self, "model details: %s", m.engine->describe ().c_str ());
}

}  // namespace

static void gst_dla_infer_dispose (GObject *object);
static void gst_dla_infer_finalize (GObject *object);
static GstStateChangeReturn gst_dla_infer_change_state (GstElement *element, GstStateChange transition);
static void gst_dla_infer_set_context (GstElement *element, GstContext *context);
static gboolean gst_dla_infer_start (GstBaseTransform *trans);
static gboolean gst_dla_infer_stop (GstBaseTransform *trans);
static gboolean gst_dla_infer_query (GstBaseTransform *trans, GstPadDirection direction, GstQuery *query);
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
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_dla_infer_set_caps);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_dla_infer_transform_ip);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_dla_infer_sink_event);

  gst_type_mark_as_plugin_api (GST_TYPE_DLA_INFER_CHANNEL_ORDER, GstPluginAPIFlags (0));
  gst_type_mark_as_plugin_api (GST_TYPE_DLA_INFER_RESIZE_MODE, GstPluginAPIFlags (0));
  gst_type_mark_as_plugin_api (GST_TYPE_DLA_INFER_ACTIVATION, GstPluginAPIFlags (0));
  gst_type_mark_as_plugin_api (GST_TYPE_DLA_INFER_TENSOR_TYPE, GstPluginAPIFlags (0));
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
  GST_DLA_INFER (object)->priv->cuda.dispose (GST_ELEMENT (object));
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
  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    GST_OBJECT_LOCK (self);
    const int device = self->priv->settings.device ();
    GST_OBJECT_UNLOCK (self);
    self->priv->cuda.open (element, device);
  }
  const GstStateChangeReturn ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_NULL ||
      (transition == GST_STATE_CHANGE_NULL_TO_READY && ret == GST_STATE_CHANGE_FAILURE))
    self->priv->cuda.close (element);
  return ret;
}

static void gst_dla_infer_set_context (GstElement *element, GstContext *context)
{
  GstDlaInfer *self = GST_DLA_INFER (element);
  GST_OBJECT_LOCK (self);
  const int device = self->priv->settings.cuda_device_id;
  GST_OBJECT_UNLOCK (self);
  self->priv->cuda.offer (element, context, device);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean gst_dla_infer_query (GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      GST_DLA_INFER (trans)->priv->cuda.answer_query (GST_ELEMENT (trans), query))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction, query);
}

static gboolean gst_dla_infer_start (GstBaseTransform *trans)
{
  GstDlaInfer *self = GST_DLA_INFER (trans);
  GstDlaInferPrivate *priv = self->priv;
  if (dla::process_poisoned ()) {
    post_status (self, dla::Status::Error (dla::Code::kFatal, kRestart),
                 "an earlier frame hit the 911 error");
    return FALSE;
  }
  /* The properties and the model's .modelinfo first: a wrong mean/std is named even when the model
   * file is missing too. */
  dla::Status file_st;
  const dlainfer::Settings s = dlainfer::settings_at_start (GST_ELEMENT (self), &priv->settings, &file_st);
  if (!file_st.ok ()) {
    post_status (self, file_st, "reading the model's .modelinfo");
    return FALSE;
  }
  std::string bad;
  if (!dlainfer::check (s, &bad)) {
    post_status (self, dla::Status::Error (dla::Code::kSettings, bad), "checking the properties at start");
    return FALSE;
  }

  auto model = std::make_unique<dlainfer::Model> ();
  dlainfer::Refusal why;
  if (!dlainfer::open_model (GST_ELEMENT (self), s, priv->cuda, model.get (), &why)) {
    post_status (self, why.status, why.debug);
    return FALSE;
  }
  dla::ScopedContext scope (priv->cuda.primary ());
  const dla::Status st = priv->input.open (model->engine->num_slots ());
  if (!st.ok ()) {
    post_status (self, st, "the element's CUDA stream and events");
    return FALSE;
  }
  priv->model = std::move (model);
  publish_model (self, s);
  priv->stats_notified_us = g_get_monotonic_time ();
  gst_dla_infer_notify (self, GST_DLA_INFER_NOTIFY_MODEL_INFO);
  return TRUE;
}

static gboolean gst_dla_infer_stop (GstBaseTransform *trans)
{
  GstDlaInferPrivate *priv = GST_DLA_INFER (trans)->priv;
  {
    /* Our stream is drained before the engine goes (it waits for its own), the model after. */
    dla::ScopedContext scope (priv->cuda.primary ());
    priv->input.close ();
    priv->model.reset ();
  }
  priv->output.clear ();
  priv->tensors.clear ();
  GST_OBJECT_LOCK (trans);
  GstStructure *info = priv->model_info;
  priv->model_info = nullptr;
  GST_OBJECT_UNLOCK (trans);
  if (info)
    gst_structure_free (info);
  return TRUE;
}

/* Caps beyond the templates are never refused in accept-caps (its reason would show only in the
 * debug log): the templates hold every format and the progressive-only rule, and set_caps posts
 * what it cannot take as an error. */
static gboolean gst_dla_infer_set_caps (GstBaseTransform *trans, GstCaps *incaps, GstCaps *)
{
  GstDlaInfer *self = GST_DLA_INFER (trans);
  GstVideoInfo info;
  std::string why = "not video caps";
  preprocess::SourceView source;
  if (!gst_video_info_from_caps (&info, incaps) || !dlainfer::source_template (&info, &source, &why)) {
    GST_WARNING_OBJECT (self, "refusing caps %" GST_PTR_FORMAT ": %s", incaps, why.c_str ());
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Cannot take these caps: %s", why.c_str ()),
                       ("caps %" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  const GstCapsFeatures *features = gst_caps_get_features (incaps, 0);
  const bool on_device =
      features && gst_caps_features_contains (features, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
  dla::ScopedContext scope (self->priv->cuda.primary ());
  const dla::Status st = self->priv->input.configure (info, source, on_device);
  if (!st.ok ()) {
    post_status (self, st, "upload staging for system-memory frames");
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "caps %" GST_PTR_FORMAT " (%s memory)", incaps, on_device ? "CUDA" : "system");
  return TRUE;
}

static GstFlowReturn gst_dla_infer_transform_ip (GstBaseTransform *trans, GstBuffer *buf)
{
  GstDlaInfer *self = GST_DLA_INFER (trans);
  GstDlaInferPrivate *priv = self->priv;
  if (dla::process_poisoned ())
    return frame_failed (self, dla::Status::Error (dla::Code::kFatal, kRestart), "refusing frames");
  if (!priv->model) {
    priv->stats.failed ();
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("No model is open"), ("transform_ip before start"));
    return GST_FLOW_ERROR;
  }
  std::string bad;
  const FrameSettings f = frame_settings (self, &bad);
  if (!bad.empty ())
    return frame_failed (self, dla::Status::Error (dla::Code::kSettings, bad), "checking the properties");
  GstFlowReturn ret = GST_FLOW_OK;
  if (!priv->interval.infer_now (f.interval)) {
    priv->output.attach (GST_OBJECT (self), buf, true, priv->interval.age ());
    priv->stats.skipped ();
  } else {
    ret = infer (self, buf, f);
  }
  maybe_notify_stats (self);
  return ret;
}

static gboolean gst_dla_infer_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  /* After a flush (a seek) or a new stream (concat, input-selector) the last result belongs
   * elsewhere: it is never carried across. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP || GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START)
    GST_DLA_INFER (trans)->priv->interval.reset ();
  /* The last counts of the stream, before EOS goes downstream. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS) {
    GST_DLA_INFER (trans)->priv->stats_notified_us = g_get_monotonic_time ();
    gst_dla_infer_notify (GST_DLA_INFER (trans), GST_DLA_INFER_NOTIFY_STATS);
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}
