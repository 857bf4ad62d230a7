/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: which frames run the model when `interval` skips some (every interval+1-th frame
 * is inferred; the others carry the last result, marked with its age). No GStreamer. */
#pragma once

#include <cstdint>

namespace dlainfer {

class Interval {
 public:
  /* Whether this frame runs the model. False: carry the last result, which is then age() frames
   * old. The first frame (and the first after reset) always runs. */
  bool infer_now (uint32_t interval)
  {
    if (!have_result_ || age_ >= interval)
      return true;
    ++age_;
    return false;
  }
  /* This frame was inferred: its result is the one to carry. */
  void inferred ()
  {
    have_result_ = true;
    age_ = 0;
  }
  /* Nothing to carry any more (start, flush). */
  void reset ()
  {
    have_result_ = false;
    age_ = 0;
  }
  uint32_t age () const { return age_; }

 private:
  bool have_result_ = false;
  uint32_t age_ = 0;
};

}  // namespace dlainfer
