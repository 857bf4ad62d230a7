/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which core runs the next task (dla/core_scheduler.h), on any machine: equal cores alternate, a
 * slower core gets proportionally fewer tasks, ties go to the lower core, a failed core or one
 * the caller leaves out gets none, and the per-core counters `stats` will show. Durations are given, not
 * measured: nothing here depends on the host's timing. */
#include "dla/core_scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <thread>
#include <vector>

namespace {

using std::chrono::microseconds;
using std::chrono::nanoseconds;

/* Both cores' durations learnt: core 0 takes 2 ms, core 1 1 ms; nothing queued. */
void core0_twice_as_slow (dla::CoreScheduler &s)
{
  ASSERT_EQ (s.pick (), 0);
  ASSERT_EQ (s.pick (), 1);
  s.completed (0, microseconds (2000));
  s.completed (1, microseconds (1000));
}

TEST (CoreScheduler, TiesGoToTheLowerCore)
{
  dla::CoreScheduler s (2);
  EXPECT_EQ (s.pick (), 0) << "nothing known, nothing queued: a tie";
  EXPECT_EQ (s.pick (), 1);
  EXPECT_EQ (s.pick (), 0) << "one queued on each: a tie again";
}

TEST (CoreScheduler, EqualCoresAlternate)
{
  dla::CoreScheduler s (2);
  for (int i = 0; i < 2; ++i)
    s.completed (s.pick (), microseconds (1000));
  std::vector<int> order;
  for (int i = 0; i < 8; ++i) {
    order.push_back (s.pick ());
    if (i % 2) /* the oldest task of each core ends, as the DLA would end them */
      for (int c = 0; c < 2; ++c)
        s.completed (c, microseconds (1000));
  }
  EXPECT_EQ (order, (std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1}));
}

/* Only the cores the caller allows (an engine's cores with a free slot): the best of them, though
 * another would end the task first; none allowed: -1, and nothing counted. */
TEST (CoreScheduler, OnlyAllowedCores)
{
  dla::CoreScheduler s (3);
  EXPECT_EQ (s.pick (0b110), 1) << "core 0 would win the tie";
  EXPECT_EQ (s.pick (0b100), 2);
  EXPECT_EQ (s.pick (0b011), 0);
  EXPECT_EQ (s.pick (0), -1);
  EXPECT_EQ (s.counters (0).queued + s.counters (1).queued + s.counters (2).queued, 3);
}

/* With nothing queued, the faster core wins: the new task itself is counted. */
TEST (CoreScheduler, AnIdleFasterCoreWins)
{
  dla::CoreScheduler s (2);
  core0_twice_as_slow (s);
  EXPECT_EQ (s.pick (), 1);
}

/* Core 0 twice as slow: of the tasks queued at once, a third go to it. */
TEST (CoreScheduler, ASlowerCoreGetsProportionallyFewer)
{
  dla::CoreScheduler s (2);
  core0_twice_as_slow (s);
  int n[2] = {0, 0};
  for (int i = 0; i < 300; ++i)
    ++n[s.pick ()];
  EXPECT_NEAR (n[0], 100, 1);
  EXPECT_NEAR (n[1], 200, 1);
  EXPECT_EQ (s.counters (0).queued, n[0]);
}

/* A saturating stream over simulated time: each core ends its oldest task after its service time,
 * the producer keeps `in_flight` tasks queued. Each core stays busy and the shares follow speed. */
TEST (CoreScheduler, SimulatedStreamFollowsServiceTimes)
{
  const nanoseconds service[3] = {microseconds (1000), microseconds (3000), microseconds (1000)};
  dla::CoreScheduler s (3);
  std::deque<nanoseconds> queue[3]; /* each task's end time, in simulated time */
  nanoseconds now{0};
  auto submit = [&] () {
    const int c = s.pick ();
    ASSERT_GE (c, 0);
    const nanoseconds start = queue[c].empty () ? now : queue[c].back ();
    queue[c].push_back (start + service[c]);
  };
  for (int i = 0; i < 6; ++i)
    submit ();
  for (int done = 0; done < 7000; ++done) {
    int next = -1; /* the core whose oldest task ends first */
    for (int c = 0; c < 3; ++c)
      if (!queue[c].empty () && (next < 0 || queue[c].front () < queue[next].front ()))
        next = c;
    ASSERT_GE (next, 0);
    now = queue[next].front ();
    queue[next].pop_front ();
    s.completed (next, service[next]);
    submit ();
  }
  /* 7 tasks per 3 ms: 3 on each fast core, 1 on the slow one. */
  EXPECT_NEAR (double (s.counters (0).tasks), 3000, 30);
  EXPECT_NEAR (double (s.counters (1).tasks), 1000, 30);
  EXPECT_NEAR (double (s.counters (2).tasks), 3000, 30);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ (s.counters (c).expected, service[c]) << "core " << c;
    EXPECT_GE (s.counters (c).busy, now - service[1] * 2) << "core " << c << " stayed busy";
  }
}

TEST (CoreScheduler, AFailedCoreGetsNone)
{
  dla::CoreScheduler s (2);
  s.mark_failed (0);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ (s.pick (), 1);
  EXPECT_TRUE (s.counters (0).failed);
  EXPECT_EQ (s.counters (0).queued, 0);
  s.mark_failed (1);
  EXPECT_EQ (s.pick (), -1) << "every core failed";
}

/* An unknown core is assumed as fast as the known ones: it gets its share at once. */
TEST (CoreScheduler, AnUnknownCoreIsAssumedAverage)
{
  dla::CoreScheduler s (2);
  s.completed (s.pick (), microseconds (1000)); /* core 0 known, core 1 not */
  EXPECT_EQ (s.pick (), 0);
  EXPECT_EQ (s.pick (), 1);
  EXPECT_EQ (s.pick (), 0);
  EXPECT_EQ (s.counters (1).expected, nanoseconds (0)) << "unknown reads as 0";
}

TEST (CoreScheduler, CountersForStats)
{
  dla::CoreScheduler s (2);
  const int c = s.pick ();
  s.completed (c, microseconds (1000));
  s.pick ();
  s.completed (0, microseconds (3000)); /* learns an eighth of the difference */
  s.pick ();
  s.dropped (0); /* not submitted: counts, teaches nothing */
  const dla::CoreCounters k = s.counters (0);
  EXPECT_EQ (k.tasks, 2u);
  EXPECT_EQ (k.dropped, 1u);
  EXPECT_EQ (k.busy, microseconds (4000));
  EXPECT_EQ (k.expected, microseconds (1250));
  EXPECT_EQ (k.queued, 0);
  EXPECT_EQ (s.counters (5).tasks, 0u) << "a core that does not exist reads as empty";
  s.completed (7, microseconds (1)); /* ignored */
  dla::CoreScheduler none (0);
  EXPECT_EQ (none.pick (), -1);
}

/* A producer picks while a consumer ends tasks: every task is counted once, nothing stays queued. */
TEST (CoreScheduler, ProducerAndConsumerThreads)
{
  dla::CoreScheduler s (2);
  constexpr int kTasks = 20000;
  std::vector<int> picked (kTasks, -1);
  std::atomic<int> made{0};
  std::thread consumer ([&] () {
    for (int i = 0; i < kTasks; ++i) {
      while (made.load () <= i)
        std::this_thread::yield ();
      s.completed (picked[size_t (i)], microseconds (picked[size_t (i)] ? 1000 : 2000));
    }
  });
  for (int i = 0; i < kTasks; ++i) {
    picked[size_t (i)] = s.pick ();
    made.store (i + 1);
  }
  consumer.join ();
  const dla::CoreCounters a = s.counters (0), b = s.counters (1);
  EXPECT_EQ (a.tasks + b.tasks, uint64_t (kTasks));
  EXPECT_EQ (a.queued + b.queued, 0);
}

}  // namespace
