/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: one DLA core of a loaded model: its device handle, the loadable loaded
 * on it, its own CUDA stream (two cores' tasks run at once only on two streams; every sharer's
 * tasks on the core queue on this one, in submit order), and when the tasks queued on it are
 * expected to end. A model is loaded on one or on every core (loaded_model.h), one CoreQueue each;
 * the model's mutex guards them. The task slots are each engine's own (engine.h).
 *
 * An engine's slots are numbered across its cores: core index x slots per core + the slot on the
 * core, so the caller sees one slot number and never a core. */
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dla/cuda_resources.h"
#include "dla/descriptor_map.h"
#include "dla/device.h"
#include "dla/module.h"
#include "dla/slot_ring.h"
#include "dla/task_slot.h"

namespace dla {

/* Where an engine-wide slot number lives; core_index -1 for a number outside the engine. */
struct SlotPlace {
  int core_index = -1; /* the core among the engine's cores (not the DLA core's number) */
  int local = -1;
};

constexpr int engine_slot (int core_index, int local, int per_core)
{
  return core_index * per_core + local;
}

constexpr SlotPlace place_of (int slot, int cores, int per_core)
{
  return slot < 0 || per_core <= 0 || slot >= cores * per_core ? SlotPlace{}
                                                               : SlotPlace{slot / per_core, slot % per_core};
}

/* At most this many cores in one engine (the dla-core property's range). */
constexpr int kMaxCores = 16;

/* When a core is expected to have ended the tasks submitted to it: where a new task's wait counts
 * its alarm from (completion_wait.h). Counts submitted tasks only, not acquired ones: a task
 * acquired before the consumer saw the last one end would count its own duration twice (in the
 * end, then again from its submit), and its waits would sleep a whole task past its end. */
class QueueClock {
 public:
  using Time = std::chrono::steady_clock::time_point;
  /* A task submitted at `now`, expected to take `expected`: where its alarm counts from (behind
   * the tasks queued before it). */
  Time submitted (Time now, std::chrono::nanoseconds expected)
  {
    const Time begin = std::max (now, end_);
    end_ = begin + expected;
    ++queued_;
    return begin;
  }
  /* A task was seen ending at `at` (or dropped, never seen): the ones still queued began then and
   * end one `expected` after another. */
  void ended (Time at, std::chrono::nanoseconds expected)
  {
    --queued_;
    end_ = at + queued_ * expected;
  }
  void dropped () { --queued_; }
  Time end () const { return end_; }
  int queued () const { return queued_; }

 private:
  Time end_{};
  int queued_ = 0; /* submitted, not seen ending, every sharer's */
};

class CoreQueue {
 public:
  /* Opens DLA core `core`: the handle, cuDLA's task timeout, the loadable `bytes` (`origin`: its
   * file, for messages). */
  static Status Open (const std::shared_ptr<const Library> &lib, int cuda_device, int core,
                      uint32_t task_timeout_ms, const std::vector<uint8_t> &bytes, const std::string &origin,
                      std::unique_ptr<CoreQueue> *out);
  /* Teardown order (docs/cudla.md 4.6): stream idle -> the stream -> the module -> the handle. The
   * engines' slots (their tensors) went before, with the engines. */
  ~CoreQueue ();
  CoreQueue (const CoreQueue &) = delete;
  CoreQueue &operator= (const CoreQueue &) = delete;

  /* The core's stream. */
  Status make_stream ();

  const Device &device () const { return *device_; }
  const std::shared_ptr<const Device> &device_ptr () const { return device_; }
  const Module &module () const { return module_; }
  int dla_core () const { return device_->dla_core (); }
  void *stream () const { return stream_.get (); } /* cudaStream_t */
  QueueClock clock;
  uint64_t tasks_ended = 0; /* tasks seen ending well (the first teaches the scheduler nothing) */

 private:
  CoreQueue () = default;

  std::shared_ptr<const Device> device_;
  Module module_;
  CudaStream stream_;
};

}  // namespace dla
