/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: one frame on its way through the element, from the streaming thread's submit to
 * the src pad's push (docs/architecture.md 8): its buffer, its list of DLA tasks, and what its
 * results are read and published with. Every frame takes the one path: its plan's regions (the
 * whole frame, or the objects roi-list selected) go to the DLA in tasks, which the frame holds
 * until the src task has read them; dropping the frame gives them back (dla/task.h). */
#pragma once

#include <gst/gst.h>

#include <chrono>
#include <memory>
#include <vector>

#include "dla/task.h"
#include "host/postprocess.h"

namespace dlainfer {

namespace objects {
struct FrameObjects;
}

/* One DLA task of a frame: batch items 0..count-1 of its tensors hold regions first..first+count-1
 * of the frame's plan (full frame: the one region, the whole frame). */
struct FrameTask {
  dla::Task task;
  uint32_t first = 0, count = 1;
  bool first_of_wave = true; /* its events timed its wave's one preprocessing launch */
};

struct PendingFrame {
  PendingFrame () = default;
  PendingFrame (PendingFrame &&o) noexcept;
  PendingFrame &operator= (PendingFrame &&o) noexcept;
  ~PendingFrame ();

  GstBuffer *buffer = nullptr;
  /* The tasks queued with the frame (roi-list: its last wave; earlier waves were read at submit).
   * None: nothing to infer (full frame: the interval carries the last result; roi-list: every
   * object carried, or none). */
  std::vector<FrameTask> tasks;
  bool graphed = false; /* the preprocessing launch was replayed from a CUDA graph */
  guint age = 0;        /* full frame, not inferred: the carried result's age in frames */
  postprocess::Params post;
  bool post_messages = false;
  std::shared_ptr<objects::FrameObjects> objects;       /* roi-list: the frame's objects */
  GstSegment segment{};                                 /* at submit: for the result message */
  GstClockTime running_time = GST_CLOCK_TIME_NONE;      /* at submit */
  std::chrono::steady_clock::time_point submitted_at{}; /* for the hold (in -> out) */
  std::chrono::nanoseconds downstream_at_submit{0};     /* DownstreamTime::total at submit */

  bool inferred () const { return !tasks.empty (); }
  /* The DLA task slots the frame holds until the src task has read them. */
  int task_count () const { return int (tasks.size ()); }
  GstBuffer *take_buffer ();
};

}  // namespace dlainfer
