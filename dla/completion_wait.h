/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: waiting for a slot's last event without paying the driver's wake-up costs.
 *
 * A blocking-sync event would let the thread sleep in the driver, but its wake-up comes late after
 * the work ends, and every record of such an event costs CUDA's own threads CPU (the README's
 * Benchmarks section has the figures). So the events are plain, and the wait sleeps with the OS
 * timer until an alarm near the expected end (ExpectedDuration: the device time of recent timed
 * tasks, moved by the learnt WakeOffset), polls until kLate after it, then naps of kFirstNap
 * doubling to kMaxNap until the event completes or fails, or the caller's deadline passes. From its
 * first sleep on, the waiting thread keeps a timer slack of kTimerSlackNs: Linux's default (50 us)
 * would overshoot short tasks. */
#pragma once

#include <algorithm>
#include <chrono>

namespace dla {

/* Where to set the alarm, relative to the expected end: the median of where the tasks really end as
 * this thread's wake-ups see them (up a step when a wake-up finds the task still running, down when
 * it finds it done; a wait that began past its alarm teaches only when it finds the task running).
 * Early costs polling CPU and late costs idle DLA time, microsecond for microsecond, so the median
 * minimises their sum (aiming later, one wake-up in ten early, saved little CPU and cost the busy
 * DLA some of its frames: README, Limitations). It absorbs whatever sits between the device's clock
 * and the host's: the timer's overshoot (longer after a long sleep), the queueing delay before the
 * first event, the spread of the tasks. */
class WakeOffset {
 public:
  static constexpr std::chrono::nanoseconds kStep{500};
  static constexpr std::chrono::microseconds kMin{-100}, kMax{100};

  std::chrono::nanoseconds get () const { return offset_; }
  /* A wake-up from the alarm found the task still running (`early`) or done. */
  void woke (bool early);

 private:
  std::chrono::nanoseconds offset_{0};
};

/* How long a slot's tasks take (the device time of its timed tasks, engine.h timed_task): the
 * shorter of the last two, so one slow task (a stall; the first of a stream, which loads modules)
 * does not hold the frames until the next timed one asleep, and two in a row move it. 0 (poll from
 * the start) until two are known. */
class ExpectedDuration {
 public:
  std::chrono::nanoseconds get () const { return expected_; }
  void measured (std::chrono::nanoseconds took);

 private:
  std::chrono::nanoseconds expected_{0}, last_{0};
};

/* The calling thread's timer slack set to CompletionWait::kTimerSlackNs for the scope, and put back
 * after it: for threads the caller does not own (a GstTask's thread returns to a pool). */
class TimerSlackScope {
 public:
  TimerSlackScope ();
  ~TimerSlackScope ();
  TimerSlackScope (const TimerSlackScope &) = delete;
  TimerSlackScope &operator= (const TimerSlackScope &) = delete;

 private:
  long previous_ = -1;
};

/* The expected end of a task whose duration is not known yet: poll from the start. */
constexpr std::chrono::steady_clock::time_point kUnknownEnd = std::chrono::steady_clock::time_point::min ();

/* Waits for `event` (a cudaEvent_t) as CompletionWait does, with the alarm at `expected_end` moved
 * by `offset` (which learns from the wake-up); returns the CUDA status (cudaErrorNotReady when the
 * deadline came first). For a second thread that waits for the same task as its consumer, with an
 * offset of its own (dla::Engine::await_end). */
int wait_for_event (void *event, std::chrono::steady_clock::time_point expected_end,
                    std::chrono::steady_clock::time_point deadline, WakeOffset *offset);

class CompletionWait {
 public:
  static constexpr unsigned long kTimerSlackNs = 1000;
  static constexpr std::chrono::microseconds kLate{100};
  static constexpr std::chrono::microseconds kFirstNap{50}, kMaxNap{1000};

  /* The slot's task began now (the host's view: elapsed_ms () counts from here). */
  void started ()
  {
    start_ = std::chrono::steady_clock::now ();
    begin_ = start_;
  }
  /* The task was handed to the device now, behind tasks expected to end at `begin`: the device
   * begins it at whichever is later, and the alarm counts from there. Not the host's time before
   * the submit (preprocessing, a graph captured on a first frame): the learnt duration is the
   * device's alone (TaskSlot::learn_timings). */
  void queued (std::chrono::steady_clock::time_point begin = {})
  {
    begin_ = std::max (std::chrono::steady_clock::now (), begin);
  }
  /* When the task is expected to end (its begin while the duration is unknown). */
  std::chrono::steady_clock::time_point expected_end () const { return begin_ + expected_.get (); }
  /* When the last wait (or poll) saw the task end. */
  std::chrono::steady_clock::time_point ended_at () const { return end_; }
  std::chrono::nanoseconds expected () const { return expected_.get (); }
  /* The work was seen done now, without wait () (a poll). */
  void ended () { end_ = std::chrono::steady_clock::now (); }
  /* A timed task took device_ms from its start event to its end event. */
  void learn (float device_ms);
  /* Waits for `event` (a cudaEvent_t) until `deadline`; returns the CUDA status (cudaErrorNotReady
   * when the deadline came first). */
  int wait (void *event,
            std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max ());
  /* The end the wait's alarm aims at: the expected end, a bogus duration capped; kUnknownEnd while
   * the duration is not known. */
  std::chrono::steady_clock::time_point wake_end () const;
  /* Where the alarm is set relative to the expected end (WakeOffset). */
  std::chrono::nanoseconds alarm_offset () const { return offset_.get (); }
  /* Host milliseconds from started () to `end` (the end of the last wait by default). */
  float elapsed_ms () const { return elapsed_ms (end_); }
  float elapsed_ms (std::chrono::steady_clock::time_point end) const
  {
    return std::chrono::duration<float, std::milli> (end - start_).count ();
  }

 private:
  std::chrono::steady_clock::time_point start_{}, begin_{}, end_{};
  ExpectedDuration expected_;
  WakeOffset offset_;
};

}  // namespace dla
