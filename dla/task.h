/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: one DLA task as its owner holds it (dla/engine.h hands it out): move-only, and it
 * gives its slot back when dropped, as GStreamer's GstNvDecSurface goes back to its decoder and
 * nvinfer's buffers to their queue. Dropped before its task was submitted, or after the task ended,
 * the slot is free at once; dropped with the task in flight (a flushed frame, a failed wave), the
 * slot frees itself when the DLA ends the task (cuDLA cannot cancel one).
 *
 * Its life: acquire -> <the owner writes input () on its own stream, records an event> ->
 * submit (event) -> wait or poll (until the outputs are in host memory) -> host_output (),
 * timings () -> dropped (or give_back ()). Every call on an empty handle (default, moved from or
 * given back) returns an error naming the misuse. */
#pragma once

#include <chrono>

#include "dla/status.h"
#include "dla/task_slot.h"

namespace dla {

class Engine;

using Deadline = std::chrono::steady_clock::time_point;
constexpr Deadline kNoDeadline = Deadline::max ();

class Task {
 public:
  Task () = default;
  ~Task () { give_back (); }
  Task (Task &&other) noexcept { *this = std::move (other); }
  Task &operator= (Task &&other) noexcept;
  Task (const Task &) = delete;
  Task &operator= (const Task &) = delete;

  bool valid () const { return engine_ != nullptr; }
  /* The engine-wide slot number (-1 when empty): what per-slot state of the owner is indexed by. */
  int slot () const { return slot_; }
  /* CUDA pointer of the slot's (first) input tensor: what the owner writes before submit. */
  void *input () const { return input_; }
  /* The engine times this task's stages (engine.h: timed_task); the owner times its own with it. */
  bool timed () const { return timed_; }

  /* `input_ready`: a cudaEvent_t recorded after the work that writes the input, on any stream of the
   * primary context; nullptr when the input is already written. */
  Status submit (void *input_ready);
  /* Until the outputs are in host memory, or `deadline` (kTimeout then; the task stays in flight:
   * wait again or poll). Reports the DLA's status of the task (cudlaGetLastError). */
  Status wait (Deadline deadline = kNoDeadline);
  /* Without blocking: *done tells whether the task ended; when it did, the status is wait ()'s. */
  Status poll (bool *done);
  /* Submitted and not yet collected by wait () or poll (). */
  bool in_flight () const;
  /* Tasks queued before it on its core when it was submitted, every sharer's (for deadlines). */
  int tasks_ahead () const;
  int dla_core () const; /* the DLA core it runs on; -1 when empty */
  /* After the wait: an output's padded host copy (nullptr for a bad index or a skipped copy). */
  const void *host_output (int index = 0) const;
  SlotTimings timings () const;

  /* The slot back to the engine now (see above); the handle is empty after. Idempotent. */
  void give_back () noexcept;

 private:
  friend class Engine;
  Task (Engine *engine, int slot, void *input, bool timed)
      : engine_ (engine), slot_ (slot), input_ (input), timed_ (timed)
  {
  }
  Status empty_error (const char *call) const;

  Engine *engine_ = nullptr;
  int slot_ = -1;
  void *input_ = nullptr;
  bool timed_ = false;
};

}  // namespace dla
