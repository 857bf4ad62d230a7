/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the frames between submit and push, in input order (docs/architecture.md 8).
 *
 * The streaming thread waits for room (a free DLA task slot for a frame that runs the model; a
 * place in the queue for every frame), then queues the frame; the src pad's task takes the oldest,
 * pushes it, and stores the push's flow return, which the streaming thread returns upstream. Serialized
 * events wait for a drain: no frame queued and none being pushed. Every wait ends on a flush, on a
 * stored flow that is not OK (the task stopped: nothing will move) or at its deadline. GStreamer
 * only for the buffer and flow types; no CUDA. */
#pragma once

#include <gst/gst.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#include "gst/pending_frame.h"

namespace dlainfer {

class InFlight {
 public:
  using Deadline = std::chrono::steady_clock::time_point;
  static constexpr Deadline kForever = Deadline::max ();
  enum class Wait { kReady, kFlushing, kStopped, kTimeout };

  /* Before streaming (nothing queued): at most `max_tasks` inferred frames and `max_frames` frames. */
  void configure (int max_tasks, int max_frames);

  /* Streaming thread. Room for one more frame (and a task slot when `needs_task`). kStopped: the
   * stored flow is not OK. */
  Wait wait_for_room (bool needs_task, Deadline deadline = kForever);
  /* The same for a frame that needs `tasks` task slots (at most max_tasks). */
  Wait wait_for_tasks (int tasks, Deadline deadline = kForever);
  void push (PendingFrame &&frame);
  /* Until no frame is queued and none is being pushed. */
  Wait drain (Deadline deadline = kForever);
  GstFlowReturn flow () const;

  /* The src task. Takes the oldest frame and marks the queue busy until pushed () (kReady); the
   * frame's task slot stays counted until task_done (). */
  Wait next (PendingFrame *out, Deadline deadline = kForever);
  void task_done (int n = 1);
  /* The frame taken by next () was pushed (or dropped) with `ret`; a flow other than OK is kept
   * until the next flush stop. */
  void pushed (GstFlowReturn ret);

  /* The frame taken by next () goes back to the front, not pushed: its task failed (`ret`, kept as
   * the flow) or a flush came while waiting for it (GST_FLOW_OK). Dropped by take_all (). */
  void give_back (PendingFrame &&frame, GstFlowReturn ret);

  /* FLUSH_START / stop: every wait returns kFlushing; next () takes nothing. */
  void set_flushing (bool flushing);
  bool flushing () const;
  /* FLUSH_STOP / stop (nothing pushing): the frames still queued, and the flow back to OK. */
  std::deque<PendingFrame> take_all ();

  size_t queued () const;
  int tasks () const;
  bool busy () const;

 private:
  bool stopped () const { return flow_ != GST_FLOW_OK; }
  template <typename Pred>
  Wait wait_until (std::unique_lock<std::mutex> &lock, Deadline deadline, Pred ready);

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<PendingFrame> frames_;
  int max_tasks_ = 1, max_frames_ = 1;
  int tasks_ = 0;     /* tasks of the frames queued or taken that have not been read */
  bool busy_ = false; /* the task took a frame and has not pushed it yet */
  bool flushing_ = false;
  GstFlowReturn flow_ = GST_FLOW_OK;
};

}  // namespace dlainfer
