/* gst-dlainfer: waiting for a slot's last event without paying the driver's wake-up latency.
 *
 * A blocking-sync event lets the thread sleep while the DLA works, but its wake-up comes well after
 * the work ends. So the wait sleeps with the OS timer until shortly before the expected end (the
 * previous task's duration, measured by CUDA events), polls until kLate after it, and only then
 * blocks on the event. The sleep runs with a timer slack of 1 us: Linux's default 50 us would
 * overshoot short tasks. Polling costs CPU for as long as it lasts, so "shortly before" is learnt
 * (WakeMargin): as much as this machine's timer wake-ups overshoot, not a fixed guess. */
#pragma once

#include <chrono>

namespace dla {

/* How long before the expected end to wake up: follows the largest recent timer overshoot at once,
 * forgets it by 1/8 per wake-up, plus a guard; between kMin and kMax. */
class WakeMargin {
 public:
  static constexpr std::chrono::microseconds kMin {3};
  static constexpr std::chrono::microseconds kMax {20};
  static constexpr std::chrono::microseconds kGuard {2};

  std::chrono::microseconds get () const { return margin_; }
  /* A sleep meant to end at some time ended `late` after it. */
  void overshot (std::chrono::nanoseconds late);

 private:
  std::chrono::nanoseconds peak_ {kMax - kGuard};
  std::chrono::microseconds margin_ {kMax};
};

class CompletionWait {
 public:
  static constexpr std::chrono::microseconds kLate {100};

  /* The slot's work was queued now. */
  void started () { start_ = std::chrono::steady_clock::now (); }
  /* How long the last task took on the device (from its events); 0 = unknown. */
  void learn (float device_ms);
  /* Waits for `event` (a cudaEvent_t made with cudaEventBlockingSync); returns the CUDA status. */
  int wait (void *event);

 private:
  std::chrono::steady_clock::time_point start_ {};
  std::chrono::microseconds expected_ {0};
  WakeMargin margin_;
};

}  // namespace dla
