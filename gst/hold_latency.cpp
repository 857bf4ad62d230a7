#include "gst/hold_latency.h"

#include <algorithm>

namespace dlainfer {

void HoldLatency::reset (std::chrono::nanoseconds base)
{
  window_.clear ();
  window_.reserve (kWindow);
  announced_ns_ = base.count ();
}

bool HoldLatency::add (std::chrono::nanoseconds hold)
{
  window_.push_back (hold);
  if (window_.size () < kWindow)
    return false;
  const size_t rank = kWindow - kWindow / 100; /* the 99th percentile's index + 1 */
  std::nth_element (window_.begin (), window_.begin () + (rank - 1), window_.end ());
  const std::chrono::nanoseconds p99 = window_[rank - 1];
  window_.clear ();
  if (p99.count () <= announced_ns_.load ())
    return false;
  announced_ns_ = p99.count ();
  return true;
}

}  // namespace dlainfer
