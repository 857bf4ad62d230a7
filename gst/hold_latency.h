/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the latency the element announces, and when to announce it again.
 *
 * At start the element announces what it adds by design: max-in-flight tasks of the warm-up
 * task's time (docs/architecture.md 8). Every frame's own hold (submitted -> ready to push, less
 * the time the src task spent meanwhile inside downstream's push: DownstreamTime) goes into a
 * window; when the window's 99th percentile is above what was announced, that percentile becomes
 * the announcement and add () says so (the element then posts a LATENCY message). The latency
 * only grows while the element runs, but for one cause: elements sharing a model (model-instance-id)
 * queue their tasks on the same cores, so when one joins or leaves, the others' base moves
 * (rebase (), from the thread that joins or leaves) and their next add () announces it. No
 * GStreamer. */
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

namespace dlainfer {

/* The time the src task has spent inside downstream's push, as a running total. A sink that syncs
 * holds each push until the frame's running time plus the pipeline's latency; a frame submitted
 * meanwhile waits for that push, which is downstream's latency, not ours. Counting it would feed
 * back: an announced latency raises the sink's wait, which raises the hold, which raises the
 * announcement (a live pipeline whose application recalculates latency would grow it without
 * bound). */
class DownstreamTime {
 public:
  using Clock = std::chrono::steady_clock;
  /* The src task, around each push. */
  void push_started (Clock::time_point now);
  void push_ended (Clock::time_point now);
  /* Any thread: the total until `now`, a push in progress included. */
  std::chrono::nanoseconds total (Clock::time_point now) const;
  /* A frame submitted at `submitted` (when total was `at_submit`), ready to push at `now`: its hold
   * less the downstream time meanwhile. */
  std::chrono::nanoseconds own_hold (Clock::time_point submitted, std::chrono::nanoseconds at_submit,
                                     Clock::time_point now) const
  {
    return std::chrono::duration_cast<std::chrono::nanoseconds> (now - submitted) - (total (now) - at_submit);
  }
  void reset ();

 private:
  mutable std::mutex mutex_;
  std::chrono::nanoseconds total_{0};
  Clock::time_point pushing_since_{};
  bool pushing_ = false;
};

/* Tasks a new task finds ahead of it, itself included, when `tasks` are in flight at most over
 * `cores` cores (the scheduler spreads them): every sharer's, so one element's frames wait behind
 * the others' too. */
constexpr int tasks_ahead (int tasks, int cores)
{
  return cores < 1 || tasks < 1 ? 1 : (tasks + cores - 1) / cores;
}

class HoldLatency {
 public:
  static constexpr size_t kWindow = 200; /* the 99th percentile: the window's 3rd largest */

  /* start: `base` is announced, the window emptied. */
  void reset (std::chrono::nanoseconds base);
  /* One frame's hold (the push thread). True when the announcement just changed: it grew, or a
   * rebase () came. */
  bool add (std::chrono::nanoseconds hold);
  /* Any thread: `base` replaces the announcement at the next add (), up or down; nothing when it
   * is what is announced. */
  void rebase (std::chrono::nanoseconds base) { pending_ns_ = base.count (); }
  /* Any thread. */
  std::chrono::nanoseconds announced () const { return std::chrono::nanoseconds (announced_ns_.load ()); }

 private:
  std::vector<std::chrono::nanoseconds> window_;
  std::atomic<int64_t> announced_ns_{0};
  std::atomic<int64_t> pending_ns_{-1}; /* a rebase () not yet announced; -1: none */
};

}  // namespace dlainfer
