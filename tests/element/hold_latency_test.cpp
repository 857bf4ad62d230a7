/* The latency the element announces (gst/hold_latency.h): the base until the 99th percentile of a
 * window of holds outgrows it, then that percentile; never less. */
#include "gst/hold_latency.h"

#include <gtest/gtest.h>

#include <chrono>

namespace {

using dlainfer::HoldLatency;
using namespace std::chrono_literals;

TEST (HoldLatency, AnnouncesTheBaseUntilTheP99OutgrowsIt)
{
  HoldLatency l;
  l.reset (4ms);
  EXPECT_EQ (l.announced (), 4ms);
  /* A window under the base: nothing to announce. */
  for (size_t i = 0; i < HoldLatency::kWindow; ++i)
    EXPECT_FALSE (l.add (3ms));
  EXPECT_EQ (l.announced (), 4ms);
  /* 1 % of the frames held long is within the 99th percentile: still nothing. */
  for (size_t i = 0; i < HoldLatency::kWindow; ++i)
    EXPECT_FALSE (l.add (i < HoldLatency::kWindow / 100 ? 50ms : 3ms));
  EXPECT_EQ (l.announced (), 4ms);
  /* 5 % of them: the percentile is one of them, announced once the window is full. */
  bool grew = false;
  for (size_t i = 0; i < HoldLatency::kWindow; ++i)
    grew = l.add (i % 20 == 0 ? 7ms : 3ms) || grew;
  EXPECT_TRUE (grew);
  EXPECT_EQ (l.announced (), 7ms);
  /* It never shrinks while running; reset starts over. */
  for (size_t i = 0; i < HoldLatency::kWindow; ++i)
    EXPECT_FALSE (l.add (1ms));
  EXPECT_EQ (l.announced (), 7ms);
  l.reset (2ms);
  EXPECT_EQ (l.announced (), 2ms);
}

}  // namespace
