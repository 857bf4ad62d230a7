/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/hold_latency.h"

#include <algorithm>

namespace dlainfer {

void DownstreamTime::push_started (Clock::time_point now)
{
  std::lock_guard<std::mutex> lock (mutex_);
  pushing_since_ = now;
  pushing_ = true;
}

void DownstreamTime::push_ended (Clock::time_point now)
{
  std::lock_guard<std::mutex> lock (mutex_);
  if (pushing_)
    total_ += now - pushing_since_;
  pushing_ = false;
}

std::chrono::nanoseconds DownstreamTime::total (Clock::time_point now) const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return total_ + (pushing_ && now > pushing_since_ ? now - pushing_since_ : std::chrono::nanoseconds (0));
}

void DownstreamTime::reset ()
{
  std::lock_guard<std::mutex> lock (mutex_);
  total_ = std::chrono::nanoseconds (0);
  pushing_ = false;
}

void HoldLatency::reset (std::chrono::nanoseconds base)
{
  window_.clear ();
  window_.reserve (kWindow);
  announced_ns_ = base.count ();
  pending_ns_ = -1;
}

bool HoldLatency::add (std::chrono::nanoseconds hold)
{
  const int64_t base = pending_ns_.exchange (-1);
  if (base >= 0 && base != announced_ns_.load ()) {
    announced_ns_ = base;
    window_.clear (); /* holds from before the change */
    return true;
  }
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
