/* gst-dlainfer: the src pad's task, from the DLA to downstream (docs/architecture.md 8): the
 * oldest frame, the wait for its task (a host-side deadline from task-timeout), its results, the
 * push; and the frames a flush or a stop drops. */
#include <chrono>

#include "dla/completion_wait.h"
#include "dla/primary_context.h"
#include "gst/gstdlainfer-private.h"

#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace {

using Clock = std::chrono::steady_clock;

/* The task's wait is cut in slices so that a flush or a stop ends it in this much time. */
constexpr std::chrono::milliseconds kWaitSlice{100};

dla::Task task_of (const dlainfer::PendingFrame &f)
{
  return dla::Task{f.slot, nullptr, f.timed};
}

/* The one place a frame gets its results: post-processing, the meta, the bus message. */
void attach_results (GstDlaInfer *self, dlainfer::PendingFrame &f)
{
  GstDlaInferPrivate *priv = self->priv;
  if (!f.inferred ()) {
    priv->output.attach (GST_OBJECT (self), f.buffer, true, f.age);
    priv->stats.skipped ();
    return;
  }
  dla::Engine &engine = *priv->model->engine;
  const dla::SlotTimings t = engine.timings (f.slot);
  const auto post_start = Clock::now ();
  priv->output.classify (priv->model->plan.output_view, engine.host_output (f.slot, 0),
                         priv->tensors.class_scores (f.slot), f.post, t.dla_core);
  const float post_ms = std::chrono::duration<float, std::milli> (Clock::now () - post_start).count ();
  priv->stats.inferred (priv->input.preprocess_ms (task_of (f)), t.dla_ms, post_ms, t.total_ms, f.graphed,
                        t.dla_core, t.busy_ms);
  priv->output.attach (GST_OBJECT (self), f.buffer, false, 0);
  priv->tensors.attach (GST_ELEMENT (self), f.buffer, engine, f.slot);
  if (f.post_messages)
    priv->output.post (GST_ELEMENT (self), f.buffer, &f.segment);
  if (!priv->output.empty ())
    GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": %s %.3f", GST_TIME_ARGS (GST_BUFFER_PTS (f.buffer)),
                    priv->output.best_label (), double (priv->output.best_confidence ()));
}

/* Until the frame's task ends, task-timeout passes (whether or not cuDLA applies one itself), or
 * a flush comes (*aborted: the task stays in flight). */
dla::Status wait_task (GstDlaInfer *self, const dlainfer::PendingFrame &f, bool *aborted)
{
  GstDlaInferPrivate *priv = self->priv;
  dla::Engine &engine = *priv->model->engine;
  const std::chrono::milliseconds timeout = gst_dla_infer_task_timeout (self);
  const auto deadline = Clock::now () + timeout;
  dla::ScopedContext scope (priv->cuda.primary ());
  for (;;) {
    const dla::Status st = engine.wait (task_of (f), std::min (deadline, Clock::now () + kWaitSlice));
    if (st.code != dla::Code::kTimeout || !engine.in_flight (f.slot))
      return st;
    if (Clock::now () >= deadline)
      return dla::Status::Error (dla::Code::kTimeout,
                                 "the DLA task did not finish within the task timeout of " +
                                     std::to_string (timeout.count ()) + " ms (the element's own deadline)");
    if (priv->inflight.flushing ()) {
      *aborted = true;
      return st;
    }
  }
}

/* As `queue` does: an error downstream is posted and ends the stream; the task pauses. */
void pause_on (GstDlaInfer *self, GstFlowReturn ret)
{
  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (self);
  GST_DEBUG_OBJECT (self, "pausing the src task: %s", gst_flow_get_name (ret));
  if (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS) {
    GST_ELEMENT_FLOW_ERROR (self, ret);
    gst_pad_push_event (srcpad, gst_event_new_eos ());
  }
  gst_pad_pause_task (srcpad);
}

/* The element's own hold of a frame about to be pushed (hold_latency.h: downstream's time left
 * out); a LATENCY message when the announced latency had to grow. */
void note_hold (GstDlaInfer *self, const dlainfer::PendingFrame &f, Clock::time_point now)
{
  GstDlaInferPrivate *priv = self->priv;
  const auto hold = priv->downstream.own_hold (f.submitted_at, f.downstream_at_submit, now);
  GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": pushing after %.3f ms held, %.3f ms of it ours",
                  GST_TIME_ARGS (GST_BUFFER_PTS (f.buffer)),
                  std::chrono::duration<double, std::milli> (now - f.submitted_at).count (),
                  std::chrono::duration<double, std::milli> (hold).count ());
  if (!priv->latency.add (hold))
    return;
  GST_INFO_OBJECT (self, "99th-percentile hold %.3f ms: announcing it as the latency",
                   std::chrono::duration<double, std::milli> (self->priv->latency.announced ()).count ());
  gst_element_post_message (GST_ELEMENT (self), gst_message_new_latency (GST_OBJECT (self)));
}

void push_loop (gpointer data)
{
  GstDlaInfer *self = GST_DLA_INFER (data);
  GstDlaInferPrivate *priv = self->priv;
  /* A GstTask's thread goes back to a pool: its timer slack is ours only while we wait. */
  dla::TimerSlackScope slack;
  dlainfer::PendingFrame f;
  if (priv->inflight.next (&f) != dlainfer::InFlight::Wait::kReady) {
    gst_pad_pause_task (GST_BASE_TRANSFORM_SRC_PAD (self));
    return;
  }
  if (f.inferred ()) {
    bool aborted = false;
    GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": waiting for slot %d (DLA core %d)",
                    GST_TIME_ARGS (GST_BUFFER_PTS (f.buffer)), f.slot, priv->model->engine->core_of (f.slot));
    const dla::Status st = wait_task (self, f, &aborted);
    if (aborted || !st.ok ()) {
      /* Dropped later (drop_frames), once its kernel and its task have ended. */
      const GstFlowReturn ret = aborted ? GST_FLOW_OK : frame_failed (self, st, "dla::Engine::wait");
      priv->inflight.give_back (std::move (f), ret);
      gst_pad_pause_task (GST_BASE_TRANSFORM_SRC_PAD (self));
      return;
    }
  }
  attach_results (self, f);
  if (f.inferred ())
    priv->inflight.task_done ();
  const auto now = Clock::now ();
  note_hold (self, f, now);
  priv->downstream.push_started (now);
  const GstFlowReturn ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), f.take_buffer ());
  priv->downstream.push_ended (Clock::now ());
  priv->inflight.pushed (ret);
  gst_dla_infer_maybe_notify_stats (self);
  if (ret != GST_FLOW_OK)
    pause_on (self, ret);
}

}  // namespace

void gst_dla_infer_start_pushing (GstDlaInfer *self)
{
  self->priv->inflight.set_flushing (false);
  gst_pad_start_task (GST_BASE_TRANSFORM_SRC_PAD (self), push_loop, self, nullptr);
}

void gst_dla_infer_stop_pushing (GstDlaInfer *self)
{
  self->priv->inflight.set_flushing (true);
  gst_pad_stop_task (GST_BASE_TRANSFORM_SRC_PAD (self));
}

void gst_dla_infer_drop_frames (GstDlaInfer *self, std::chrono::steady_clock::time_point deadline)
{
  GstDlaInferPrivate *priv = self->priv;
  std::deque<dlainfer::PendingFrame> frames = priv->inflight.take_all ();
  if (frames.empty () || !priv->model)
    return;
  dla::ScopedContext scope (priv->cuda.primary ());
  /* No kernel reads a dropped frame any more; the DLA reads only its own tensors. */
  priv->input.drain ();
  dla::Engine &engine = *priv->model->engine;
  /* cuDLA cannot cancel: a slot is reused only after its task ended. */
  for (const dlainfer::PendingFrame &f : frames) {
    if (!f.inferred () || !engine.in_flight (f.slot))
      continue;
    const dla::Status st = engine.wait (task_of (f), deadline);
    if (!st.ok ())
      GST_WARNING_OBJECT (self, "dropping a frame: its DLA task on slot %d: %s", f.slot, st.message.c_str ());
  }
  GST_DEBUG_OBJECT (self, "dropped %u frame(s)", guint (frames.size ()));
}

std::chrono::milliseconds gst_dla_infer_task_timeout (GstDlaInfer *self)
{
  GST_OBJECT_LOCK (self);
  const uint32_t ms = self->priv->settings.task_timeout_ms;
  GST_OBJECT_UNLOCK (self);
  return std::chrono::milliseconds (ms);
}

void gst_dla_infer_maybe_notify_stats (GstDlaInfer *self)
{
  const gint64 now = g_get_monotonic_time ();
  if (now - self->priv->stats_notified_us < G_USEC_PER_SEC)
    return;
  self->priv->stats_notified_us = now;
  gst_dla_infer_notify (self, GST_DLA_INFER_NOTIFY_STATS);
}
