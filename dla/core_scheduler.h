/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: which DLA core runs the next task, when an engine runs on several.
 *
 * A task goes to the core where it is expected to end first: (tasks queued there + 1) x that
 * core's expected task duration, ties to the lower core. The "+ 1" counts the new task itself, so
 * with nothing queued a faster core still wins. A core's duration is learnt from its completions;
 * until it has one, it is assumed to take as long as the cores that have (or all are equal), so an
 * unknown core is neither avoided nor flooded. A core marked failed gets no more tasks.
 *
 * Pure logic, no CUDA, thread-safe (one mutex): the producer picks, the consumer reports ends.
 * dla::Engine picks with it on every acquire (docs/architecture.md 8). */
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

namespace dla {

/* What `stats` shows of one core. */
struct CoreCounters {
  uint64_t tasks = 0;                   /* tasks that ended with a duration (completed ()) */
  uint64_t dropped = 0;                 /* picked, then not run or ended without a duration */
  std::chrono::nanoseconds busy{0};     /* sum of the completed tasks' durations */
  std::chrono::nanoseconds expected{0}; /* the learnt duration; 0 while unknown */
  int queued = 0;                       /* picked and not yet ended */
  bool failed = false;
};

class CoreScheduler {
 public:
  explicit CoreScheduler (int cores);

  int cores () const { return int (cores_.size ()); }
  /* The core for the next task among those `allowed` has a bit for (core i: bit i; a caller's
   * cores with a free slot), counted as queued there; -1 when none of them can take it. */
  int pick (uint32_t allowed = ~0u);
  /* A task picked for `core` ended after `duration` on the DLA: it leaves the queue, the duration
   * teaches the core's expected one and adds to its busy time (0 or less: as dropped ()). */
  void completed (int core, std::chrono::nanoseconds duration);
  /* A task picked for `core` ended without a duration it could teach (not submitted, failed). */
  void dropped (int core);
  /* `core` refused its work (a fault, a refused loadable): it is picked no more. */
  void mark_failed (int core);
  CoreCounters counters (int core) const;

  /* Weight of a new duration in the learnt one (an exponential moving average): one slow task
   * moves it a little, a lasting change within a few dozen tasks. */
  static constexpr int kLearnDivisor = 8;

 private:
  struct Core {
    CoreCounters c;
    bool known = false;
  };
  std::chrono::nanoseconds assumed () const; /* mutex_ held */
  Core *core (int i);                        /* mutex_ held; nullptr for a bad index */
  Core *ended (int i);                       /* mutex_ held */

  mutable std::mutex mutex_;
  std::vector<Core> cores_;
};

}  // namespace dla
