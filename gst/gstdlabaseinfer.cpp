/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: GstDlaBaseInfer (gstdlabaseinfer.h), the element's life: state changes, the CUDA
 * context, start and stop (the model opened and closed), caps, events, queries and allocation. A
 * frame's way through it: frame_submit.cpp and push_loop.cpp. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cuda/gstcudamemory.h>

#include <algorithm>
#include <chrono>

#include "dla/fatal.h"
#include "dla/primary_context.h"
#include "gst/frame_source.h"
#include "gst/gstdlabaseinfer-private.h"
#include "gst/gstdlabaseinfer.h"
#include "gst/modelinfo/modelinfo_settings.h"
#include "nvmm/library.h"

GST_DEBUG_CATEGORY (gst_dla_infer_debug);
#define GST_CAT_DEFAULT gst_dla_infer_debug

#define DLA_INFER_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx }"
/* Progressive only, in the templates: an interlaced source fails to link with GStreamer's own
 * caps message rather than a bare not-negotiated. */
#define DLA_INFER_PROGRESSIVE ", interlace-mode = (string) progressive"
/* Jetson's NVMM surfaces first: preferred whenever upstream offers them (docs/nvmm.md). */
#define DLA_INFER_NVMM_FORMATS "{ NV12, RGBA }"
#define DLA_INFER_CAPS                                                                           \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:NVMM", DLA_INFER_NVMM_FORMATS)                      \
  DLA_INFER_PROGRESSIVE                                                                          \
  ";" GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, DLA_INFER_FORMATS) \
      DLA_INFER_PROGRESSIVE ";" GST_VIDEO_CAPS_MAKE (DLA_INFER_FORMATS) DLA_INFER_PROGRESSIVE

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (DLA_INFER_CAPS));
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (DLA_INFER_CAPS));

#define gst_dla_base_infer_parent_class parent_class
/* One debug category, "dlainfer", for the whole family. */
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstDlaBaseInfer, gst_dla_base_infer, GST_TYPE_BASE_TRANSFORM,
                                  GST_DEBUG_CATEGORY_INIT (gst_dla_infer_debug, "dlainfer", 0,
                                                           "DLA inference"));

namespace {

/* Frames that skip the model (`interval`) queued beyond the max-in-flight inferred ones. */
constexpr int kSkippedFramesQueued = 16;

/* Serialized events and queries pass once every frame before them is pushed (or the task stopped:
 * nothing more will be). */
void drain (GstDlaBaseInfer *self, const char *why)
{
  const dlainfer::InFlight::Wait w = self->priv->inflight.drain ();
  GST_LOG_OBJECT (self, "drained for %s: %s", why,
                  w == dlainfer::InFlight::Wait::kReady ? "every frame pushed" : "flushing or stopped");
}

/* The latency upstream reports, plus ours (hold_latency.h). */
gboolean answer_latency (GstDlaBaseInfer *self, GstQuery *query)
{
  if (!gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), query))
    return FALSE;
  gboolean live;
  GstClockTime min, max;
  gst_query_parse_latency (query, &live, &min, &max);
  const GstClockTime ours = GstClockTime (self->priv->latency.announced ().count ());
  GST_DEBUG_OBJECT (self, "upstream latency %" GST_TIME_FORMAT ", ours %" GST_TIME_FORMAT,
                    GST_TIME_ARGS (min), GST_TIME_ARGS (ours));
  gst_query_set_latency (query, live, min + ours, GST_CLOCK_TIME_IS_VALID (max) ? max + ours : max);
  return TRUE;
}

/* After a model opened: what the frames need, and what the element shows of it. False when the
 * class made no stage (it posted why). */
bool publish_model (GstDlaBaseInfer *self, const dlainfer::Settings &s)
{
  GstDlaBaseInferPrivate *priv = self->priv;
  const dlainfer::Model &m = *priv->model;
  priv->tensors.prepare (m.engine->outputs (), s, m.plan.classes,
                         g_quark_from_string (GST_OBJECT_NAME (self)));
  std::string why;
  if (!priv->tensors.start_device (*m.engine, &why))
    GST_WARNING_OBJECT (self, "%s: the host de-pads the raw tensors instead", why.c_str ());
  priv->cuda.reset_log ();
  priv->stage = GST_DLA_BASE_INFER_GET_CLASS (self)->make_stage (self, s, m);
  if (!priv->stage)
    return false;
  priv->stats.reset ();
  std::vector<int> cores;
  for (int i = 0; i < m.engine->cores (); ++i)
    cores.push_back (m.engine->dla_core_at (i));
  priv->stats.set_cores (cores);
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
                   m.engine->model_path ().c_str (), m.engine->backend ().c_str (), s.dla_core, in.c, in.h,
                   in.w, tensor::elem_type_name (in.type), tensor::layout_name (in.layout), m.plan.classes,
                   m.labels.empty () ? " (no labels: class_<index>)" : "");
  /* All of it runs on the DLA: a loadable has no GPU fallback layers. */
  GST_INFO_OBJECT (self, "model details: %s", m.engine->describe ().c_str ());
  return true;
}

}  // namespace

static void gst_dla_base_infer_dispose (GObject *object);
static void gst_dla_base_infer_finalize (GObject *object);
static GstStateChangeReturn gst_dla_base_infer_change_state (GstElement *element, GstStateChange transition);
static void gst_dla_base_infer_set_context (GstElement *element, GstContext *context);
static gboolean gst_dla_base_infer_start (GstBaseTransform *trans);
static gboolean gst_dla_base_infer_stop (GstBaseTransform *trans);
static gboolean gst_dla_base_infer_query (GstBaseTransform *trans, GstPadDirection direction,
                                          GstQuery *query);
static gboolean gst_dla_base_infer_set_caps (GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps);
static GstFlowReturn gst_dla_base_infer_submit_input_buffer (GstBaseTransform *trans, gboolean is_discont,
                                                             GstBuffer *input);
static GstFlowReturn gst_dla_base_infer_generate_output (GstBaseTransform *trans, GstBuffer **outbuf);
static gboolean gst_dla_base_infer_sink_event (GstBaseTransform *trans, GstEvent *event);
static gboolean gst_dla_base_infer_propose_allocation (GstBaseTransform *trans, GstQuery *decide_query,
                                                       GstQuery *query);

static void gst_dla_base_infer_class_init (GstDlaBaseInferClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->dispose = gst_dla_base_infer_dispose;
  gobject_class->finalize = gst_dla_base_infer_finalize;
  gst_dla_base_infer_class_install_properties (klass, gst_dla_base_infer_properties ());

  /* Every element of the family takes the frames the fused kernel reads. */
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  element_class->change_state = GST_DEBUG_FUNCPTR (gst_dla_base_infer_change_state);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_dla_base_infer_set_context);

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_dla_base_infer_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_dla_base_infer_stop);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_dla_base_infer_query);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_dla_base_infer_set_caps);
  trans_class->submit_input_buffer = GST_DEBUG_FUNCPTR (gst_dla_base_infer_submit_input_buffer);
  trans_class->generate_output = GST_DEBUG_FUNCPTR (gst_dla_base_infer_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_dla_base_infer_sink_event);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_dla_base_infer_propose_allocation);

  gst_type_mark_as_plugin_api (GST_TYPE_DLA_BASE_INFER, GstPluginAPIFlags (0));
  gst_type_mark_as_plugin_api (GST_TYPE_DLA_INFER_CHANNEL_ORDER, GstPluginAPIFlags (0));
  gst_type_mark_as_plugin_api (GST_TYPE_DLA_INFER_RESIZE_MODE, GstPluginAPIFlags (0));
  gst_type_mark_as_plugin_api (GST_TYPE_DLA_INFER_TENSOR_TYPE, GstPluginAPIFlags (0));
}

static void gst_dla_base_infer_init (GstDlaBaseInfer *self)
{
  self->priv = new GstDlaBaseInferPrivate ();
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  /* Always adds metadata: in place, never passthrough; every frame is inferred, so no QoS drops. */
  gst_base_transform_set_in_place (trans, TRUE);
  gst_base_transform_set_passthrough (trans, FALSE);
  gst_base_transform_set_qos_enabled (trans, FALSE);
}

static void gst_dla_base_infer_dispose (GObject *object)
{
  GST_DLA_BASE_INFER (object)->priv->cuda.dispose (GST_ELEMENT (object));
  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void gst_dla_base_infer_finalize (GObject *object)
{
  GstDlaBaseInfer *self = GST_DLA_BASE_INFER (object);
  if (self->priv->model_info)
    gst_structure_free (self->priv->model_info);
  delete self->priv;
  self->priv = nullptr;
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static GstStateChangeReturn gst_dla_base_infer_change_state (GstElement *element, GstStateChange transition)
{
  GstDlaBaseInfer *self = GST_DLA_BASE_INFER (element);
  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    GST_OBJECT_LOCK (self);
    const int device = self->priv->settings.device ();
    GST_OBJECT_UNLOCK (self);
    self->priv->cuda.open (element, device);
  }
  /* Before the pads go (basetransform's stop runs then): every wait ends and the src task is
   * joined; stop () drops what is still queued. */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    gst_dla_base_infer_stop_pushing (self);
  const GstStateChangeReturn ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED && ret != GST_STATE_CHANGE_FAILURE)
    gst_dla_base_infer_start_pushing (self);
  if (transition == GST_STATE_CHANGE_READY_TO_NULL ||
      (transition == GST_STATE_CHANGE_NULL_TO_READY && ret == GST_STATE_CHANGE_FAILURE))
    self->priv->cuda.close (element);
  return ret;
}

static void gst_dla_base_infer_set_context (GstElement *element, GstContext *context)
{
  GstDlaBaseInfer *self = GST_DLA_BASE_INFER (element);
  GST_OBJECT_LOCK (self);
  const int device = self->priv->settings.cuda_device_id;
  GST_OBJECT_UNLOCK (self);
  self->priv->cuda.offer (element, context, device);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean gst_dla_base_infer_query (GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  GstDlaBaseInfer *self = GST_DLA_BASE_INFER (trans);
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      self->priv->cuda.answer_query (GST_ELEMENT (trans), query))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY && direction == GST_PAD_SRC)
    return gst_dla_base_infer_open_waiting (self, false) && answer_latency (self, query);
  if (GST_QUERY_TYPE (query) == GST_QUERY_DRAIN && direction == GST_PAD_SINK)
    drain (self, "a DRAIN query");
  const gboolean answered = GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction, query);
  if (answered && GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    /* The filter's order would win (basetransform intersects it first): NVMM goes first whatever
     * upstream listed first, so that it is what upstream fixates to (docs/nvmm.md 4). */
    GstCaps *caps = nullptr;
    gst_query_parse_caps_result (query, &caps);
    GstCaps *ordered = dlainfer::nvmm_first (caps);
    gst_query_set_caps_result (query, ordered);
    gst_caps_unref (ordered);
  }
  return answered;
}

/* Opens the model and what runs it: at start, or a waiting sharer's first data (open_mutex held).
 * Errors are posted. */
static gboolean gst_dla_base_infer_open_model (GstDlaBaseInfer *self,
                                               const dlainfer::InstanceDefaults &instance);
static void close_model (GstDlaBaseInfer *self);

/* After a 911 nothing opens again (dla/fatal.h). */
static gboolean refuse_poisoned (GstDlaBaseInfer *self)
{
  if (!dla::process_poisoned ())
    return FALSE;
  post_status (self, dla::Status::Error (dla::Code::kFatal, gst_dla_base_infer_restart_message),
               "an earlier frame hit the 911 error");
  return TRUE;
}

static gboolean gst_dla_base_infer_start (GstBaseTransform *trans)
{
  GstDlaBaseInfer *self = GST_DLA_BASE_INFER (trans);
  GstDlaBaseInferPrivate *priv = self->priv;
  if (refuse_poisoned (self))
    return FALSE;
  if (!GST_DLA_BASE_INFER_GET_CLASS (self)->make_stage) { /* a subclass's bug, said before any work */
    GST_ELEMENT_ERROR (
        self, CORE, NOT_IMPLEMENTED,
        ("%s sets no make_stage: every GstDlaBaseInfer subclass must", G_OBJECT_TYPE_NAME (self)), (nullptr));
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  const dlainfer::Settings user = priv->settings;
  GST_OBJECT_UNLOCK (self);
  dlainfer::InstanceDefaults instance;
  const bool known = dlainfer::instance_defaults (user, &instance);
  std::lock_guard<std::mutex> lock (priv->open_mutex);
  priv->opening = GstDlaBaseInferPrivate::Opening::kOpen;
  if (dlainfer::open_at (user, known) == dlainfer::OpenAt::kStart)
    return gst_dla_base_infer_open_model (self, instance);
  std::string bad;
  if (!dlainfer::check (user, &bad)) {
    post_status (self, dla::Status::Error (dla::Code::kSettings, bad), "checking the properties at start");
    return FALSE;
  }
  GST_INFO_OBJECT (self,
                   "model-instance-id '%s' has no instance yet and 'model' is unset here: opening at the "
                   "first caps, frame or LATENCY query, once the element that sets 'model' has started",
                   user.model_instance_id.c_str ());
  priv->opening = GstDlaBaseInferPrivate::Opening::kWaiting;
  return TRUE;
}

static gboolean gst_dla_base_infer_open_model (GstDlaBaseInfer *self,
                                               const dlainfer::InstanceDefaults &instance)
{
  GstDlaBaseInferPrivate *priv = self->priv;
  /* The properties and the model's .modelinfo first: a wrong mean/std is named even when the model
   * file is missing too. */
  dla::Status file_st;
  const dlainfer::Settings s =
      dlainfer::settings_at_start (GST_ELEMENT (self), &priv->settings, &file_st, instance);
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
  if (!dlainfer::open_model (GST_ELEMENT (self), s, priv->cuda,
                             GST_DLA_BASE_INFER_GET_CLASS (self)->model_kind, model.get (), &why)) {
    post_status (self, why.status, why.debug);
    return FALSE;
  }
  dla::ScopedContext scope (priv->cuda.primary ());
  dla::Status st = priv->input.open (model->engine->num_slots (),
                                     s.inference_region == dlainfer::InferenceRegion::kRoiList);
  if (!st.ok ()) {
    post_status (self, st, "the element's CUDA stream and events");
    return FALSE;
  }
  priv->model = std::move (model);
  /* At most max-in-flight tasks (and the one the spare slot holds while the src task reads it);
   * frames that skip the model wait behind them, a few more. */
  const dla::Engine &engine = *priv->model->engine;
  const int slots = engine.max_tasks () + (engine.spare_slot () ? 1 : 0); /* across the cores */
  priv->inflight.configure (slots, slots + kSkippedFramesQueued);
  priv->previous_slot = -1;
  priv->inflight.take_all ();
  priv->stream_failed = false;
  if (!(st = gst_dla_base_infer_warm_up (self)).ok ()) {
    frame_failed (self, st, "the warm-up task at start");
    close_model (self);
    return FALSE;
  }
  if (!publish_model (self, s)) {
    close_model (self);
    return FALSE;
  }
  priv->stats_notified_us = g_get_monotonic_time ();
  gst_dla_base_infer_notify (self, GST_DLA_BASE_INFER_NOTIFY_MODEL_INFO);
  return TRUE;
}

bool gst_dla_base_infer_open_waiting (GstDlaBaseInfer *self, bool data)
{
  using Opening = GstDlaBaseInferPrivate::Opening;
  GstDlaBaseInferPrivate *priv = self->priv;
  if (priv->opening.load () == Opening::kOpen) /* every element but a waiting sharer, every frame */
    return true;
  std::lock_guard<std::mutex> lock (priv->open_mutex);
  if (priv->opening != Opening::kWaiting)
    return priv->opening == Opening::kOpen;
  GST_OBJECT_LOCK (self);
  const dlainfer::Settings user = priv->settings;
  GST_OBJECT_UNLOCK (self);
  dlainfer::InstanceDefaults instance;
  if (!dlainfer::instance_defaults (user, &instance) && !data)
    return true; /* a query before the definer started: the first frame decides */
  if (refuse_poisoned (self) || !gst_dla_base_infer_open_model (self, instance)) {
    priv->opening = Opening::kFailed;
    return false;
  }
  GST_INFO_OBJECT (self, "opened model-instance-id '%s' at its first %s", user.model_instance_id.c_str (),
                   data ? "caps or frame" : "LATENCY query");
  priv->opening = Opening::kOpen;
  /* A live pipeline may have asked for the latency before it was known. */
  if (data)
    gst_element_post_message (GST_ELEMENT (self), gst_message_new_latency (GST_OBJECT (self)));
  return true;
}

static gboolean gst_dla_base_infer_stop (GstBaseTransform *trans)
{
  GstDlaBaseInfer *self = GST_DLA_BASE_INFER (trans);
  std::lock_guard<std::mutex> lock (self->priv->open_mutex);
  self->priv->opening = GstDlaBaseInferPrivate::Opening::kOpen;
  close_model (self);
  return TRUE;
}

static void close_model (GstDlaBaseInfer *self)
{
  GstDlaBaseInferPrivate *priv = self->priv;
  /* The src task is joined (change_state): each outstanding task ends, or task-timeout passes. */
  gst_dla_base_infer_drop_frames (self,
                                  std::chrono::steady_clock::now () + gst_dla_base_infer_task_timeout (self));
  {
    /* Our stream is drained before the engine goes (it waits for its own), the model after. */
    dla::ScopedContext scope (priv->cuda.primary ());
    priv->input.close ();
    priv->model.reset ();
  }
  priv->stage.reset ();
  priv->tensors.clear ();
  GST_OBJECT_LOCK (self);
  GstStructure *info = priv->model_info;
  priv->model_info = nullptr;
  GST_OBJECT_UNLOCK (self);
  if (info)
    gst_structure_free (info);
}

/* memory:NVMM: a format the import reads and Jetson's library, or a NEGOTIATION error naming the
 * way out (docs/nvmm.md 3). */
static bool nvmm_caps (GstDlaBaseInfer *self, GstCaps *incaps, const GstVideoInfo *info,
                       std::shared_ptr<const nvmm::Library> *library)
{
  nvmm::Format format;
  std::string why;
  if (dlainfer::nvmm_format (info, &format, &why)) {
    const host::Status st = nvmm::Library::Load (library);
    if (st.ok ()) {
      if (!(*library)->stand_in ().empty ())
        GST_WARNING_OBJECT (self, "NVMM through %s (%s): the tests' stand-in, not Jetson's library",
                            (*library)->stand_in ().c_str (), (*library)->path ().c_str ());
      return true;
    }
    why = st.message;
  }
  GST_WARNING_OBJECT (self, "refusing caps %" GST_PTR_FORMAT ": %s", incaps, why.c_str ());
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Cannot take these caps: %s", why.c_str ()),
                     ("caps %" GST_PTR_FORMAT, incaps));
  return false;
}

/* Caps beyond the templates are never refused in accept-caps (its reason would show only in the
 * debug log): the templates hold every format and the progressive-only rule, and set_caps posts
 * what it cannot take as an error. */
static gboolean gst_dla_base_infer_set_caps (GstBaseTransform *trans, GstCaps *incaps, GstCaps *)
{
  GstDlaBaseInfer *self = GST_DLA_BASE_INFER (trans);
  /* Also reached from a reconfigure, without a CAPS event: the frames of the old caps go first. */
  drain (self, "new caps");
  /* A waiting sharer that cannot open has posted why: the caps are taken and its first frame
   * returns GST_FLOW_ERROR (submit_input_buffer), so upstream says "reason error", pointing at that
   * error, not not-negotiated, which would point at the caps. */
  if (!gst_dla_base_infer_open_waiting (self, true)) {
    GST_DEBUG_OBJECT (self, "the model did not open: caps %" GST_PTR_FORMAT " taken, frames refused", incaps);
    return TRUE;
  }
  GstVideoInfo info;
  std::string why = "not video caps";
  preprocess::SourceView source;
  if (!gst_video_info_from_caps (&info, incaps) || !dlainfer::source_template (&info, &source, &why)) {
    GST_WARNING_OBJECT (self, "refusing caps %" GST_PTR_FORMAT ": %s", incaps, why.c_str ());
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Cannot take these caps: %s", why.c_str ()),
                       ("caps %" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  const dlainfer::FrameMemory memory = dlainfer::frame_memory (incaps);
  std::shared_ptr<const nvmm::Library> nvmm_library;
  if (memory == dlainfer::FrameMemory::kNvmm && !nvmm_caps (self, incaps, &info, &nvmm_library))
    return FALSE;
  dla::ScopedContext scope (self->priv->cuda.primary ());
  const dla::Status st = self->priv->input.configure (info, source, memory, std::move (nvmm_library));
  if (!st.ok ()) {
    post_status (self, st, "upload staging for system-memory frames");
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "caps %" GST_PTR_FORMAT " (%s memory)", incaps,
                    dlainfer::frame_memory_name (memory));
  return TRUE;
}

/* Takes the frame basetransform queued (negotiation and reconfiguration done by the parent) and
 * hands it to the DLA; nothing is pushed here: the src pad's task pushes (push_loop.cpp). */
static GstFlowReturn gst_dla_base_infer_submit_input_buffer (GstBaseTransform *trans, gboolean is_discont,
                                                             GstBuffer *input)
{
  const GstFlowReturn ret =
      GST_BASE_TRANSFORM_CLASS (parent_class)->submit_input_buffer (trans, is_discont, input);
  if (ret != GST_FLOW_OK)
    return ret;
  GstBuffer *buf = trans->queued_buf;
  trans->queued_buf = nullptr;
  if (!buf)
    return GST_FLOW_OK;
  if (!gst_dla_base_infer_open_waiting (GST_DLA_BASE_INFER (trans), true)) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  /* The meta goes on the frame in place: after a tee the buffer is shared, so copy it now. */
  return gst_dla_base_infer_submit_frame (GST_DLA_BASE_INFER (trans), gst_buffer_make_writable (buf));
}

static GstFlowReturn gst_dla_base_infer_generate_output (GstBaseTransform *trans, GstBuffer **outbuf)
{
  *outbuf = nullptr;
  return GST_DLA_BASE_INFER (trans)->priv->inflight.flow ();
}

static gboolean gst_dla_base_infer_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstDlaBaseInfer *self = GST_DLA_BASE_INFER (trans);
  GstDlaBaseInferPrivate *priv = self->priv;
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START: {
      /* Downstream first (a push in progress returns), then every wait here; the task pauses. */
      const gboolean ret = GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
      priv->inflight.set_flushing (true);
      gst_pad_pause_task (GST_BASE_TRANSFORM_SRC_PAD (trans));
      return ret;
    }
    case GST_EVENT_FLUSH_STOP: {
      gst_dla_base_infer_drop_frames (
          self, std::chrono::steady_clock::now () + gst_dla_base_infer_task_timeout (self));
      /* After a flush (a seek) the last result belongs elsewhere: it is never carried across; the
       * stream starts over, and may fail (and say so) again. */
      if (priv->stage)
        priv->stage->reset ();
      priv->stream_failed = false;
      const gboolean ret = GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
      gst_dla_base_infer_start_pushing (self);
      return ret;
    }
    case GST_EVENT_TAG:
      break;
    case GST_EVENT_STREAM_START:
      /* A new stream (concat, input-selector): likewise. */
      drain (self, "stream-start");
      if (priv->stage)
        priv->stage->reset ();
      break;
    case GST_EVENT_EOS:
      drain (self, "EOS");
      /* The last counts of the stream, before EOS goes downstream. */
      priv->stats_notified_us = g_get_monotonic_time ();
      gst_dla_base_infer_notify (self, GST_DLA_BASE_INFER_NOTIFY_STATS);
      break;
    default:
      if (GST_EVENT_IS_SERIALIZED (event))
        drain (self, GST_EVENT_TYPE_NAME (event));
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* Upstream's pools must hold the frames in flight beyond what downstream asks for. */
static gboolean gst_dla_base_infer_propose_allocation (GstBaseTransform *trans, GstQuery *decide_query,
                                                       GstQuery *query)
{
  GstDlaBaseInfer *self = GST_DLA_BASE_INFER (trans);
  GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans, decide_query, query);
  GST_OBJECT_LOCK (self);
  guint extra = guint (self->priv->settings.max_in_flight);
  GST_OBJECT_UNLOCK (self);
  if (self->priv->model && self->priv->model->engine->spare_slot ())
    extra += 1; /* max-in-flight=1: the frame whose task the spare slot takes */
  const guint n = gst_query_get_n_allocation_pools (query);
  for (guint i = 0; i < n; ++i) {
    GstBufferPool *pool = nullptr;
    guint size, min, max;
    gst_query_parse_nth_allocation_pool (query, i, &pool, &size, &min, &max);
    min += extra;
    gst_query_set_nth_allocation_pool (query, i, pool, size, min, max != 0 ? std::max (max, min) : 0);
    if (pool)
      gst_object_unref (pool);
  }
  if (n == 0) {
    /* Downstream named no pool: still ask upstream's own for the frames we hold. */
    GstCaps *caps = nullptr;
    gboolean need_pool;
    gst_query_parse_allocation (query, &caps, &need_pool);
    GstVideoInfo info;
    if (caps && gst_video_info_from_caps (&info, caps))
      gst_query_add_allocation_pool (query, nullptr, guint (GST_VIDEO_INFO_SIZE (&info)), extra, 0);
  }
  GST_DEBUG_OBJECT (self, "allocation: %u more buffer(s) for the frames in flight: %" GST_PTR_FORMAT, extra,
                    query);
  return TRUE;
}
