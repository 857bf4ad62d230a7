/* gst-dlainfer: the latency the element announces, and when to announce it again.
 *
 * At start the element announces what it adds by design: max-in-flight tasks of the warm-up
 * task's time (docs/architecture.md 8). Every frame's hold (submit_input_buffer entered -> pushed)
 * goes into a window; when the window's 99th percentile is above what was announced, that
 * percentile becomes the announcement and add () says so (the element then posts a LATENCY
 * message). The latency only grows while the element runs. No GStreamer. */
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

namespace dlainfer {

class HoldLatency {
 public:
  static constexpr size_t kWindow = 200; /* the 99th percentile: the window's 3rd largest */

  /* start: `base` is announced, the window emptied. */
  void reset (std::chrono::nanoseconds base);
  /* One frame's hold (the push thread). True when the announcement just grew. */
  bool add (std::chrono::nanoseconds hold);
  /* Any thread. */
  std::chrono::nanoseconds announced () const { return std::chrono::nanoseconds (announced_ns_.load ()); }

 private:
  std::vector<std::chrono::nanoseconds> window_;
  std::atomic<int64_t> announced_ns_{0};
};

}  // namespace dlainfer
