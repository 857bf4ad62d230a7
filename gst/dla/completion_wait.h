/* gst-dlainfer: waiting for a slot's last event without paying the driver's wake-up latency.
 *
 * A blocking-sync event lets the thread sleep while the DLA works, but its wake-up can come long
 * after the work ends (about 1 ms per frame on the virtualised H200 host, where 0.05 ms of GPU
 * work took 1.07 ms per frame). So the wait sleeps with the OS timer until shortly before the
 * expected end (the previous task's duration, measured by CUDA events), polls for a short window,
 * and only then blocks on the event. The CPU polls at most kPollWindow per frame. */
#pragma once

#include <chrono>

namespace dla {

class CompletionWait {
 public:
  static constexpr std::chrono::microseconds kPollWindow {150};

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
