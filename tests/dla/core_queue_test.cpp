/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Slot numbers across an engine's cores (dla/core_queue.h), on any machine: every number of every
 * core is one place and back, numbers outside the engine are nowhere; and a core's QueueClock. */
#include "dla/core_queue.h"

#include <gtest/gtest.h>

#include <set>

namespace {

TEST (SlotPlace, EveryNumberIsOnePlaceAndBack)
{
  for (int cores = 1; cores <= 3; ++cores)
    for (int per_core = 1; per_core <= 5; ++per_core) {
      std::set<int> seen;
      for (int c = 0; c < cores; ++c)
        for (int l = 0; l < per_core; ++l) {
          const int slot = dla::engine_slot (c, l, per_core);
          EXPECT_TRUE (seen.insert (slot).second) << "slot " << slot << " given twice";
          const dla::SlotPlace at = dla::place_of (slot, cores, per_core);
          EXPECT_EQ (at.core_index, c) << slot;
          EXPECT_EQ (at.local, l) << slot;
        }
      EXPECT_EQ (int (seen.size ()), cores * per_core);
      EXPECT_EQ (*seen.begin (), 0) << "numbers start at 0";
      EXPECT_EQ (*seen.rbegin (), cores * per_core - 1) << "and have no gaps";
    }
}

TEST (SlotPlace, OneCoreKeepsTheSlotNumbers)
{
  for (int l = 0; l < 4; ++l) {
    EXPECT_EQ (dla::engine_slot (0, l, 4), l);
    EXPECT_EQ (dla::place_of (l, 1, 4).local, l);
  }
}

TEST (SlotPlace, OutsideTheEngineIsNowhere)
{
  for (int slot : {-1, 6, 7, 1000}) {
    const dla::SlotPlace at = dla::place_of (slot, 2, 3);
    EXPECT_EQ (at.core_index, -1) << slot;
    EXPECT_EQ (at.local, -1) << slot;
  }
  EXPECT_EQ (dla::place_of (0, 2, 0).core_index, -1) << "no slots per core";
  EXPECT_EQ (dla::place_of (0, 0, 2).core_index, -1) << "no cores";
}

}  // namespace

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::microseconds;

/* A core's clock: each task's alarm counts from the end of the tasks submitted before it. */
TEST (QueueClock, TasksQueueBehindEachOther)
{
  dla::QueueClock clock;
  const Clock::time_point t0 = Clock::now ();
  EXPECT_EQ (clock.submitted (t0, microseconds (2000)), t0);
  EXPECT_EQ (clock.submitted (t0 + microseconds (10), microseconds (2000)), t0 + microseconds (2000));
  EXPECT_EQ (clock.queued (), 2);
  clock.ended (t0 + microseconds (2050), microseconds (2000));
  EXPECT_EQ (clock.end (), t0 + microseconds (4050)) << "the second began when the first was seen ending";
  clock.ended (t0 + microseconds (4040), microseconds (2000));
  EXPECT_EQ (clock.queued (), 0);
  EXPECT_EQ (clock.submitted (t0 + microseconds (5000), microseconds (2000)), t0 + microseconds (5000))
      << "an idle core begins a task at its submit";
}

/* max-in-flight=1 with the spare slot: the producer acquires the next task when the DLA ends the
 * last, before its consumer saw that end. Its submit must count from its own time, not a whole
 * task later (the waits then slept through every other task's end: 66 % of 1/service). */
TEST (QueueClock, ATaskAcquiredBeforeTheLastEndedCountsOnce)
{
  dla::QueueClock clock;
  const Clock::time_point t0 = Clock::now ();
  clock.submitted (t0, microseconds (2000));
  /* The producer saw the end at t0 + 2000 and acquired; the consumer sees it at + 2010. */
  clock.ended (t0 + microseconds (2010), microseconds (2000));
  const Clock::time_point submit = t0 + microseconds (2030);
  EXPECT_EQ (clock.submitted (submit, microseconds (2000)), submit);
  EXPECT_EQ (clock.end (), submit + microseconds (2000));
}

TEST (QueueClock, ADroppedTaskLeavesTheCount)
{
  dla::QueueClock clock;
  const Clock::time_point t0 = Clock::now ();
  clock.submitted (t0, microseconds (500));
  clock.submitted (t0, microseconds (500));
  clock.dropped ();
  EXPECT_EQ (clock.queued (), 1);
  clock.ended (t0 + microseconds (600), microseconds (500));
  EXPECT_EQ (clock.queued (), 0);
  EXPECT_EQ (clock.end (), t0 + microseconds (600));
}

}  // namespace
