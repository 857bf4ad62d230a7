/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a model loaded on one DLA core or on every core, the part of an engine its sharers
 * have in common: per core the device handle (reserved against cuDLA's 16, core_handles.h),
 * the module, one CUDA stream (the core's task queue: tasks run in the order they are submitted,
 * one at a time, as on a DLA core) and when its queued tasks are expected to end; the scheduler
 * that picks a core per task; the tensors the loadable declares; the mutex that guards all of it and
 * every cuDLA call on its handles.
 *
 * What it does not have: task slots. Each dla::Engine sharing it registers its own slots (tensors,
 * pinned copies, events) with the shared modules, so a sharer's frames in flight are its own and one
 * sharer can never take another's slots. Sharers join and leave at any time; each may be told when
 * the sharers' tasks in flight at most change (watch), for the latency it announces.
 *
 * Made by dla::Engine::Open (one engine, as before) or through dla::ModelRegistry for
 * model-instance-id; destroyed with its last sharer. */
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dla/core_handles.h"
#include "dla/core_scheduler.h"
#include "dla/descriptor_map.h"
#include "dla/loader.h"
#include "dla/status.h"

namespace dla {

class CoreQueue;

/* EngineConfig::dla_core for every core cudlaDeviceGetCount reports. */
constexpr int kEveryCore = -1;
/* The DLA core of an engine's i-th core queue: `dla_core` itself, or core i for kEveryCore. */
constexpr int core_at (int dla_core, int index)
{
  return dla_core == kEveryCore ? index : dla_core;
}

struct EngineConfig {
  /* Model-defining: what LoadedModel::Open loads (sharers must agree on them). */
  std::string model_path;
  int dla_core = 0; /* one core, or kEveryCore */
  int cuda_device = 0;
  uint32_t task_timeout_ms = 5000;
  /* Per sharer. */
  int num_slots = 1; /* tasks in flight at most, across the cores; each core has this many slots */
  /* One slot more on each core, for a producer that submits the next task as soon as the DLA ends
   * one (Engine::await_end), while its consumer still reads that one's outputs: with one task in
   * flight, the DLA would otherwise idle while the consumer wakes the producer. The caller then
   * counts num_slots + 1 tasks until read (engine.h: slots come back in turn). */
  bool spare_slot = false;
  std::string user; /* who opens it (an element's name), for the handle limit's message */
  /* Called with the mapped tensors before anything is allocated for them: the caller's limits on
   * what it can run (a non-ok status ends Open with it). */
  std::function<Status (const std::vector<TensorInfo> &inputs, const std::vector<TensorInfo> &outputs)>
      accept_tensors;
};

class LoadedModel {
 public:
  /* Loads cfg.model_path on cfg.dla_core (cfg.user names who for the handle limit). */
  static Status Open (const EngineConfig &cfg, std::shared_ptr<LoadedModel> *out);
  ~LoadedModel ();
  LoadedModel (const LoadedModel &) = delete;
  LoadedModel &operator= (const LoadedModel &) = delete;

  const EngineConfig &config () const { return cfg_; } /* its model-defining fields */
  const Library &library () const { return *lib_; }
  int cores () const { return int (cores_.size ()); }
  CoreQueue &core (int index) const { return *cores_[size_t (index)]; }
  CoreScheduler &scheduler () const { return *scheduler_; }
  std::mutex &mutex () const { return mutex_; }
  const std::vector<TensorInfo> &inputs () const { return inputs_; }
  const std::vector<TensorInfo> &outputs () const { return outputs_; }
  void *primary_context () const;

  /* A sharer with `max_tasks` in flight at most: its number, for leave and watch. */
  uint64_t join (int max_tasks);
  void leave (uint64_t sharer);
  /* `changed (tasks, sharers)` now and whenever a sharer joins or leaves, until `sharer` leaves:
   * every sharer's tasks in flight at most, and how many sharers. Called with a lock of its own
   * held (never the model's mutex), from the thread that joins or leaves: store, do not block. */
  using SharersChanged = std::function<void (int tasks, int sharers)>;
  void watch (uint64_t sharer, SharersChanged changed);
  int sharers () const;
  /* Every sharer's tasks in flight at most, now (what watch's callbacks get). */
  int tasks_in_flight () const;

 private:
  LoadedModel () = default;
  Status open_cores (const std::vector<uint8_t> &bytes);
  Status map_tensors ();
  void tell_watchers ();    /* watch_mutex_ held */
  int total_tasks () const; /* watch_mutex_ held */

  struct SharerWatch {
    int max_tasks = 0;
    SharersChanged changed;
  };

  EngineConfig cfg_;
  std::shared_ptr<const Library> lib_;
  /* Given back after the cores' handles are destroyed: declared before them. */
  std::vector<CoreHandles::Reservation> handles_;
  std::vector<std::unique_ptr<CoreQueue>> cores_; /* index i: cores_[i]->dla_core () */
  std::unique_ptr<CoreScheduler> scheduler_;
  std::vector<TensorInfo> inputs_, outputs_;
  mutable std::mutex mutex_;

  mutable std::mutex watch_mutex_;
  std::map<uint64_t, SharerWatch> sharers_;
  uint64_t next_sharer_ = 1;
};

}  // namespace dla
