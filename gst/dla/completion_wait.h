/* gst-dlainfer: waiting for a slot's last event without paying the driver's wake-up costs.
 *
 * A blocking-sync event would let the thread sleep in the driver, but its wake-up comes tens of
 * microseconds after the work ends, and every record of such an event costs CUDA's own threads
 * about 20 us of CPU (measured on an H200 host). So the events are plain, and the wait sleeps with
 * the OS timer until shortly before the expected end (ExpectedDuration: the device time of recent
 * timed tasks), polls until kLate after it, then naps of kFirstNap doubling to kMaxNap until the
 * event completes or fails. The sleep runs with a timer slack of 1 us: Linux's default 50 us would
 * overshoot short tasks. Polling costs CPU for as long as it lasts, so "shortly before" is learnt
 * (WakeMargin): as much as this machine's timer wake-ups overshoot, not a fixed guess. */
#pragma once

#include <chrono>

namespace dla {

/* How long before the expected end to wake up: an estimate of the 90th percentile of recent timer
 * overshoots (up by kUp when a wake-up overshoots it, down by kDown when not: it settles where 1 in
 * 10 does), plus a guard; between kMin and kMax. A rare late wake-up costs a few microseconds of
 * latency; a margin that follows the rare spikes would cost that much polling CPU on every frame. */
class WakeMargin {
 public:
  static constexpr std::chrono::microseconds kMin {2};
  static constexpr std::chrono::microseconds kMax {20};
  static constexpr std::chrono::microseconds kGuard {1};
  static constexpr std::chrono::nanoseconds kUp {2250}, kDown {250};

  std::chrono::microseconds get () const { return margin_; }
  /* A sleep meant to end at some time ended `late` after it. */
  void overshot (std::chrono::nanoseconds late);

 private:
  std::chrono::nanoseconds estimate_ {kMax - kGuard};
  std::chrono::microseconds margin_ {kMax};
};

/* How long a slot's tasks take (the device time of its timed tasks, one in kTimingPeriod): the
 * shorter of the last two, so one slow task (a stall; the first of a stream, which loads modules)
 * does not hold the frames until the next timed one asleep, and two in a row move it. 0 (poll from
 * the start) until two are known. */
class ExpectedDuration {
 public:
  std::chrono::nanoseconds get () const { return expected_; }
  void measured (std::chrono::nanoseconds took);

 private:
  std::chrono::nanoseconds expected_ {0}, last_ {0};
};

class CompletionWait {
 public:
  static constexpr std::chrono::microseconds kLate {100};
  static constexpr std::chrono::microseconds kFirstNap {50}, kMaxNap {1000};

  /* The slot's work was queued now. */
  void started () { start_ = std::chrono::steady_clock::now (); }
  /* A timed task took device_ms from its start event to its end event. */
  void learn (float device_ms);
  /* Waits for `event` (a cudaEvent_t); returns the CUDA status. */
  int wait (void *event);
  /* Host milliseconds from started () to the end of the last wait. */
  float elapsed_ms () const { return std::chrono::duration<float, std::milli> (end_ - start_).count (); }

 private:
  std::chrono::steady_clock::time_point start_ {}, end_ {};
  ExpectedDuration expected_;
  WakeMargin margin_;
};

}  // namespace dla
