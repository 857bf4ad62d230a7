/* gst-dlainfer: a frame from upstream to the DLA, on the streaming thread (docs/architecture.md 8):
 * the settings it runs with, the interval's decision, a free task slot, the kernel into the slot's
 * input on the element's stream, the submit, and the frame queued for the src pad's task. */
#include <chrono>

#include "dla/fatal.h"
#include "dla/primary_context.h"
#include "gst/gstdlainfer-private.h"

#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace {

/* The settings one frame uses, copied under the lock. */
struct FrameSettings {
  preprocess::Params pre;
  uint32_t interval = 0;
};

FrameSettings frame_settings (GstDlaInfer *self, dlainfer::PendingFrame *f, std::string *bad)
{
  FrameSettings s;
  GST_OBJECT_LOCK (self);
  /* A mean/std changed to a wrong value while playing fails the stream, as it would fail start. */
  dlainfer::check (self->priv->settings, bad);
  s.pre = dlainfer::preprocess_params (self->priv->settings);
  s.interval = self->priv->settings.interval;
  f->post = dlainfer::postprocess_params (self->priv->settings);
  f->post_messages = self->priv->settings.post_messages;
  GST_OBJECT_UNLOCK (self);
  return s;
}

/* Acquire a slot, write its input on our stream, submit. A failure waits for our stream before
 * the frame can go, and gives back a slot not submitted. */
dla::Status start_task (GstDlaInfer *self, dlainfer::PendingFrame *f, const preprocess::Params &pre,
                        const char **step)
{
  GstDlaInferPrivate *priv = self->priv;
  dla::Engine &engine = *priv->model->engine;
  dla::Task task;
  *step = "dla::Engine::acquire";
  dla::Status st = engine.acquire (&task);
  if (!st.ok ())
    return st;
  void *ready = nullptr;
  {
    /* Mapped for the kernel's launch only: the queued frame keeps the buffer (and its memory)
     * alive until the task that read it has ended. */
    dlainfer::MappedFrame frame;
    *step = "writing the model input";
    st = priv->input.write (GST_ELEMENT (self), priv->cuda, f->buffer, task, priv->model->plan.input_view,
                            pre, &frame, &ready);
  }
  if (st.ok ()) {
    *step = "dla::Engine::submit";
    st = engine.submit (task, ready);
    if (st.ok ()) {
      f->slot = task.slot;
      f->timed = task.timed;
      f->graphed = priv->input.graphed ();
      return st;
    }
  }
  engine.release (task); /* no-op once submitted: a refused submit ended the task */
  priv->input.drain ();
  return st;
}

/* What upstream gets when no frame may be queued. */
GstFlowReturn refused_flow (GstDlaInfer *self, dlainfer::InFlight::Wait w)
{
  if (w == dlainfer::InFlight::Wait::kFlushing)
    return GST_FLOW_FLUSHING;
  const GstFlowReturn ret = self->priv->inflight.flow ();
  GST_DEBUG_OBJECT (self, "the src task stopped with %s", gst_flow_get_name (ret));
  return ret == GST_FLOW_OK ? GST_FLOW_ERROR : ret;
}

/* The frame's times, at submit: for the result message and the hold. basetransform keeps the
 * position only for buffers it pushes itself: the frame's end is the position now. */
void stamp (GstDlaInfer *self, dlainfer::PendingFrame *f)
{
  GstSegment &segment = GST_BASE_TRANSFORM (self)->segment;
  f->submitted_at = std::chrono::steady_clock::now ();
  f->downstream_at_submit = self->priv->downstream.total (f->submitted_at);
  const GstClockTime pts = GST_BUFFER_PTS (f->buffer);
  if (segment.format == GST_FORMAT_TIME && GST_CLOCK_TIME_IS_VALID (pts)) {
    f->running_time = gst_segment_to_running_time (&segment, GST_FORMAT_TIME, pts);
    const GstClockTime duration = GST_BUFFER_DURATION (f->buffer);
    segment.position = GST_CLOCK_TIME_IS_VALID (duration) ? pts + duration : pts;
  }
  f->segment = segment;
}

}  // namespace

GstFlowReturn gst_dla_infer_submit_frame (GstDlaInfer *self, GstBuffer *buf)
{
  GstDlaInferPrivate *priv = self->priv;
  dlainfer::PendingFrame f;
  f.buffer = buf;
  stamp (self, &f);
  const GstFlowReturn stored = priv->inflight.flow ();
  if (stored != GST_FLOW_OK)
    return stored;
  if (dla::process_poisoned ())
    return frame_failed (self, dla::Status::Error (dla::Code::kFatal, gst_dla_infer_restart_message),
                         "refusing frames");
  if (!priv->model) {
    priv->stats.failed ();
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("No model is open"), ("a frame before start"));
    return GST_FLOW_ERROR;
  }
  std::string bad;
  const FrameSettings s = frame_settings (self, &f, &bad);
  if (!bad.empty ())
    return frame_failed (self, dla::Status::Error (dla::Code::kSettings, bad), "checking the properties");

  const bool infer = priv->interval.infer_now (s.interval);
  const dlainfer::InFlight::Wait w = priv->inflight.wait_for_room (infer);
  if (w != dlainfer::InFlight::Wait::kReady)
    return refused_flow (self, w);
  if (infer) {
    dla::ScopedContext scope (priv->cuda.primary ());
    const char *step = "";
    const dla::Status st = start_task (self, &f, s.pre, &step);
    if (!st.ok ())
      return frame_failed (self, st, step);
    priv->interval.inferred ();
    GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": submitted on slot %d", GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
                    f.slot);
  } else {
    f.age = priv->interval.age ();
  }
  priv->inflight.push (std::move (f));
  return GST_FLOW_OK;
}

dla::Status gst_dla_infer_warm_up (GstDlaInfer *self)
{
  GstDlaInferPrivate *priv = self->priv;
  dla::Engine &engine = *priv->model->engine;
  dla::ScopedContext scope (priv->cuda.primary ());
  const auto start = std::chrono::steady_clock::now ();
  dla::Task task;
  dla::Status st = engine.acquire (&task);
  if (st.ok () && !(st = engine.submit (task, nullptr)).ok ())
    engine.release (task);
  if (!st.ok ())
    return st;
  if (!(st = engine.wait (task, start + gst_dla_infer_task_timeout (self) + std::chrono::seconds (1))).ok ())
    return st;
  const auto took = std::chrono::steady_clock::now () - start;
  gst_dla_infer_announce_latency (self, std::chrono::duration_cast<std::chrono::nanoseconds> (took));
  priv->downstream.reset ();
  return st;
}
