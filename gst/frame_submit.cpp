/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a frame from upstream to the DLA, on the streaming thread (docs/architecture.md 8):
 * the settings it runs with, its plan (stages/frame_stage.h), then per wave of the plan: room for
 * its tasks, the tasks acquired, one kernel launch into their inputs on the element's stream, each
 * submitted; and the frame queued for the src pad's task with its last wave's tasks. */
#include <chrono>

#include "dla/fatal.h"
#include "dla/primary_context.h"
#include "gst/gstdlabaseinfer-private.h"

#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace {

using dlainfer::FrameSettings;
using dlainfer::InFlight;
using dlainfer::PendingFrame;

FrameSettings frame_settings (GstDlaBaseInfer *self, PendingFrame *f, std::string *bad)
{
  GstDlaBaseInferPrivate *priv = self->priv;
  FrameSettings s;
  GST_OBJECT_LOCK (self);
  /* A mean/std changed to a wrong value while playing fails the stream, as it would fail start. */
  dlainfer::check (priv->settings, bad);
  s.pre = dlainfer::preprocess_params (priv->settings);
  s.interval = priv->settings.interval;
  priv->stage->settings (priv->settings, *priv->model, *f, &s);
  GST_OBJECT_UNLOCK (self);
  return s;
}

/* What upstream gets when no frame may be queued. */
GstFlowReturn refused_flow (GstDlaBaseInfer *self, InFlight::Wait w)
{
  if (w == InFlight::Wait::kFlushing)
    return GST_FLOW_FLUSHING;
  const GstFlowReturn ret = self->priv->inflight.flow ();
  GST_DEBUG_OBJECT (self, "the src task stopped with %s", gst_flow_get_name (ret));
  return ret == GST_FLOW_OK ? GST_FLOW_ERROR : ret;
}

/* max-in-flight=1: the DLA ends its one task before the next is submitted. The streaming thread
 * waits for that end itself, beside the src task: waiting for the src task to read the task and
 * wake it would leave the DLA idle for that wake-up on every frame (the engine's spare slot takes
 * the next input meanwhile). In slices, so that a flush or the src task's stored flow (a failed or
 * hung task) ends the wait, and within task-timeout (one more per task queued before it on its
 * core) + 1 s of its own (a task no frame waits for any more: one a flush dropped while it hung).
 * kTimeout then, with the task left in flight. */
InFlight::Wait await_previous_task (GstDlaBaseInfer *self)
{
  GstDlaBaseInferPrivate *priv = self->priv;
  constexpr std::chrono::milliseconds kSlice{100};
  const auto give_up = std::chrono::steady_clock::now () +
                       gst_dla_base_infer_task_allowance (self, priv->previous_slot) +
                       std::chrono::seconds (1);
  while (priv->previous_slot >= 0) {
    if (priv->inflight.flushing ())
      return InFlight::Wait::kFlushing;
    if (priv->inflight.flow () != GST_FLOW_OK)
      return InFlight::Wait::kStopped;
    const auto now = std::chrono::steady_clock::now ();
    if (now >= give_up)
      return InFlight::Wait::kTimeout;
    /* Any end but a timeout (ended, failed, a fault): acquire () says what comes next. */
    const dla::Status st =
        priv->model->engine->await_end (priv->previous_slot, std::min (give_up, now + kSlice));
    if (st.code != dla::Code::kTimeout)
      priv->previous_slot = -1;
  }
  return InFlight::Wait::kReady;
}

/* Room for `tasks` more tasks (and, with the spare slot, the previous task's end). */
GstFlowReturn wait_for_room (GstDlaBaseInfer *self, int tasks)
{
  GstDlaBaseInferPrivate *priv = self->priv;
  InFlight::Wait w = priv->inflight.wait_for_tasks (tasks);
  if (w == InFlight::Wait::kReady && tasks > 0 && priv->model->engine->spare_slot ())
    w = await_previous_task (self);
  if (w == InFlight::Wait::kTimeout)
    return frame_failed (
        self,
        dla::Status::Error (
            dla::Code::kTimeout,
            "the DLA task before this frame did not end within task-timeout "
            "(" +
                std::to_string (gst_dla_base_infer_task_timeout (self).count ()) +
                " ms, one more for each task queued before it on its DLA core) + 1 s; raise task-timeout if "
                "the model needs longer"),
        "waiting for the DLA task before the frame's");
  return w == InFlight::Wait::kReady ? GST_FLOW_OK : refused_flow (self, w);
}

/* The frame's tasks submitted so far cannot go on (a later step failed): nothing reads their
 * inputs any more, and each ends before the frame goes (cuDLA cannot cancel), by task-timeout. */
void drop_tasks (GstDlaBaseInfer *self, PendingFrame *f)
{
  const auto deadline = std::chrono::steady_clock::now () + gst_dla_base_infer_task_timeout (self);
  self->priv->input.drain ();
  for (dlainfer::FrameTask &t : f->tasks)
    if (t.task.in_flight ())
      t.task.wait (deadline);
  f->tasks.clear (); /* one still running frees its slot when it ends */
}

/* Plan tasks [begin, end) (one wave): acquired, their inputs written in one launch, each submitted
 * after it, then held by the frame. */
dla::Status start_wave (GstDlaBaseInfer *self, PendingFrame *f, const dlainfer::objects::WorkPlan &plan,
                        size_t begin, size_t end, const preprocess::Params &pre, const char **step)
{
  GstDlaBaseInferPrivate *priv = self->priv;
  dla::Engine &engine = *priv->model->engine;
  std::vector<dla::Task> tasks (end - begin);
  *step = "dla::Engine::acquire";
  dla::Status st;
  for (size_t i = 0; i < tasks.size () && st.ok (); ++i)
    st = engine.acquire (&tasks[i]);
  void *ready = nullptr;
  if (st.ok ()) {
    *step = priv->stage->write_step ();
    st = priv->stage->write (self, *f, plan, begin, tasks, pre, &ready);
    f->graphed = st.ok () && priv->input.graphed ();
  }
  for (size_t i = 0; i < tasks.size () && st.ok (); ++i) {
    *step = "dla::Engine::submit";
    st = tasks[i].submit (ready);
    /* Queued, even when submit reports an error after queueing: the next frame awaits its end.
     * A submit that succeeded queued it (no need to ask the engine, under its lock, every frame). */
    if (engine.spare_slot () && (st.ok () || tasks[i].in_flight ()))
      priv->previous_slot = tasks[i].slot ();
    if (st.ok ()) {
      const dlainfer::objects::PlannedTask &pt = plan.tasks[begin + i];
      f->tasks.push_back ({std::move (tasks[i]), pt.first, pt.count, i == 0});
    }
  }
  /* After a failure the unsubmitted tasks go back with `tasks`; one queued despite its error frees
   * its slot when it ends. */
  if (!st.ok ())
    drop_tasks (self, f);
  return st;
}

/* An earlier wave of the frame ended before the next can take its slots: read here. Each task gets
 * its own task-timeout from when its wait starts (a wave's tasks run one after another). */
GstFlowReturn read_earlier_wave (GstDlaBaseInfer *self, PendingFrame *f)
{
  GstDlaBaseInferPrivate *priv = self->priv;
  dla::ScopedContext scope (priv->cuda.primary ());
  bool aborted = false;
  const dla::Status st = gst_dla_base_infer_wait_frame_tasks (self, *f, &aborted);
  if (aborted || !st.ok ()) {
    drop_tasks (self, f);
    return aborted ? GST_FLOW_FLUSHING
                   : frame_failed (self, st, "dla::Engine::wait (an earlier wave of the frame's objects)");
  }
  priv->stage->read (self, *f, dlainfer::Reader::kStreaming);
  f->tasks.clear ();
  return GST_FLOW_OK;
}

/* The plan's waves in turn; the frame queued with the last one's tasks. */
GstFlowReturn submit_plan (GstDlaBaseInfer *self, PendingFrame &f, const dlainfer::objects::WorkPlan &plan,
                           const preprocess::Params &pre)
{
  GstDlaBaseInferPrivate *priv = self->priv;
  GstFlowReturn ret = GST_FLOW_OK;
  for (size_t w = 0, begin = 0; w < plan.waves; ++w) {
    size_t end = begin;
    while (end < plan.tasks.size () && plan.tasks[end].wave == w)
      ++end;
    if (!f.tasks.empty () && (ret = read_earlier_wave (self, &f)) != GST_FLOW_OK)
      return ret;
    if ((ret = wait_for_room (self, int (end - begin))) != GST_FLOW_OK)
      return ret;
    dla::ScopedContext scope (priv->cuda.primary ());
    const char *step = "";
    const dla::Status st = start_wave (self, &f, plan, begin, end, pre, &step);
    if (!st.ok ())
      return frame_failed (self, st, step);
    begin = end;
  }
  /* No task (nothing to infer): queued behind the others, pushed without a wait. */
  if (plan.tasks.empty () && (ret = wait_for_room (self, 0)) != GST_FLOW_OK)
    return ret;
  GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": queued with %d task(s)",
                  GST_TIME_ARGS (GST_BUFFER_PTS (f.buffer)), f.task_count ());
  priv->inflight.push (std::move (f));
  return GST_FLOW_OK;
}

/* The frame's times, at submit: for the result message and the hold. basetransform keeps the
 * position only for buffers it pushes itself: the frame's end is the position now. */
void stamp (GstDlaBaseInfer *self, PendingFrame *f)
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

GstFlowReturn gst_dla_base_infer_submit_frame (GstDlaBaseInfer *self, GstBuffer *buf)
{
  GstDlaBaseInferPrivate *priv = self->priv;
  PendingFrame f;
  f.buffer = buf;
  stamp (self, &f);
  const GstFlowReturn stored = priv->inflight.flow ();
  if (stored != GST_FLOW_OK)
    return stored;
  if (dla::process_poisoned ())
    return frame_failed (self, dla::Status::Error (dla::Code::kFatal, gst_dla_base_infer_restart_message),
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
  const dlainfer::objects::WorkPlan *plan = nullptr;
  const InFlight::Wait w = priv->stage->plan (self, f, s, &plan);
  if (w != InFlight::Wait::kReady)
    return refused_flow (self, w);
  return submit_plan (self, f, *plan, s.pre);
}

dla::Status gst_dla_base_infer_warm_up (GstDlaBaseInfer *self)
{
  GstDlaBaseInferPrivate *priv = self->priv;
  dla::Engine &engine = *priv->model->engine;
  dla::ScopedContext scope (priv->cuda.primary ());
  const auto start = std::chrono::steady_clock::now ();
  dla::Task task; /* nobody reads the warm-up's outputs: given back when it goes */
  dla::Status st = engine.acquire (&task);
  if (st.ok ())
    st = task.submit (nullptr);
  if (!st.ok ())
    return st;
  /* Behind the other sharers' tasks queued on its core: a task-timeout for each. */
  st = task.wait (start + gst_dla_base_infer_task_allowance (self, task.slot ()) + std::chrono::seconds (1));
  if (!st.ok ())
    return st;
  const auto took = std::chrono::steady_clock::now () - start;
  gst_dla_base_infer_announce_latency (self, std::chrono::duration_cast<std::chrono::nanoseconds> (took));
  priv->downstream.reset ();
  return st;
}
