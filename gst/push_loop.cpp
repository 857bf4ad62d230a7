/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the src pad's task, from the DLA to downstream (docs/architecture.md 8): the
 * oldest frame, the wait for its task (a host-side deadline from task-timeout), its results, the
 * push; and the frames a flush or a stop drops. */
#include <algorithm>
#include <chrono>

#include "dla/completion_wait.h"
#include "dla/primary_context.h"
#include "gst/gstdlainfer-private.h"
#include "gst/outputs/result_message.h"

#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace {

using Clock = std::chrono::steady_clock;

/* The task's wait is cut in slices so that a flush or a stop ends it in this much time. */
constexpr std::chrono::milliseconds kWaitSlice{100};

dla::Task task_of (const dlainfer::PendingFrame &f)
{
  return dla::Task{f.slot, nullptr, f.timed};
}

/* roi-list: "dlainfer-result" with the frame's times, backend and `objects`, one entry per
 * selected object with its box and result (objects/object_output.h). */
void post_objects (GstDlaInfer *self, const dlainfer::PendingFrame &f)
{
  GValue array = G_VALUE_INIT;
  g_value_init (&array, GST_TYPE_ARRAY);
  for (const dlainfer::objects::FrameObject &o : f.objects->objects) {
    GValue item = G_VALUE_INIT;
    g_value_init (&item, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&item, dlainfer::objects::object_message_entry (o));
    gst_value_array_append_and_take_value (&array, &item);
  }
  GstStructure *s =
      dlainfer::frame_structure (dlainfer::frame_times (f.buffer, &f.segment), self->priv->output.backend ());
  gst_structure_take_value (s, "objects", &array);
  gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self), s));
}

/* roi-list: each object's result read from its tasks (or carried), what needs the slots, and
 * kept for the next frames' objects (as before the slots go: with one in flight the next frame's
 * selection sees it). */
void read_object_results (GstDlaInfer *self, dlainfer::PendingFrame &f)
{
  GstDlaInferPrivate *priv = self->priv;
  gst_dla_infer_read_object_tasks (self, f, f.tasks, &priv->objects.scores, &priv->objects.results);
  priv->objects.flow.classified (*f.objects);
}

/* roi-list: each object's result written back on the buffer, the counts, the message. */
void publish_object_results (GstDlaInfer *self, dlainfer::PendingFrame &f)
{
  GstDlaInferPrivate *priv = self->priv;
  const dlainfer::objects::FrameObjects &fo = *f.objects;
  dlainfer::objects::write_object_results (f.buffer, fo.objects, priv->objects.names);
  const dlainfer::objects::FrameCounts &c = fo.counts;
  priv->stats.object_frame ({c.seen, c.classified, c.carried, c.selection.degenerate, c.selection.filtered,
                             c.selection.too_small, c.selection.over_maximum});
  if (f.post_messages)
    post_objects (self, f);
}

/* What needs the frame's slots: the post-processing, the stage timings, the raw tensors. After it
 * the slots may take the next frames' tasks. */
void read_results (GstDlaInfer *self, dlainfer::PendingFrame &f)
{
  GstDlaInferPrivate *priv = self->priv;
  if (f.objects) {
    read_object_results (self, f);
    return;
  }
  if (!f.inferred ())
    return;
  dla::Engine &engine = *priv->model->engine;
  const dla::SlotTimings t = engine.timings (f.slot);
  const auto post_start = Clock::now ();
  priv->output.classify (priv->model->plan.output_view, engine.host_output (f.slot, 0),
                         priv->tensors.class_scores (f.slot), f.post, t.dla_core);
  const float post_ms = std::chrono::duration<float, std::milli> (Clock::now () - post_start).count ();
  priv->stats.inferred (priv->input.preprocess_ms (task_of (f)), t.dla_ms, post_ms, t.total_ms, f.graphed,
                        t.dla_core, t.busy_ms);
  priv->tensors.attach (GST_ELEMENT (self), f.buffer, engine, f.slot);
}

/* The frame's results on the buffer and the bus, from what read_results () kept. */
void publish_results (GstDlaInfer *self, dlainfer::PendingFrame &f)
{
  GstDlaInferPrivate *priv = self->priv;
  if (f.objects) {
    publish_object_results (self, f);
    return;
  }
  if (!f.inferred ()) {
    priv->output.attach (GST_OBJECT (self), f.buffer, true, f.age);
    priv->stats.skipped ();
    return;
  }
  priv->output.attach (GST_OBJECT (self), f.buffer, false, 0);
  if (f.post_messages)
    priv->output.post (GST_ELEMENT (self), f.buffer, &f.segment);
  if (!priv->output.empty ())
    GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": %s %.3f", GST_TIME_ARGS (GST_BUFFER_PTS (f.buffer)),
                    priv->output.best_label (), double (priv->output.best_confidence ()));
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

/* Waits every task of the frame in turn; false when one failed (posted) or a flush came: the
 * frame went back to the queue. */
bool wait_tasks (GstDlaInfer *self, dlainfer::PendingFrame &f)
{
  GstDlaInferPrivate *priv = self->priv;
  const size_t n = size_t (f.task_count ());
  for (size_t i = 0; i < n; ++i) {
    const dla::Task task =
        f.inferred () ? task_of (f) : dla::Task{f.tasks[i].slot, nullptr, f.tasks[i].timed};
    bool aborted = false;
    GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": waiting for slot %d (DLA core %d)",
                    GST_TIME_ARGS (GST_BUFFER_PTS (f.buffer)), task.slot,
                    priv->model->engine->core_of (task.slot));
    const dla::Status st = gst_dla_infer_wait_task (self, task, &aborted);
    if (aborted || !st.ok ()) {
      const GstFlowReturn ret = aborted ? GST_FLOW_OK : frame_failed (self, st, "dla::Engine::wait");
      priv->inflight.give_back (std::move (f), ret);
      return false;
    }
  }
  return true;
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
  if (!wait_tasks (self, f)) {
    /* Dropped later (drop_frames), once its kernel and its tasks have ended. */
    gst_pad_pause_task (GST_BASE_TRANSFORM_SRC_PAD (self));
    return;
  }
  read_results (self, f);
  /* The slots go back before the meta, the message and the push: with one slot in flight the next
   * frame's kernel and task start while this one is published. To the engine first: the streaming
   * thread acquires one as soon as task_done () makes room. */
  if (f.task_count () > 0) {
    gst_dla_infer_release_tasks (*priv->model->engine, f);
    priv->inflight.task_done (f.task_count ());
  }
  publish_results (self, f);
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

void gst_dla_infer_read_object_tasks (GstDlaInfer *self, dlainfer::PendingFrame &f,
                                      const std::vector<dlainfer::ObjectTask> &tasks,
                                      std::vector<float> *scores, std::vector<postprocess::Result> *results)
{
  GstDlaInferPrivate *priv = self->priv;
  dla::Engine &engine = *priv->model->engine;
  dlainfer::objects::FrameObjects &fo = *f.objects;
  for (const dlainfer::ObjectTask &t : tasks) {
    const dla::Task task{t.slot, nullptr, t.timed};
    const dla::SlotTimings timing = engine.timings (t.slot);
    const auto post_start = Clock::now ();
    const void *out = engine.host_output (t.slot, 0);
    for (uint32_t j = 0; j < t.count && out; ++j) {
      dlainfer::objects::FrameObject &o = fo.objects[fo.plan.objects[t.first + j]];
      dlainfer::objects::read_item_result (priv->model->plan.output_view, out, j, f.post,
                                           priv->output.labels (), scores, results, &o.result);
      o.has_result = true;
      o.dla_core = timing.dla_core;
    }
    const float post_ms = std::chrono::duration<float, std::milli> (Clock::now () - post_start).count ();
    if (t.first_of_wave)
      priv->stats.object_launch ();
    priv->stats.object_task (t.first_of_wave ? priv->input.preprocess_ms (task) : -1.f, timing.dla_ms,
                             post_ms, timing.total_ms, f.graphed && t.first_of_wave, timing.dla_core,
                             timing.busy_ms);
  }
}

void gst_dla_infer_release_tasks (dla::Engine &engine, const dlainfer::PendingFrame &f)
{
  if (f.inferred ())
    engine.release (task_of (f));
  for (const dlainfer::ObjectTask &t : f.tasks)
    engine.release (dla::Task{t.slot, nullptr, t.timed});
}

dla::Status gst_dla_infer_wait_task (GstDlaInfer *self, const dla::Task &task, bool *aborted)
{
  GstDlaInferPrivate *priv = self->priv;
  dla::Engine &engine = *priv->model->engine;
  const std::chrono::milliseconds timeout = gst_dla_infer_task_timeout (self);
  const int ahead = std::max (0, engine.tasks_ahead (task.slot));
  const auto deadline = Clock::now () + gst_dla_infer_task_allowance (self, task.slot);
  dla::ScopedContext scope (priv->cuda.primary ());
  for (;;) {
    const dla::Status st = engine.wait (task, std::min (deadline, Clock::now () + kWaitSlice));
    if (st.code != dla::Code::kTimeout || !engine.in_flight (task.slot))
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
  /* cuDLA cannot cancel: a slot goes back only after its task ended (one whose wait timed out when
   * the engine sees it end). */
  std::vector<dla::Task> tasks;
  for (const dlainfer::PendingFrame &f : frames) {
    if (f.inferred ())
      tasks.push_back (task_of (f));
    for (const dlainfer::ObjectTask &t : f.tasks)
      tasks.push_back ({t.slot, nullptr, t.timed});
  }
  for (const dla::Task &t : tasks) {
    const dla::Status st = engine.in_flight (t.slot) ? engine.wait (t, deadline) : dla::Status::Ok ();
    if (!st.ok ())
      GST_WARNING_OBJECT (self, "dropping a frame: its DLA task on slot %d: %s", t.slot, st.message.c_str ());
    engine.abandon (t);
  }
  GST_DEBUG_OBJECT (self, "dropped %u frame(s)", guint (frames.size ()));
}

std::chrono::milliseconds gst_dla_infer_task_timeout (GstDlaInfer *self)
{
  /* The model's, which a sharer that left task-timeout unset took from its definer. */
  if (self->priv->model)
    return self->priv->model->engine->task_timeout ();
  GST_OBJECT_LOCK (self);
  const uint32_t ms = self->priv->settings.task_timeout_ms;
  GST_OBJECT_UNLOCK (self);
  return std::chrono::milliseconds (ms);
}

std::chrono::milliseconds gst_dla_infer_task_allowance (GstDlaInfer *self, int slot)
{
  /* Each task queued before it on its core (another sharer's too) may take a task-timeout: a hung
   * one fails its own element, not those whose tasks wait behind it. */
  const int ahead = self->priv->model ? self->priv->model->engine->tasks_ahead (slot) : 0;
  return gst_dla_infer_task_timeout (self) * (1 + std::max (0, ahead));
}

void gst_dla_infer_maybe_notify_stats (GstDlaInfer *self)
{
  const gint64 now = g_get_monotonic_time ();
  if (now - self->priv->stats_notified_us < G_USEC_PER_SEC)
    return;
  self->priv->stats_notified_us = now;
  gst_dla_infer_notify (self, GST_DLA_INFER_NOTIFY_STATS);
}
