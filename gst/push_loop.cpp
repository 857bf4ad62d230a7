/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the src pad's task, from the DLA to downstream (docs/architecture.md 8): the
 * oldest frame, the wait for its tasks (a host-side deadline from task-timeout), the stage's read,
 * the tasks given back, the stage's publish, the push; and the frames a flush or a stop drops. */
#include <algorithm>
#include <chrono>

#include "dla/completion_wait.h"
#include "dla/primary_context.h"
#include "gst/gstdlabaseinfer-private.h"

#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace {

using Clock = std::chrono::steady_clock;

/* The task's wait is cut in slices so that a flush or a stop ends it in this much time. */
constexpr std::chrono::milliseconds kWaitSlice{100};

/* As `queue` does: an error downstream is posted and ends the stream; the task pauses. */
void pause_on (GstDlaBaseInfer *self, GstFlowReturn ret)
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
void note_hold (GstDlaBaseInfer *self, const dlainfer::PendingFrame &f, Clock::time_point now)
{
  GstDlaBaseInferPrivate *priv = self->priv;
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

/* Waits every task of the frame; false when one failed (posted) or a flush came: the frame went
 * back to the queue. */
bool wait_tasks (GstDlaBaseInfer *self, dlainfer::PendingFrame &f)
{
  bool aborted = false;
  const dla::Status st = gst_dla_base_infer_wait_frame_tasks (self, f, &aborted);
  if (aborted || !st.ok ()) {
    const GstFlowReturn ret = aborted ? GST_FLOW_OK : frame_failed (self, st, "dla::Engine::wait");
    self->priv->inflight.give_back (std::move (f), ret);
    return false;
  }
  return true;
}

void push_loop (gpointer data)
{
  GstDlaBaseInfer *self = GST_DLA_BASE_INFER (data);
  GstDlaBaseInferPrivate *priv = self->priv;
  /* A GstTask's thread goes back to a pool: its timer slack is ours only while we wait. */
  dla::TimerSlackScope slack;
  dlainfer::PendingFrame f;
  if (priv->inflight.next (&f) != dlainfer::InFlight::Wait::kReady) {
    gst_pad_pause_task (GST_BASE_TRANSFORM_SRC_PAD (self));
    return;
  }
  if (!wait_tasks (self, f)) {
    /* Dropped later (drop_frames), once its kernel and its tasks have ended. */
    gst_pad_pause_task (GST_BASE_TRANSFORM_SRC_PAD (self));
    return;
  }
  priv->stage->read (self, f, dlainfer::Reader::kSrcTask);
  /* The slots go back before the meta, the message and the push: with one slot in flight the next
   * frame's kernel and task start while this one is published. To the engine first: the streaming
   * thread acquires one as soon as task_done () makes room. */
  if (f.task_count () > 0) {
    for (dlainfer::FrameTask &t : f.tasks)
      t.task.give_back ();
    priv->inflight.task_done (f.task_count ());
  }
  priv->stage->publish (self, f);
  const auto now = Clock::now ();
  note_hold (self, f, now);
  priv->downstream.push_started (now);
  const GstFlowReturn ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), f.take_buffer ());
  priv->downstream.push_ended (Clock::now ());
  priv->inflight.pushed (ret);
  gst_dla_base_infer_maybe_notify_stats (self);
  if (ret != GST_FLOW_OK)
    pause_on (self, ret);
}

}  // namespace

dla::Status gst_dla_base_infer_wait_task (GstDlaBaseInfer *self, dla::Task &task, bool *aborted)
{
  GstDlaBaseInferPrivate *priv = self->priv;
  const std::chrono::milliseconds timeout = gst_dla_base_infer_task_timeout (self);
  const int ahead = std::max (0, task.tasks_ahead ());
  const auto deadline = Clock::now () + gst_dla_base_infer_task_allowance (self, task.slot ());
  dla::ScopedContext scope (priv->cuda.primary ());
  for (;;) {
    const dla::Status st = task.wait (std::min (deadline, Clock::now () + kWaitSlice));
    if (st.code != dla::Code::kTimeout || !task.in_flight ())
      return st;
    if (Clock::now () >= deadline)
      return dla::Status::Error (dla::Code::kTimeout,
                                 "the DLA task did not finish within the task timeout of " +
                                     std::to_string (timeout.count ()) +
                                     " ms (the element's own deadline, counting " + std::to_string (ahead) +
                                     " task(s) queued before it on its DLA core)");
    if (priv->inflight.flushing ()) {
      *aborted = true;
      return st;
    }
  }
}

dla::Status gst_dla_base_infer_wait_frame_tasks (GstDlaBaseInfer *self, dlainfer::PendingFrame &f,
                                                 bool *aborted)
{
  for (dlainfer::FrameTask &t : f.tasks) {
    GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": waiting for slot %d (DLA core %d)",
                    GST_TIME_ARGS (GST_BUFFER_PTS (f.buffer)), t.task.slot (), t.task.dla_core ());
    const dla::Status st = gst_dla_base_infer_wait_task (self, t.task, aborted);
    if (*aborted || !st.ok ())
      return st;
  }
  return dla::Status::Ok ();
}

void gst_dla_base_infer_start_pushing (GstDlaBaseInfer *self)
{
  self->priv->inflight.set_flushing (false);
  gst_pad_start_task (GST_BASE_TRANSFORM_SRC_PAD (self), push_loop, self, nullptr);
}

void gst_dla_base_infer_stop_pushing (GstDlaBaseInfer *self)
{
  self->priv->inflight.set_flushing (true);
  gst_pad_stop_task (GST_BASE_TRANSFORM_SRC_PAD (self));
}

void gst_dla_base_infer_drop_frames (GstDlaBaseInfer *self, std::chrono::steady_clock::time_point deadline)
{
  GstDlaBaseInferPrivate *priv = self->priv;
  std::deque<dlainfer::PendingFrame> frames = priv->inflight.take_all ();
  if (frames.empty () || !priv->model)
    return;
  dla::ScopedContext scope (priv->cuda.primary ());
  /* No kernel reads a dropped frame any more; the DLA reads only its own tensors. */
  priv->input.drain ();
  /* cuDLA cannot cancel: a slot goes back only after its task ended (one whose wait timed out when
   * the engine sees it end). */
  for (dlainfer::PendingFrame &f : frames)
    for (dlainfer::FrameTask &t : f.tasks) {
      const dla::Status st = t.task.in_flight () ? t.task.wait (deadline) : dla::Status::Ok ();
      if (!st.ok ())
        GST_WARNING_OBJECT (self, "dropping a frame: its DLA task on slot %d: %s", t.task.slot (),
                            st.message.c_str ());
    }
  GST_DEBUG_OBJECT (self, "dropped %u frame(s)", guint (frames.size ()));
}

std::chrono::milliseconds gst_dla_base_infer_task_timeout (GstDlaBaseInfer *self)
{
  /* The model's, which a sharer that left task-timeout unset took from its definer. */
  if (self->priv->model)
    return self->priv->model->engine->task_timeout ();
  GST_OBJECT_LOCK (self);
  const uint32_t ms = self->priv->settings.task_timeout_ms;
  GST_OBJECT_UNLOCK (self);
  return std::chrono::milliseconds (ms);
}

std::chrono::milliseconds gst_dla_base_infer_task_allowance (GstDlaBaseInfer *self, int slot)
{
  /* Each task queued before it on its core (another sharer's too) may take a task-timeout: a hung
   * one fails its own element, not those whose tasks wait behind it. */
  const int ahead = self->priv->model ? self->priv->model->engine->tasks_ahead (slot) : 0;
  return gst_dla_base_infer_task_timeout (self) * (1 + std::max (0, ahead));
}

void gst_dla_base_infer_maybe_notify_stats (GstDlaBaseInfer *self)
{
  const gint64 now = g_get_monotonic_time ();
  if (now - self->priv->stats_notified_us < G_USEC_PER_SEC)
    return;
  self->priv->stats_notified_us = now;
  gst_dla_base_infer_notify (self, GST_DLA_BASE_INFER_NOTIFY_STATS);
}
