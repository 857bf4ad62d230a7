/* The completion wait's learnt wake-up margin: follows timer overshoot up at once, down slowly,
 * always within [kMin, kMax]. */
#include <gtest/gtest.h>

#include "completion_wait.h"

namespace {

using dla::WakeMargin;
using std::chrono::microseconds;
using std::chrono::nanoseconds;

TEST (WakeMargin, StartsCautious)
{
  EXPECT_EQ (WakeMargin ().get (), WakeMargin::kMax);
}

TEST (WakeMargin, SettlesOnSmallOvershootPlusGuard)
{
  WakeMargin m;
  for (int i = 0; i < 100; ++i)
    m.overshot (nanoseconds (1500));
  EXPECT_EQ (m.get (), microseconds (2) + WakeMargin::kGuard); /* 1.5 us rounded up, plus the guard */
  for (int i = 0; i < 100; ++i)
    m.overshot (nanoseconds (0));
  EXPECT_EQ (m.get (), WakeMargin::kMin);
}

TEST (WakeMargin, FollowsASpikeAtOnceAndForgetsItSlowly)
{
  WakeMargin m;
  for (int i = 0; i < 100; ++i)
    m.overshot (nanoseconds (0));
  m.overshot (microseconds (10));
  EXPECT_EQ (m.get (), microseconds (10) + WakeMargin::kGuard);
  m.overshot (nanoseconds (0));
  EXPECT_GT (m.get (), microseconds (10)); /* 7/8 of the spike is still remembered */
  EXPECT_LT (m.get (), microseconds (10) + WakeMargin::kGuard);
  for (int i = 0; i < 100; ++i)
    m.overshot (nanoseconds (0));
  EXPECT_EQ (m.get (), WakeMargin::kMin);
}

TEST (WakeMargin, StaysWithinBounds)
{
  WakeMargin m;
  m.overshot (std::chrono::milliseconds (5)); /* a descheduled thread, not the timer */
  EXPECT_EQ (m.get (), WakeMargin::kMax);
  m.overshot (microseconds (-7)); /* a clock that went backwards counts as on time */
  EXPECT_LE (m.get (), WakeMargin::kMax);
  EXPECT_GE (m.get (), WakeMargin::kMin);
}

}  // namespace
