/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a frame from upstream to the DLA, on the streaming thread (docs/architecture.md 8):
 * the settings it runs with, the interval's decision, a free task slot, the kernel into the slot's
 * input on the element's stream, the submit, and the frame queued for the src pad's task. */
#include <chrono>

#include "dla/fatal.h"
#include "dla/primary_context.h"
#include "gst/gstdlainfer-private.h"

#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace {

GstFlowReturn refused_flow (GstDlaInfer *self, dlainfer::InFlight::Wait w);

/* The settings one frame uses, copied under the lock. */
struct FrameSettings {
  preprocess::Params pre;
  uint32_t interval = 0;
  bool objects = false;
  dlainfer::objects::FlowParams flow; /* roi-list */
};

dlainfer::objects::FlowParams flow_params (const dlainfer::Settings &st, const dla::Engine &engine,
                                           int64_t batch)
{
  dlainfer::objects::FlowParams p;
  for (const std::string &c : dlainfer::object_classes (st))
    p.selection.classes.push_back (g_quark_from_string (c.c_str ()));
  p.selection.min_width = st.min_object_width;
  p.selection.min_height = st.min_object_height;
  p.selection.max_objects = st.max_objects;
  p.reclassify_interval = st.reclassify_interval;
  p.batch = uint32_t (batch);
  p.max_tasks = uint32_t (engine.max_tasks ());
  return p;
}

FrameSettings frame_settings (GstDlaInfer *self, dlainfer::PendingFrame *f, std::string *bad)
{
  FrameSettings s;
  GST_OBJECT_LOCK (self);
  /* A mean/std changed to a wrong value while playing fails the stream, as it would fail start. */
  dlainfer::check (self->priv->settings, bad);
  s.pre = dlainfer::preprocess_params (self->priv->settings);
  s.interval = self->priv->settings.interval;
  s.objects = self->priv->objects.active;
  if (s.objects)
    s.flow =
        flow_params (self->priv->settings, *self->priv->model->engine, self->priv->model->plan.shape.batch);
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
    /* Queued, even when submit reports an error after queueing: the next frame awaits its end.
     * A submit that succeeded queued it (no need to ask the engine, under its lock, every frame). */
    if (engine.spare_slot () && (st.ok () || engine.in_flight (task.slot)))
      priv->previous_task = task;
    if (st.ok ()) {
      f->slot = task.slot;
      f->timed = task.timed;
      f->graphed = priv->input.graphed ();
      return st;
    }
  }
  /* Not read: free now, or when a task queued despite the error ends (the next frame's await). */
  engine.abandon (task);
  priv->input.drain ();
  return st;
}

/* max-in-flight=1: the DLA ends its one task before the next is submitted. The streaming thread
 * waits for that end itself, beside the src task: waiting for the src task to read the task and
 * wake it would leave the DLA idle for that wake-up on every frame (the engine's spare slot takes
 * the next input meanwhile). In slices, so that a flush or the src task's stored flow (a failed or
 * hung task) ends the wait, and within task-timeout (one more per task queued before it on its
 * core) + 1 s of its own (a task no frame waits for any more: one a flush dropped while it hung).
 * kTimeout then, with the task left in flight. */
dlainfer::InFlight::Wait await_previous_task (GstDlaInfer *self)
{
  GstDlaInferPrivate *priv = self->priv;
  constexpr std::chrono::milliseconds kSlice{100};
  const auto give_up = std::chrono::steady_clock::now () +
                       gst_dla_infer_task_allowance (self, priv->previous_task.slot) +
                       std::chrono::seconds (1);
  while (priv->previous_task.slot >= 0) {
    if (priv->inflight.flushing ())
      return dlainfer::InFlight::Wait::kFlushing;
    if (priv->inflight.flow () != GST_FLOW_OK)
      return dlainfer::InFlight::Wait::kStopped;
    const auto now = std::chrono::steady_clock::now ();
    if (now >= give_up)
      return dlainfer::InFlight::Wait::kTimeout;
    /* Any end but a timeout (ended, failed, a fault): acquire () says what comes next. */
    const dla::Status st =
        priv->model->engine->await_end (priv->previous_task, std::min (give_up, now + kSlice));
    if (st.code != dla::Code::kTimeout)
      priv->previous_task = dla::Task ();
  }
  return dlainfer::InFlight::Wait::kReady;
}

/* Submitted tasks of a wave that cannot go on (a later step failed): each ends before the frame
 * goes (cuDLA cannot cancel), by task-timeout. */
void abandon_tasks (GstDlaInfer *self, dlainfer::PendingFrame *f)
{
  dla::Engine &engine = *self->priv->model->engine;
  const auto deadline = std::chrono::steady_clock::now () + gst_dla_infer_task_timeout (self);
  self->priv->input.drain ();
  for (const dlainfer::ObjectTask &t : f->tasks) {
    const dla::Task task{t.slot, nullptr, t.timed};
    if (engine.in_flight (t.slot))
      engine.wait (task, deadline);
    engine.abandon (task); /* one still running frees its slot when it ends */
  }
  f->tasks.clear ();
}

/* roi-list: acquires tasks [begin, end) of the frame's plan (one wave), writes every object of
 * the wave in one launch, submits each task after it. The submitted tasks are in f->tasks. */
dla::Status start_wave (GstDlaInfer *self, dlainfer::PendingFrame *f, uint32_t begin, uint32_t end,
                        const preprocess::Params &pre, const char **step)
{
  GstDlaInferPrivate *priv = self->priv;
  dla::Engine &engine = *priv->model->engine;
  const dlainfer::objects::FrameObjects &fo = *f->objects;
  std::vector<dla::Task> tasks (end - begin);
  std::vector<preprocess::ObjectRoi> &rois = priv->objects.rois;
  rois.clear ();
  *step = "dla::Engine::acquire";
  dla::Status st;
  size_t acquired = 0;
  for (; acquired < tasks.size () && (st = engine.acquire (&tasks[acquired])).ok (); ++acquired) {
    const dlainfer::objects::PlannedTask &pt = fo.plan.tasks[begin + acquired];
    for (uint32_t j = 0; j < pt.count; ++j) {
      const dlainfer::objects::Box &b = fo.objects[fo.plan.objects[pt.first + j]].box;
      rois.push_back (
          {{int (b.x), int (b.y), int (b.width), int (b.height)}, tasks[acquired].input, int (j)});
    }
  }
  if (st.ok ()) {
    dlainfer::MappedFrame frame;
    void *ready = nullptr;
    *step = "writing the objects' model inputs";
    st = priv->input.write_objects (GST_ELEMENT (self), priv->cuda, f->buffer, tasks[0], rois.data (),
                                    int (rois.size ()), priv->model->plan.input_view, pre, &frame, &ready);
    f->graphed = st.ok () && priv->input.graphed ();
    *step = "dla::Engine::submit";
    for (size_t i = 0; i < tasks.size () && st.ok (); ++i) {
      if (!(st = engine.submit (tasks[i], ready)).ok ())
        break;
      const dlainfer::objects::PlannedTask &pt = fo.plan.tasks[begin + i];
      f->tasks.push_back ({tasks[i].slot, tasks[i].timed, i == 0, pt.first, pt.count});
    }
  }
  /* No-op for the submitted ones (and a refused submit ended its task); after a failure none is
   * read: one queued despite the error frees its slot when it ends. */
  for (size_t i = 0; i < acquired; ++i)
    st.ok () ? engine.release (tasks[i]) : engine.abandon (tasks[i]);
  if (!st.ok ())
    abandon_tasks (self, f);
  return st;
}

/* roi-list: the frame's objects, their tasks in waves of the free slots. An earlier wave is read
 * here once it ended (the next needs its slots); the last goes with the frame to the src task. */
GstFlowReturn submit_objects (GstDlaInfer *self, dlainfer::PendingFrame &f, const FrameSettings &s)
{
  GstDlaInferPrivate *priv = self->priv;
  /* Room for a task before the cache decides: with max-in-flight=1 the frame before has stored
   * its results by then (with more, the cache runs that many frames behind). */
  const dlainfer::InFlight::Wait room = priv->inflight.wait_for_tasks (1);
  if (room != dlainfer::InFlight::Wait::kReady)
    return refused_flow (self, room);
  f.objects = std::make_shared<dlainfer::objects::FrameObjects> ();
  priv->objects.flow.prepare (f.buffer, priv->input.width (), priv->input.height (), s.flow,
                              f.objects.get ());
  const dlainfer::objects::WorkPlan &plan = f.objects->plan;
  std::vector<float> scores;
  std::vector<postprocess::Result> results;
  for (uint32_t w = 0, begin = 0; w < plan.waves; ++w) {
    uint32_t end = begin;
    while (end < plan.tasks.size () && plan.tasks[end].wave == w)
      ++end;
    if (!f.tasks.empty ()) {
      /* The previous wave's slots are needed again: read it here. Each task gets its own
       * task-timeout from when its wait starts (a wave's tasks run one after another). */
      dla::ScopedContext scope (priv->cuda.primary ());
      for (const dlainfer::ObjectTask &t : f.tasks) {
        bool aborted = false;
        const dla::Status st = gst_dla_infer_wait_task (self, dla::Task{t.slot, nullptr, t.timed}, &aborted);
        if (aborted || !st.ok ()) {
          abandon_tasks (self, &f);
          if (aborted)
            return GST_FLOW_FLUSHING;
          return frame_failed (self, st, "dla::Engine::wait (an earlier wave of the frame's objects)");
        }
      }
      gst_dla_infer_read_object_tasks (self, f, f.tasks, &scores, &results);
      gst_dla_infer_release_tasks (*priv->model->engine, f);
      f.tasks.clear ();
    }
    const dlainfer::InFlight::Wait wt = priv->inflight.wait_for_tasks (int (end - begin));
    if (wt != dlainfer::InFlight::Wait::kReady)
      return refused_flow (self, wt);
    dla::ScopedContext scope (priv->cuda.primary ());
    const char *step = "";
    const dla::Status st = start_wave (self, &f, begin, end, s.pre, &step);
    if (!st.ok ())
      return frame_failed (self, st, step);
    begin = end;
  }
  GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": %u object(s), %u classified in %u task(s), %u carried",
                  GST_TIME_ARGS (GST_BUFFER_PTS (f.buffer)), guint (f.objects->objects.size ()),
                  guint (plan.objects.size ()), guint (plan.tasks.size ()), guint (plan.carried));
  /* No task (no object, or all carried): queued behind the others, pushed without a wait. */
  if (plan.tasks.empty ()) {
    const dlainfer::InFlight::Wait wt = priv->inflight.wait_for_tasks (0);
    if (wt != dlainfer::InFlight::Wait::kReady)
      return refused_flow (self, wt);
  }
  priv->inflight.push (std::move (f));
  return GST_FLOW_OK;
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

  if (s.objects)
    return submit_objects (self, f, s);
  const bool infer = priv->interval.infer_now (s.interval);
  dlainfer::InFlight::Wait w = priv->inflight.wait_for_room (infer);
  if (w == dlainfer::InFlight::Wait::kReady && infer)
    w = await_previous_task (self);
  if (w == dlainfer::InFlight::Wait::kTimeout)
    return frame_failed (
        self,
        dla::Status::Error (
            dla::Code::kTimeout,
            "the DLA task before this frame did not end within task-timeout "
            "(" +
                std::to_string (gst_dla_infer_task_timeout (self).count ()) +
                " ms, one more for each task queued before it on its DLA core) + 1 s; raise task-timeout if "
                "the model needs longer"),
        "waiting for the DLA task before the frame's");
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
  /* Behind the other sharers' tasks queued on its core: a task-timeout for each. */
  st = engine.wait (task, start + gst_dla_infer_task_allowance (self, task.slot) + std::chrono::seconds (1));
  engine.abandon (task); /* nobody reads the warm-up's outputs */
  if (!st.ok ())
    return st;
  const auto took = std::chrono::steady_clock::now () - start;
  gst_dla_infer_announce_latency (self, std::chrono::duration_cast<std::chrono::nanoseconds> (took));
  priv->downstream.reset ();
  return st;
}
