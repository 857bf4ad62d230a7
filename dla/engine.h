/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a DLA model ready to run tasks on one DLA core or on every core: per core a device
 * handle, the module and its own CUDA stream (dla/loaded_model.h, which several engines may share:
 * model-instance-id), and this engine's own ring of task slots per core, made once at open
 * (dla/task_slot.h), so nothing is allocated, registered or created per task: its tasks in flight
 * shared out over the cores (a sharer's memory is its frames in flight).
 * On several cores each task goes to the core where it is expected to end first
 * (dla/core_scheduler.h); the caller waits for its tasks in its own order.
 *
 * acquire () hands out a task as a move-only handle (dla/task.h) that submits, waits and reads the
 * task and gives its slot back when dropped; the caller hands the task an event and gets the outputs
 * back, as Holoscan's do_inference (..., cudaEvent_t in, cudaEvent_t *out). Nobody launches work on
 * the engine's stream but the engine. Several tasks may be in flight. After a DLA fault
 * (cudaErrorExternalDevice, dla/fatal.h) every engine refuses any further work.
 *
 * Threads: one thread may acquire, write and submit (a producer) while another waits for and reads
 * the tasks in flight (a consumer); engines sharing a model run on their own threads. The model's
 * mutex guards the cores' slot rings and streams and every cuDLA call (cudlaSubmitTask,
 * cudlaGetLastError); it is never held across the blocking wait. A slot's own data is owned by one
 * thread at a time, handed over through the ring: the producer's from acquire to submit (or give
 * back), the consumer's from submit until it gives the task back, after the wait or poll that
 * ended the task and its reading of the outputs and timings (slot_ring.h). Open, describe and the
 * destructor: one thread, nothing in flight elsewhere; every task handle is gone before the engine.
 * The DLA's error state is per device, so with several tasks in flight a failure cudlaGetLastError
 * reports is the first task seen ending after it, not necessarily its own; and where (as swdla
 * does) each task overwrites that state, a failed task followed by one that ends before the host
 * reads it goes unreported (its outputs are read as if it had run). */
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dla/core_scheduler.h"
#include "dla/descriptor_map.h"
#include "dla/loaded_model.h"
#include "dla/loader.h"
#include "dla/slot_ring.h"
#include "dla/status.h"
#include "dla/task.h"
#include "dla/task_slot.h"

namespace dla {

/* A timed task records four events that keep a timestamp, several times the CPU cost of the one
 * plain event the other tasks record, so one task in kTimingPeriod is timed. */
constexpr int kTimingPeriod = 32;

/* Whether a slot's n-th task (from 0) is timed: the first two, so that the wait knows the tasks'
 * duration from the third on (completion_wait.h), then one in kTimingPeriod. */
constexpr bool timed_task (uint64_t n)
{
  return n < 2 || n % kTimingPeriod == 0;
}

constexpr int kMaxSlots = 64;

class Engine {
 public:
  ~Engine ();
  Engine (const Engine &) = delete;
  Engine &operator= (const Engine &) = delete;

  /* Loads the model for this engine alone. */
  static Status Open (const EngineConfig &cfg, std::unique_ptr<Engine> *out);
  /* An engine on a model others may share (model-instance-id): its own cfg.num_slots slots over
   * the cores, registered with the model's modules; cfg's model-defining fields are the model's. */
  static Status Share (std::shared_ptr<LoadedModel> model, const EngineConfig &cfg,
                       std::unique_ptr<Engine> *out);
  const std::shared_ptr<LoadedModel> &model () const { return model_; }
  /* LoadedModel::watch for this engine: every sharer's tasks in flight at most, now and on each
   * join or leave. */
  void watch_sharers (LoadedModel::SharersChanged changed);

  const TensorInfo &input () const { return inputs_[0]; }
  const std::vector<TensorInfo> &inputs () const { return inputs_; }
  const std::vector<TensorInfo> &outputs () const { return outputs_; }
  const std::string &backend () const; /* "dla" or "swdla" */
  std::string cudla_version () const;  /* "1.2.1", or "(version unknown)" */
  void *primary_context () const;      /* CUcontext */
  int cuda_device () const { return cfg_.cuda_device; }
  int dla_core () const { return cfg_.dla_core; } /* as configured: a core, or kEveryCore */
  /* Slot numbers run 0..num_slots () - 1 across the cores; at most max_tasks () are in flight. */
  int num_slots () const { return cores () * slots_per_core (); }
  int max_tasks () const { return cfg_.num_slots; }
  bool spare_slot () const { return cfg_.spare_slot; } /* EngineConfig::spare_slot */
  /* The cores the engine runs on: cores () of them, dla_core_at (i) the DLA core of the i-th. */
  int cores () const;
  int dla_core_at (int index) const;
  /* The DLA core a slot's tasks run on; -1 for a bad slot. */
  int core_of (int slot) const;
  /* Tasks, busy time, learnt duration of the i-th core (core_scheduler.h). */
  CoreCounters core_counters (int index) const;
  bool has_task_timeout () const; /* cudlaSetTaskTimeoutInMs was applied */
  /* The model's task-timeout (its definer's, for a sharer that left it unset): what a caller's
   * deadline for a task should follow. */
  std::chrono::milliseconds task_timeout () const { return std::chrono::milliseconds (cfg_.task_timeout_ms); }
  const std::string &model_path () const { return cfg_.model_path; }
  const std::string &library_path () const;
  bool failed () const; /* the process is poisoned (dla/fatal.h) */

  /* A free slot as a task handle (dla/task.h); kRuntime when every slot is taken. */
  Status acquire (Task *task);
  /* The producer's wait for the end of a task whose handle its consumer holds (EngineConfig::
   * spare_slot): until the task on `slot` ended, or `deadline` (kTimeout). Whichever thread sees the
   * end first ends the task and reads the DLA's status of it, before the producer submits another
   * (the error state is per device); the consumer's wait or poll then returns that status. Ok at
   * once for a slot with no task in flight. */
  Status await_end (int slot, Deadline deadline);
  /* Tasks queued before the task on its core when it was submitted, every sharer's (each may take a
   * task-timeout): for the caller's deadline. Read by the task's consumer after the submit. */
  int tasks_ahead (int slot) const;
  /* Whether `slot` has a task submitted and not yet collected by wait () or poll () (a task that
   * await_end saw ending stays in flight until then). Task::in_flight () for a slot. */
  bool in_flight (int slot);

  /* Work added to every task from now on (raw output tensors, task_slot.h): set before the first
   * acquire, or with no task in flight, by the thread that submits; an empty one removes it. */
  void set_after_task (AfterTask after);
  /* The work installed last (empty when none): a second user chains it. */
  AfterTask after_task () const;

  /* CUDA-side pointer of a slot's input tensor; nullptr for a bad slot or index. The DLA-side
   * pointer never leaves the engine. */
  void *input_ptr (int slot, int index = 0) const;
  /* CUDA-side pointer of a slot's output tensor (what an AfterTask gets); nullptr for a bad slot or
   * index. */
  const void *output_ptr (int slot, int index) const;
  /* The padded host copy of an output; nullptr for a bad slot or index, or an output the
   * AfterTask skips. */
  const void *host_output (int slot, int index) const;
  /* Copies a slot's input (output) tensor (`bytes` = its view's size) to host memory, on the
   * engine's stream, and waits: for dumps (tensor triage), after the task ended, never per frame. */
  Status read_input (int slot, int index, void *host, size_t bytes);
  Status read_output (int slot, int index, void *host, size_t bytes);
  SlotTimings timings (int slot) const;

  /* Backend, library, core and every tensor: raw descriptor, layout, reading (for model-info). */
  std::string describe () const;

 private:
  friend class Task;
  struct Impl;
  /* The task handle's calls (task.h), by slot. */
  Status submit (int slot, void *input_ready);
  Status wait (int slot, Deadline deadline);
  Status poll (int slot, bool *done);
  /* The handle is done with its task: the slot is free now (acquired only, or ended), or once its
   * task ends (in flight: nobody reads its outputs; the next wait, poll, await_end or acquire that
   * sees it end frees it). */
  void give_back (int slot);
  explicit Engine (std::shared_ptr<LoadedModel> model);
  /* The tasks in flight (and the spare) shared out over the cores. */
  int slots_per_core () const
  {
    return (cfg_.num_slots + (cfg_.spare_slot ? 1 : 0) + cores () - 1) / cores ();
  }
  Status make_slots ();
  Status fatal_status () const;
  static void wait_unlocked (std::unique_lock<std::mutex> &lock, void *fence, void *stream);
  struct SlotRef;
  /* The one lookup of a slot number: empty for a number outside the engine. */
  SlotRef locate (int slot) const;
  /* locate (), once the process is healthy and `check` allows the call on the slot's state; empty
   * (and *st) otherwise. mutex_ held. */
  SlotRef checked (int slot, Status (SlotRing::*check) (int) const, Status *st) const;
  Status on_cuda_error (const CoreQueue &q, int err, const char *what);
  /* `seen_end`: when the end was seen; `consumer`: called by the task's consumer (else its wait
   * learns the task's duration when it collects the status). */
  Status finish (const SlotRef &r, int cuda_err, std::chrono::steady_clock::time_point seen_end,
                 bool consumer);
  /* The consumer takes the status of a task await_end () ended. mutex_ held. */
  static Status collect_early (const SlotRef &r);
  Status task_status (const CoreQueue &q);
  /* Abandoned tasks that ended are finished and their slots freed. mutex_ held. */
  void reap_abandoned ();
  Status read_tensor (int slot, const void *src, void *host, size_t bytes, const char *what);

  EngineConfig cfg_;
  std::shared_ptr<LoadedModel> model_;
  uint64_t sharer_ = 0; /* this engine among the model's sharers */
  std::unique_ptr<Impl> impl_;
  const std::vector<TensorInfo> &inputs_, &outputs_; /* the model's */
  std::mutex &mutex_;                                /* the model's: guards its cores and our slots */
  AfterTask after_;
};

}  // namespace dla
