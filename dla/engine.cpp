/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/engine.h"

#include <cuda_runtime_api.h>

#include <algorithm>

#include "dla/core_queue.h"
#include "dla/cuda_resources.h"
#include "dla/device.h"
#include "dla/fatal.h"
#include "dla/module.h"
#include "dla/primary_context.h"
#include "dla/status_names.h"

namespace dla {

/* This engine's slots on one core of the model. */
struct CoreSlots {
  SlotRing ring;
  std::vector<std::unique_ptr<TaskSlot>> slots;
};

/* Everything of one engine-wide slot: its core's queue, its ring and task slot, where it lives. */
struct Engine::SlotRef {
  CoreQueue *queue = nullptr; /* null: no such slot */
  SlotRing *ring = nullptr;
  TaskSlot *task = nullptr;
  int core_index = -1, local = -1;
  explicit operator bool () const { return task != nullptr; }
  SlotRing::State state () const { return ring->state (local); }
  /* Its task is in flight and nobody has seen it end yet (its handle may have given it back). */
  bool running () const
  {
    return state () == SlotRing::State::kSubmitted || state () == SlotRing::State::kAbandoned;
  }
};

struct Engine::Impl {
  std::vector<CoreSlots> cores; /* index i: the model's core i */
  WakeOffset await_offset;      /* await_end ()'s alarm: the producer's own */
};

Engine::Engine (std::shared_ptr<LoadedModel> model)
    : model_ (std::move (model)),
      impl_ (new Impl ()),
      inputs_ (model_->inputs ()),
      outputs_ (model_->outputs ()),
      mutex_ (model_->mutex ())
{
}

/* Our tasks still queued end before their tensors go (the model's stream goes on with the other
 * sharers' tasks); the slots are unregistered under the model's mutex, as every cuDLA call on its
 * handles, and freed after it (cudaFree and cudaFreeHost synchronise with the device: the other
 * sharers go on meanwhile); a task picked and never seen ending leaves the scheduler's count. */
Engine::~Engine ()
{
  if (sharer_)
    model_->leave (sharer_);
  ScopedContext scope (primary_context ());
  for (CoreSlots &c : impl_->cores)
    for (int i = 0; i < c.ring.size (); ++i)
      if (c.ring.state (i) == SlotRing::State::kSubmitted)
        cudaEventSynchronize (static_cast<cudaEvent_t> (c.slots[size_t (i)]->end_event ()));
  std::vector<std::unique_ptr<TaskSlot>> gone; /* freed after the lock */
  std::lock_guard<std::mutex> lock (mutex_);
  for (size_t ci = 0; ci < impl_->cores.size (); ++ci) {
    CoreSlots &c = impl_->cores[size_t (ci)];
    for (int i = 0; i < c.ring.size (); ++i) {
      const SlotRing::State state = c.ring.state (i);
      if (state == SlotRing::State::kAcquired || state == SlotRing::State::kSubmitted)
        model_->scheduler ().dropped (int (ci)); /* an ended task left the count when it ended */
      if (state == SlotRing::State::kSubmitted)
        model_->core (int (ci)).clock.dropped ();
    }
    for (std::unique_ptr<TaskSlot> &s : c.slots) {
      s->unregister ();
      gone.push_back (std::move (s));
    }
    c.slots.clear ();
  }
}

Status Engine::Open (const EngineConfig &cfg, std::unique_ptr<Engine> *out)
{
  if (cfg.num_slots < 1 || cfg.num_slots > kMaxSlots) /* before the model is loaded */
    return Share (nullptr, cfg, out);
  std::shared_ptr<LoadedModel> model;
  const Status st = LoadedModel::Open (cfg, &model);
  return st.ok () ? Share (std::move (model), cfg, out) : st;
}

Status Engine::Share (std::shared_ptr<LoadedModel> model, const EngineConfig &cfg,
                      std::unique_ptr<Engine> *out)
{
  if (cfg.num_slots < 1 || cfg.num_slots > kMaxSlots)
    return Status::Error (Code::kSettings, "number of slots " + std::to_string (cfg.num_slots) +
                                               " is out of range 1.." + std::to_string (kMaxSlots));
  if (!model)
    return Status::Error (Code::kInit, "no loaded model to share");
  Status st;
  if (cfg.accept_tensors && !(st = cfg.accept_tensors (model->inputs (), model->outputs ())).ok ())
    return st;
  std::unique_ptr<Engine> e (new Engine (std::move (model)));
  e->cfg_ = e->model_->config ();
  e->cfg_.num_slots = cfg.num_slots;
  e->cfg_.spare_slot = cfg.spare_slot;
  e->cfg_.user = cfg.user;
  if (!(st = e->make_slots ()).ok ())
    return st;
  e->sharer_ = e->model_->join (cfg.num_slots);
  *out = std::move (e);
  return Status::Ok ();
}

/* The engine's tasks in flight (and the spare) over its cores, a share on each: a sharer's memory
 * is its tasks in flight, not that many per core. Only the registrations take the model's mutex (other
 * sharers may be submitting on its handles): the allocations, zeroing and pinning run beside their tasks. */
Status Engine::make_slots ()
{
  ScopedContext scope (primary_context ());
  impl_->cores.resize (size_t (model_->cores ()));
  for (int ci = 0; ci < model_->cores (); ++ci) {
    CoreQueue &q = model_->core (ci);
    CoreSlots &c = impl_->cores[size_t (ci)];
    for (int i = 0; i < slots_per_core (); ++i) {
      std::unique_ptr<TaskSlot> s;
      const Status st = TaskSlot::Create (q.device_ptr (), q.module ().handle (), inputs_, outputs_,
                                          engine_slot (ci, i, slots_per_core ()), &s, &mutex_);
      if (!st.ok ())
        return st;
      c.slots.push_back (std::move (s));
    }
    c.ring = SlotRing (slots_per_core ());
  }
  return Status::Ok ();
}

void Engine::watch_sharers (LoadedModel::SharersChanged changed)
{
  model_->watch (sharer_, std::move (changed));
}

int Engine::cores () const
{
  return model_->cores ();
}

int Engine::dla_core_at (int index) const
{
  return index >= 0 && index < cores () ? model_->core (index).dla_core () : -1;
}

int Engine::core_of (int slot) const
{
  const SlotRef r = locate (slot);
  return r ? r.queue->dla_core () : -1;
}

CoreCounters Engine::core_counters (int index) const
{
  return model_->scheduler ().counters (index);
}

const std::string &Engine::backend () const
{
  return model_->library ().backend ();
}
std::string Engine::cudla_version () const
{
  return model_->library ().version_string ();
}
void *Engine::primary_context () const
{
  return model_->primary_context ();
}
bool Engine::has_task_timeout () const
{
  return model_->library ().has_task_timeout ();
}
const std::string &Engine::library_path () const
{
  return model_->library ().path ();
}
bool Engine::failed () const
{
  return process_poisoned ();
}

Status Engine::fatal_status () const
{
  return Status::Error (Code::kFatal, "the DLA engine stopped after a fatal error (" + poison_reason () +
                                          "); restart the process");
}

/* 911 poisons CUDA in the whole process (dla/fatal.h): from now on every engine refuses work. */
Status Engine::on_cuda_error (const CoreQueue &q, int err, const char *what)
{
  const cudlaStatus last = q.device ().last_error ();
  const std::string dla = "cudlaGetLastError reports " + cudla_status_name (last);
  if (!is_process_fatal (err))
    return Status::Error (Code::kRuntime, std::string (what) + " failed (DLA core " +
                                              std::to_string (q.dla_core ()) + "): " + cuda_error_name (err) +
                                              "; " + dla);
  const std::string why =
      std::string (what) + " (DLA core " + std::to_string (q.dla_core ()) + "): CUDA reported " +
      cuda_error_name (err) + " and " + dla +
      (last == cudlaErrorDlaErrEngineTimeout
           ? " (the task did not finish within " + std::to_string (cfg_.task_timeout_ms) + " ms)"
           : "");
  poison_process (why);
  return Status::Error (
      Code::kFatal, "DLA fault: " + why + "; CUDA cannot be used again in this process: restart the process");
}

Status Engine::acquire (Task *task)
{
  task->give_back (); /* before the lock: a handle still holding a task gives it back under it */
  if (process_poisoned ())
    return fatal_status ();
  std::lock_guard<std::mutex> lock (mutex_);
  reap_abandoned ();
  uint32_t with_room = 0;
  for (size_t i = 0; i < impl_->cores.size (); ++i)
    with_room |= impl_->cores[i].ring.has_free () ? 1u << i : 0u;
  if (!with_room)
    return Status::Error (Code::kRuntime, "all " + std::to_string (num_slots ()) +
                                              " slot(s) have a task acquired, in flight or not yet released");
  /* Of the cores where we have a free slot, the one where the task is expected to end first. */
  const int ci = model_->scheduler ().pick (with_room);
  if (ci < 0)
    return Status::Error (Code::kRuntime, "no DLA core of the engine can take tasks");
  CoreQueue &q = model_->core (ci);
  CoreSlots &c = impl_->cores[size_t (ci)];
  int local = -1;
  c.ring.acquire (&local); /* has_free () said yes, under the same lock */
  TaskSlot &s = *c.slots[size_t (local)];
  s.timed = timed_task (s.tasks++);
  s.timings = SlotTimings ();
  s.timings.dla_core = q.dla_core ();
  s.early_whole_ms = -1.f;
  s.wait.started ();
  *task = Task (this, engine_slot (ci, local, slots_per_core ()), s.input_ptr (0), s.timed);
  return Status::Ok ();
}

void Engine::give_back (int slot)
{
  std::lock_guard<std::mutex> lock (mutex_);
  const SlotRef r = locate (slot);
  if (!r)
    return;
  switch (r.state ()) {
    case SlotRing::State::kAcquired: /* picked and never run */
      r.ring->release (r.local);
      model_->scheduler ().dropped (r.core_index);
      break;
    case SlotRing::State::kEnded: /* it left the scheduler's count when it ended */
    case SlotRing::State::kEndedEarly:
      r.ring->release (r.local);
      break;
    case SlotRing::State::kSubmitted: /* the DLA may still run it: freed when it ends */
      r.ring->abandon (r.local);
      break;
    case SlotRing::State::kAbandoned:
    case SlotRing::State::kFree: /* a refused submit freed it */
      break;
  }
}

Engine::SlotRef Engine::locate (int slot) const
{
  const SlotPlace at = place_of (slot, cores (), slots_per_core ());
  if (at.core_index < 0)
    return SlotRef ();
  CoreSlots &c = impl_->cores[size_t (at.core_index)];
  return SlotRef{&model_->core (at.core_index), &c.ring, c.slots[size_t (at.local)].get (), at.core_index,
                 at.local};
}

Engine::SlotRef Engine::checked (int slot, Status (SlotRing::*check) (int) const, Status *st) const
{
  if (process_poisoned ()) {
    *st = fatal_status ();
    return SlotRef ();
  }
  const SlotRef r = locate (slot);
  if (!r) {
    *st = Status::Error (Code::kRuntime, "slot " + std::to_string (slot) + " does not exist (" +
                                             std::to_string (num_slots ()) + " slots)");
    return SlotRef ();
  }
  return (*st = (r.ring->*check) (r.local)).ok () ? r : SlotRef ();
}

Status Engine::submit (int slot, void *input_ready)
{
  Status st;
  std::unique_lock<std::mutex> lock (mutex_);
  const SlotRef r = checked (slot, &SlotRing::check_submit, &st);
  if (!r)
    return st;
  CoreQueue *q = r.queue;
  TaskSlot *s = r.task;
  ScopedContext scope (primary_context ());
  void *stream = q->stream ();
  int err = cudaSuccess;
  bool after_failed = false;
  const cudlaStatus cs =
      s->queue (q->device (), stream, input_ready, after_.queue ? &after_ : nullptr, &err, &after_failed);
  if (cs != cudlaSuccess) {
    /* Never queued: free again. */
    r.ring->release (r.local);
    model_->scheduler ().dropped (r.core_index);
    wait_unlocked (lock, s->fence (stream), stream);
    if (model_->library ().emulated_external_error () != 0)
      return on_cuda_error (*q, model_->library ().emulated_external_error (), "cudlaSubmitTask");
    return Status::Error (Code::kRuntime, cudla_call_failed ("cudlaSubmitTask", cs) +
                                              model_->library ().refusal_detail () + " (DLA core " +
                                              std::to_string (q->dla_core ()) + ", slot " +
                                              std::to_string (slot) + ")");
  }
  /* Queued whatever happens next: wait () must still wait for it. Behind the tasks already queued
   * on its core: its alarm counts from their expected end. */
  r.ring->submitted (r.local);
  s->wait.queued (q->clock.submitted (std::chrono::steady_clock::now (), s->wait.expected ()));
  s->timings.queued_ahead = q->clock.queued () - 1;
  if (err != cudaSuccess) {
    /* The caller releases the input on an error: nothing queued may still be reading it. */
    wait_unlocked (lock, s->fence (stream), stream);
    if (!after_failed)
      return on_cuda_error (*q, err, "queueing the DLA task");
    Status st = on_cuda_error (*q, err, after_.what.c_str ());
    if (st.code != Code::kFatal && !after_.fix.empty ())
      st.message += ": " + after_.fix;
    return st;
  }
  return Status::Ok ();
}

/* A refused submit's work queued on the core's stream ends (the caller then releases the input),
 * waited for without the model's mutex: the other sharers' tasks queued ahead go on. The slot is
 * the submitting thread's meanwhile (ended, or submitted and not yet known to its consumer). */
void Engine::wait_unlocked (std::unique_lock<std::mutex> &lock, void *fence, void *stream)
{
  lock.unlock ();
  TaskSlot::fence_done (fence, stream);
  lock.lock ();
}

Status Engine::wait (int slot, Deadline deadline)
{
  Status st;
  SlotRef r;
  {
    std::lock_guard<std::mutex> lock (mutex_);
    const SlotRef early = locate (slot);
    if (early && early.state () == SlotRing::State::kEndedEarly)
      return collect_early (early);
    if (!(r = checked (slot, &SlotRing::check_in_flight, &st)))
      return st;
  }
  TaskSlot *s = r.task;
  ScopedContext scope (primary_context ());
  /* The sync seam: the thread sleeps while the DLA works (completion_wait.h), without the mutex. */
  const int err = s->wait.wait (s->end_event (), deadline);
  std::lock_guard<std::mutex> lock (mutex_);
  if (r.state () == SlotRing::State::kEndedEarly) /* the producer saw the end first (await_end),
                                                   maybe just after our deadline */
    return collect_early (r);
  if (err == cudaErrorNotReady)
    return Status::Error (Code::kTimeout, "the DLA task on slot " + std::to_string (slot) + " (DLA core " +
                                              std::to_string (r.queue->dla_core ()) +
                                              ") had not finished by the caller's deadline");
  return finish (r, err, s->wait.ended_at (), true);
}

Status Engine::collect_early (const SlotRef &r)
{
  r.ring->collected (r.local);
  TaskSlot &s = *r.task;
  if (s.early_whole_ms >= 0.f)
    s.wait.learn (s.early_whole_ms);
  s.early_whole_ms = -1.f;
  return s.early_status;
}

Status Engine::poll (int slot, bool *done)
{
  *done = false;
  Status st;
  std::lock_guard<std::mutex> lock (mutex_);
  const SlotRef early = locate (slot);
  if (early && early.state () == SlotRing::State::kEndedEarly) {
    *done = true;
    return collect_early (early);
  }
  const SlotRef r = checked (slot, &SlotRing::check_in_flight, &st);
  if (!r)
    return st;
  ScopedContext scope (primary_context ());
  const cudaError_t err = cudaEventQuery (static_cast<cudaEvent_t> (r.task->end_event ()));
  if (err == cudaErrorNotReady)
    return Status::Ok ();
  *done = true;
  r.task->wait.ended ();
  return finish (r, err, r.task->wait.ended_at (), true);
}

Status Engine::await_end (int slot, Deadline deadline)
{
  if (process_poisoned ())
    return fatal_status ();
  void *event = nullptr;
  std::chrono::steady_clock::time_point end;
  {
    std::lock_guard<std::mutex> lock (mutex_);
    const SlotRef r = locate (slot);
    if (!r || !r.running ())
      return Status::Ok (); /* its consumer saw it end */
    event = r.task->end_event ();
    end = r.task->wait.wake_end ();
  }
  /* Its end event is recorded again only by the next submit on the slot: the caller's own. */
  ScopedContext scope (primary_context ());
  TimerSlackScope slack; /* the caller's thread may be one GStreamer pools */
  const int err = wait_for_event (event, end, deadline, &impl_->await_offset);
  if (err == cudaErrorNotReady)
    return Status::Error (Code::kTimeout, "the DLA task on slot " + std::to_string (slot) +
                                              " had not finished by the caller's deadline");
  const auto seen = std::chrono::steady_clock::now ();
  /* Ended here, unless the consumer did meanwhile: its status is read before our next submit. */
  std::lock_guard<std::mutex> lock (mutex_);
  const SlotRef r = locate (slot);
  if (!r || !r.running ())
    return Status::Ok ();
  r.task->early_status = finish (r, err, seen, false); /* ended early, or freed if given back */
  return Status::Ok ();
}

void Engine::reap_abandoned ()
{
  int abandoned = 0;
  for (const CoreSlots &c : impl_->cores)
    abandoned += c.ring.abandoned ();
  if (abandoned == 0)
    return;
  ScopedContext scope (primary_context ());
  for (int slot = 0; slot < num_slots (); ++slot) {
    const SlotRef r = locate (slot);
    if (r.state () != SlotRing::State::kAbandoned)
      continue;
    const cudaError_t err = cudaEventQuery (static_cast<cudaEvent_t> (r.task->end_event ()));
    if (err != cudaErrorNotReady) /* its status goes nowhere: nobody reads the task */
      finish (r, err, std::chrono::steady_clock::now (), false);
  }
}

int Engine::tasks_ahead (int slot) const
{
  const TaskSlot *s = locate (slot).task;
  return s ? s->timings.queued_ahead : -1;
}

bool Engine::in_flight (int slot)
{
  std::lock_guard<std::mutex> lock (mutex_);
  const SlotRef r = locate (slot);
  /* Ended by await_end and not yet collected: still the consumer's to wait for. */
  return r && r.ring->in_flight (r.local);
}

/* The task's end was seen (or CUDA failed): the slot waits for its handle to give it back (one
 * given back in flight is free at once); what did the DLA say? The tasks still queued on its core began when
 * it ended: they end one expected duration after another. The scheduler learns the core's duration: the DLA
 * time of a timed task, else the learnt one (busy time is measured on one task in kTimingPeriod, estimated on
 * the others); not from the core's first task. */
Status Engine::finish (const SlotRef &r, int cuda_err, std::chrono::steady_clock::time_point seen_end,
                       bool consumer)
{
  CoreQueue &q = *r.queue;
  const int core_index = r.core_index;
  TaskSlot &s = *r.task;
  r.ring->ended (r.local, consumer); /* an abandoned one: free at once, nobody reads it */
  CoreScheduler &scheduler = model_->scheduler ();
  q.clock.ended (seen_end, s.wait.expected ());
  Status st =
      cuda_err != cudaSuccess ? on_cuda_error (q, cuda_err, "waiting for the DLA task") : task_status (q);
  if (!st.ok ()) {
    scheduler.dropped (core_index);
    return st;
  }
  s.timings.total_ms = s.wait.elapsed_ms (seen_end);
  if (s.timed) {
    const float whole = s.learn_timings ();
    if (consumer && whole >= 0.f)
      s.wait.learn (whole);
    else if (whole >= 0.f)
      s.early_whole_ms = whole; /* the consumer's wait may be reading what learn () writes */
  }
  const std::chrono::nanoseconds took =
      s.timings.dla_ms > 0.f ? std::chrono::nanoseconds (int64_t (double (s.timings.dla_ms) * 1e6))
                             : scheduler.counters (core_index).expected;
  /* A core's first task carries one-time costs (swdla captures its graph; a DLA loads what it
   * needs): learnt from, it would make the core look slow and, since a core's estimate moves only
   * with its own completions, keep it idle. It counts in the busy time, not in the estimate. */
  if (q.tasks_ended++ == 0)
    scheduler.dropped (core_index);
  else
    scheduler.completed (core_index, took);
  s.timings.busy_ms =
      took.count () > 0 ? float (std::chrono::duration<double, std::milli> (took).count ()) : -1.f;
  return Status::Ok ();
}

/* CUDA saw no fault; the DLA may still report one for the task (synchronised first, as required,
 * docs/cudla.md 4.5). Only then is a test backend asked whether it emulates a 911. */
Status Engine::task_status (const CoreQueue &q)
{
  const cudlaStatus last = q.device ().last_error ();
  const int emulated = last == cudlaSuccess ? 0 : model_->library ().emulated_external_error ();
  switch (classify_task_end (cudaSuccess, last, emulated)) {
    case TaskEnd::kDone:
      return Status::Ok ();
    case TaskEnd::kFatal:
      return on_cuda_error (q, emulated, "waiting for the DLA task");
    case TaskEnd::kTimedOut:
      return Status::Error (Code::kTimeout, "the DLA task did not finish within the task timeout of " +
                                                std::to_string (cfg_.task_timeout_ms) +
                                                " ms: cudlaGetLastError reports " + cudla_status_name (last) +
                                                " (DLA core " + std::to_string (q.dla_core ()) + ")");
    case TaskEnd::kFailed:
      break;
  }
  return Status::Error (Code::kRuntime, "the DLA task failed: cudlaGetLastError reports " +
                                            cudla_status_name (last) + " (DLA core " +
                                            std::to_string (q.dla_core ()) + ")");
}

void *Engine::input_ptr (int slot, int index) const
{
  const TaskSlot *s = locate (slot).task;
  return s && index >= 0 ? s->input_ptr (size_t (index)) : nullptr;
}

const void *Engine::output_ptr (int slot, int index) const
{
  const TaskSlot *s = locate (slot).task;
  return s && index >= 0 ? s->output_ptr (size_t (index)) : nullptr;
}

const void *Engine::host_output (int slot, int index) const
{
  const TaskSlot *s = locate (slot).task;
  return s && index >= 0 ? s->host_output (size_t (index)) : nullptr;
}

void Engine::set_after_task (AfterTask after)
{
  std::lock_guard<std::mutex> lock (mutex_);
  after_ = std::move (after);
}

AfterTask Engine::after_task () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return after_;
}

Status Engine::read_input (int slot, int index, void *host, size_t bytes)
{
  void *src = input_ptr (slot, index);
  if (!src || index >= int (inputs_.size ()) || bytes != size_t (inputs_[size_t (index)].view.size))
    return Status::Error (Code::kRuntime, "read_input: slot " + std::to_string (slot) + ", input " +
                                              std::to_string (index) + " or " + std::to_string (bytes) +
                                              " bytes do not fit the model");
  return read_tensor (slot, src, host, bytes, "cudaMemcpyAsync (an input tensor, to dump it)");
}

Status Engine::read_output (int slot, int index, void *host, size_t bytes)
{
  const TaskSlot *s = locate (slot).task;
  const bool fits = s && index >= 0 && index < int (outputs_.size ()) &&
                    bytes == size_t (outputs_[size_t (index)].view.size);
  if (!fits)
    return Status::Error (Code::kRuntime, "read_output: slot " + std::to_string (slot) + ", output " +
                                              std::to_string (index) + " or " + std::to_string (bytes) +
                                              " bytes do not fit the model");
  return read_tensor (slot, s->output_ptr (size_t (index)), host, bytes,
                      "cudaMemcpyAsync (an output tensor, to dump it)");
}

Status Engine::read_tensor (int slot, const void *src, void *host, size_t bytes, const char *what)
{
  /* Called from the consumer's thread: the context and the stream's lock are its own to take. */
  ScopedContext scope (primary_context ());
  CoreQueue &q = *locate (slot).queue;
  auto *stream = static_cast<cudaStream_t> (q.stream ());
  int err;
  {
    std::lock_guard<std::mutex> lock (mutex_);
    err = cudaMemcpyAsync (host, src, bytes, cudaMemcpyDeviceToHost, stream);
  }
  if (err == cudaSuccess)
    err = cudaStreamSynchronize (stream);
  if (err == cudaSuccess)
    return Status::Ok ();
  std::lock_guard<std::mutex> lock (mutex_);
  return on_cuda_error (q, err, what);
}

SlotTimings Engine::timings (int slot) const
{
  const TaskSlot *s = locate (slot).task;
  return s ? s->timings : SlotTimings ();
}

/* "0/2" on one core; "-1 (0,1)/2" on every core. */
static std::string describe_cores (const Engine &e, uint64_t count)
{
  std::string s = std::to_string (e.dla_core ());
  if (e.dla_core () == kEveryCore) {
    s += " (";
    for (int i = 0; i < e.cores (); ++i)
      s += (i ? "," : "") + std::to_string (e.dla_core_at (i));
    s += ")";
  }
  return s + "/" + std::to_string (count);
}

std::string Engine::describe () const
{
  std::string s =
      "backend=" + backend () + " library=" + library_path () + " cudla-version=" + cudla_version () +
      " dla-core=" + describe_cores (*this, model_->core (0).device ().core_count ()) +
      " cuda-device=" + std::to_string (cfg_.cuda_device) + " slots=" + std::to_string (num_slots ()) +
      " task-timeout=" + (has_task_timeout () ? std::to_string (cfg_.task_timeout_ms) + "ms" : "default") +
      " model=" + cfg_.model_path;
  for (const auto &t : inputs_)
    s += "\ninput '" + t.name + "': " + describe_view (t.view) + " [" + t.reading +
         "] raw: " + describe_raw (t.raw);
  for (const auto &t : outputs_)
    s += "\noutput '" + t.name + "': " + describe_view (t.view) + " [" + t.reading +
         "] raw: " + describe_raw (t.raw);
  return s;
}

}  // namespace dla
