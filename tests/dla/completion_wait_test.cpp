/* What the completion wait learns: the wake-up margin (an upper percentile of the timer's overshoot
 * plus a guard, always within [kMin, kMax]) and the expected task duration (the shorter of the last
 * two timed tasks). */
#include <gtest/gtest.h>

#include "completion_wait.h"

namespace {

using dla::ExpectedDuration;
using dla::WakeMargin;
using std::chrono::microseconds;
using std::chrono::nanoseconds;

TEST (WakeMargin, StartsCautious)
{
  EXPECT_EQ (WakeMargin ().get (), WakeMargin::kMax);
}

TEST (WakeMargin, SettlesOnASteadyOvershootPlusGuard)
{
  WakeMargin m;
  for (int i = 0; i < 200; ++i)
    m.overshot (nanoseconds (1500));
  /* Within one step up of 1.5 us, rounded up, plus the guard. */
  EXPECT_GE (m.get (), microseconds (2) + WakeMargin::kGuard);
  EXPECT_LE (m.get (), microseconds (4) + WakeMargin::kGuard);
  for (int i = 0; i < 200; ++i)
    m.overshot (nanoseconds (0));
  EXPECT_EQ (m.get (), WakeMargin::kMin);
}

TEST (WakeMargin, IgnoresRareSpikes)
{
  WakeMargin m;
  /* 1 wake-up in 20 overshoots 15 us, the rest 3 us: the margin covers the 3, not the 15. */
  for (int i = 0; i < 2000; ++i)
    m.overshot (i % 20 == 0 ? microseconds (15) : microseconds (3));
  EXPECT_GE (m.get (), microseconds (3) + WakeMargin::kGuard);
  EXPECT_LE (m.get (), microseconds (8)); /* a 3 us overshoot, a step or two up, and the guard */
}

TEST (WakeMargin, FollowsALastingRiseWithinAFewWakeUps)
{
  WakeMargin m;
  for (int i = 0; i < 200; ++i)
    m.overshot (nanoseconds (0));
  for (int i = 0; i < 6; ++i)
    m.overshot (microseconds (10));
  EXPECT_GE (m.get (), microseconds (10) + WakeMargin::kGuard);
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

TEST (ExpectedDuration, StartsUnknownAndFollowsSteadyTasks)
{
  ExpectedDuration d;
  EXPECT_EQ (d.get (), nanoseconds (0)); /* the first wait polls from the start */
  d.measured (microseconds (95));
  EXPECT_EQ (d.get (), nanoseconds (0)) << "one task is not yet a trend";
  d.measured (microseconds (90));
  EXPECT_EQ (d.get (), microseconds (90));
  d.measured (microseconds (93));
  EXPECT_EQ (d.get (), microseconds (90));
}

TEST (ExpectedDuration, OneSlowTaskDoesNotHoldTheNextAsleep)
{
  ExpectedDuration d;
  for (int i = 0; i < 4; ++i)
    d.measured (microseconds (100));
  d.measured (std::chrono::milliseconds (40)); /* a stall */
  EXPECT_EQ (d.get (), microseconds (100));
  d.measured (microseconds (100));
  EXPECT_EQ (d.get (), microseconds (100));
}

TEST (ExpectedDuration, TwoSlowTasksMoveIt)
{
  ExpectedDuration d;
  for (int i = 0; i < 4; ++i)
    d.measured (microseconds (1000));
  d.measured (microseconds (2000));
  d.measured (microseconds (2000));
  EXPECT_EQ (d.get (), microseconds (2000));
}

}  // namespace
