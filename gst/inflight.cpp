/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/inflight.h"

#include <utility>

namespace dlainfer {

void InFlight::configure (int max_tasks, int max_frames)
{
  std::lock_guard<std::mutex> lock (mutex_);
  max_tasks_ = max_tasks < 1 ? 1 : max_tasks;
  max_frames_ = max_frames < max_tasks_ ? max_tasks_ : max_frames;
}

template <typename Pred>
InFlight::Wait InFlight::wait_until (std::unique_lock<std::mutex> &lock, Deadline deadline, Pred ready)
{
  for (;;) {
    if (flushing_)
      return Wait::kFlushing;
    if (ready ())
      return Wait::kReady;
    if (stopped ())
      return Wait::kStopped;
    if (deadline == kForever)
      changed_.wait (lock);
    else if (changed_.wait_until (lock, deadline) == std::cv_status::timeout && !flushing_ && !ready ())
      return stopped () ? Wait::kStopped : Wait::kTimeout;
  }
}

InFlight::Wait InFlight::wait_for_room (bool needs_task, Deadline deadline)
{
  return wait_for_tasks (needs_task ? 1 : 0, deadline);
}

InFlight::Wait InFlight::wait_for_tasks (int tasks, Deadline deadline)
{
  std::unique_lock<std::mutex> lock (mutex_);
  tasks = tasks > max_tasks_ ? max_tasks_ : tasks;
  /* A stopped task frees nothing: the stored flow goes upstream first. */
  if (stopped () && !flushing_)
    return Wait::kStopped;
  return wait_until (lock, deadline, [&] {
    const int frames = int (frames_.size ()) + (busy_ ? 1 : 0);
    return frames < max_frames_ && tasks_ + tasks <= max_tasks_ && !stopped ();
  });
}

void InFlight::push (PendingFrame &&frame)
{
  {
    std::lock_guard<std::mutex> lock (mutex_);
    tasks_ += frame.task_count ();
    frames_.push_back (std::move (frame));
  }
  changed_.notify_all ();
}

InFlight::Wait InFlight::drain (Deadline deadline)
{
  std::unique_lock<std::mutex> lock (mutex_);
  return wait_until (lock, deadline, [&] { return frames_.empty () && !busy_; });
}

GstFlowReturn InFlight::flow () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return flushing_ ? GST_FLOW_FLUSHING : flow_;
}

InFlight::Wait InFlight::next (PendingFrame *out, Deadline deadline)
{
  std::unique_lock<std::mutex> lock (mutex_);
  /* The task runs only while the flow is OK; it waits for frames, not for a stored flow. */
  for (;;) {
    if (flushing_)
      return Wait::kFlushing;
    if (!frames_.empty ())
      break;
    if (deadline == kForever)
      changed_.wait (lock);
    else if (changed_.wait_until (lock, deadline) == std::cv_status::timeout && !flushing_ &&
             frames_.empty ())
      return Wait::kTimeout;
  }
  *out = std::move (frames_.front ());
  frames_.pop_front ();
  busy_ = true;
  return Wait::kReady;
}

void InFlight::task_done (int n)
{
  {
    std::lock_guard<std::mutex> lock (mutex_);
    tasks_ = tasks_ > n ? tasks_ - n : 0;
  }
  changed_.notify_all ();
}

void InFlight::pushed (GstFlowReturn ret)
{
  {
    std::lock_guard<std::mutex> lock (mutex_);
    busy_ = false;
    if (ret != GST_FLOW_OK && flow_ == GST_FLOW_OK)
      flow_ = ret;
  }
  changed_.notify_all ();
}

void InFlight::give_back (PendingFrame &&frame, GstFlowReturn ret)
{
  {
    std::lock_guard<std::mutex> lock (mutex_);
    frames_.push_front (std::move (frame));
    busy_ = false;
    if (ret != GST_FLOW_OK && flow_ == GST_FLOW_OK)
      flow_ = ret;
  }
  changed_.notify_all ();
}

bool InFlight::flushing () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return flushing_;
}

void InFlight::set_flushing (bool flushing)
{
  {
    std::lock_guard<std::mutex> lock (mutex_);
    flushing_ = flushing;
  }
  changed_.notify_all ();
}

std::deque<PendingFrame> InFlight::take_all ()
{
  std::deque<PendingFrame> out;
  {
    std::lock_guard<std::mutex> lock (mutex_);
    out.swap (frames_);
    tasks_ = 0;
    busy_ = false;
    flow_ = GST_FLOW_OK;
  }
  changed_.notify_all ();
  return out;
}

size_t InFlight::queued () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return frames_.size ();
}

int InFlight::tasks () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return tasks_;
}

bool InFlight::busy () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return busy_;
}

}  // namespace dlainfer
