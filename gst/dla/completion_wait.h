/* gst-dlainfer: waiting for a slot's last event without paying the driver's wake-up latency.
 *
 * A blocking-sync event lets the thread sleep while the DLA works, but its wake-up comes well after
 * the work ends. So the wait sleeps with the OS timer until shortly (kEarly) before the expected end
 * (the previous task's duration, measured by CUDA events), polls until kLate after it, and only then
 * blocks on the event. The sleep runs with a timer slack of 1 us: Linux's default 50 us would
 * overshoot short tasks. */
#pragma once

#include <chrono>

namespace dla {

class CompletionWait {
 public:
  static constexpr std::chrono::microseconds kEarly {20};
  static constexpr std::chrono::microseconds kLate {100};

  /* The slot's work was queued now. */
  void started () { start_ = std::chrono::steady_clock::now (); }
  /* How long the last task took on the device (from its events); 0 = unknown. */
  void learn (float device_ms);
  /* Waits for `event` (a cudaEvent_t made with cudaEventBlockingSync); returns the CUDA status. */
  int wait (void *event) const;

 private:
  std::chrono::steady_clock::time_point start_ {};
  std::chrono::microseconds expected_ {0};
};

}  // namespace dla
