/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the completion wait learns: where to set the alarm (the median of where the tasks end as the
 * wake-ups see them, within [kMin, kMax]) and the expected task duration (the shorter of the last two
 * timed tasks). */
#include "dla/completion_wait.h"

#include <gtest/gtest.h>
#include <sys/prctl.h>

#include <algorithm>
#include <random>
#include <thread>
#include <vector>

namespace {

using dla::CompletionWait;
using dla::ExpectedDuration;
using dla::WakeOffset;
using std::chrono::microseconds;
using std::chrono::nanoseconds;

/* Wake-ups at the offset against tasks that end at `ends` in turn (relative to the expected end,
 * overshoot included): early when the task ends after the wake-up. */
void wake_against (WakeOffset *w, const std::vector<nanoseconds> &ends, int rounds)
{
  for (int i = 0; i < rounds; ++i)
    w->woke (w->get () < ends[size_t (i) % ends.size ()]);
}

TEST (WakeOffset, StartsAtTheExpectedEnd)
{
  EXPECT_EQ (WakeOffset ().get (), nanoseconds (0));
}

TEST (WakeOffset, SettlesOnTheMedianEnd)
{
  /* Ends spread over [2, 12] us as a short sleep's overshoot plus the queueing delay are on the H200
   * host, with a tail of stalls: the median is about 7 us; the mean, which the tail drags, 8.5. */
  std::mt19937 rng (7);
  std::vector<nanoseconds> ends;
  for (int i = 0; i < 999; ++i)
    ends.push_back (i % 50 == 0 ? microseconds (80) : nanoseconds (2000 + int (rng () % 8001u)));
  std::vector<nanoseconds> sorted = ends;
  std::nth_element (sorted.begin (), sorted.begin () + 499, sorted.end ());
  const nanoseconds median = sorted[499];
  WakeOffset w;
  wake_against (&w, ends, 5000);
  EXPECT_LE (std::chrono::abs (w.get () - median), microseconds (1)) << "median " << median.count () << " ns";
}

TEST (WakeOffset, FollowsAShiftWithinAFewDozenWakeUps)
{
  WakeOffset w;
  wake_against (&w, {microseconds (5)}, 200);
  EXPECT_LE (std::chrono::abs (w.get () - microseconds (5)), WakeOffset::kStep);
  /* A long sleep overshoots more (about 25 us on the H200 host): the alarm moves earlier. */
  wake_against (&w, {microseconds (-20)}, 60);
  EXPECT_LE (std::chrono::abs (w.get () - microseconds (-20)), WakeOffset::kStep);
}

TEST (WakeOffset, StaysWithinBounds)
{
  WakeOffset w;
  wake_against (&w, {std::chrono::milliseconds (5)}, 1000); /* tasks far slower than expected */
  EXPECT_EQ (w.get (), nanoseconds (WakeOffset::kMax));
  wake_against (&w, {std::chrono::milliseconds (-5)}, 1000);
  EXPECT_EQ (w.get (), nanoseconds (WakeOffset::kMin));
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

/* The wait sleeps to the expected end with a 1 us timer slack (the default 50 us would overshoot short
 * tasks), and the thread keeps it: no prctl calls around each sleep. No event: the query after the sleep
 * fails (no GPU, or no such event), which ends the wait. The expected 20 ms leaves the wait its sleep
 * even under valgrind on a loaded host (with 1 ms, reaching the wait could take longer, and then it
 * rightly did not sleep). */
TEST (CompletionWait, SleepsWithATightTimerSlackTheThreadKeeps)
{
  constexpr unsigned long kDefault = 50000;
  long untouched = -1, after_first = -1, after_second = -1;
  float slept_ms = 0.f;
  int err = 0;
  std::thread ([&] {
    prctl (PR_SET_TIMERSLACK, kDefault, 0, 0, 0);
    CompletionWait w;
    untouched = prctl (PR_GET_TIMERSLACK, 0, 0, 0, 0);
    w.learn (20.f);
    w.learn (20.f);
    w.started ();
    err = w.wait (nullptr);
    slept_ms = w.elapsed_ms ();
    after_first = prctl (PR_GET_TIMERSLACK, 0, 0, 0, 0);
    w.started ();
    w.wait (nullptr);
    after_second = prctl (PR_GET_TIMERSLACK, 0, 0, 0, 0);
  }).join ();
  EXPECT_EQ (untouched, long (kDefault)) << "only a wait that sleeps may change the thread's slack";
  EXPECT_NE (err, 0) << "a wait on no event must fail";
  EXPECT_GE (slept_ms, 19.9f) << "the wait must sleep until the expected end (20 ms)";
  EXPECT_EQ (after_first, long (CompletionWait::kTimerSlackNs));
  EXPECT_EQ (after_second, long (CompletionWait::kTimerSlackNs));
}

/* A task queued behind others: its alarm counts from their expected end, not from its submit. */
TEST (CompletionWait, AQueuedTaskSleepsFromTheEndOfTheTasksBeforeIt)
{
  CompletionWait w;
  w.learn (1.f);
  w.learn (1.f);
  const auto now = std::chrono::steady_clock::now ();
  w.started ();
  w.queued (now + std::chrono::milliseconds (5));
  EXPECT_GE (w.expected_end (), now + std::chrono::milliseconds (6));
  EXPECT_LT (w.expected_end (), now + std::chrono::milliseconds (1000));
  EXPECT_NE (w.wait (nullptr), 0) << "a wait on no event must fail";
  EXPECT_GE (w.elapsed_ms (), 5.9f) << "the wait must sleep until the queued task's expected end";
  /* A begin in the past counts from the submit. */
  const auto submit = std::chrono::steady_clock::now ();
  w.queued (now - std::chrono::seconds (1));
  EXPECT_GE (w.expected_end (), submit + std::chrono::milliseconds (1));
}

/* The host's work between acquire and submit (mapping the frame, preprocessing, a graph
 * capture) must not move the alarm: it counts from the submit (queued), while the task's total
 * time still counts from the acquire (started). */
TEST (CompletionWait, HostTimeBeforeTheSubmitDoesNotDelayTheAlarm)
{
  using namespace std::chrono;
  CompletionWait w;
  w.learn (1.f);
  w.learn (1.f);
  w.started ();
  std::this_thread::sleep_for (milliseconds (20)); /* the host's work before the submit */
  const auto before = steady_clock::now ();
  w.queued ();
  const auto after = steady_clock::now ();
  EXPECT_GE (w.expected_end (), before + milliseconds (1));
  EXPECT_LE (w.expected_end (), after + milliseconds (1)) << "the alarm counts from the submit";
  EXPECT_NE (w.wait (nullptr), 0) << "a wait on no event must fail";
  EXPECT_GE (w.elapsed_ms (), 21.f) << "the total counts from the acquire";
}

/* A thread the caller does not own (a GstTask's, from a pool) gets its own slack back. */
TEST (TimerSlackScope, SetsTheTightSlackAndPutsTheThreadsBack)
{
  constexpr unsigned long kDefault = 50000;
  long inside = -1, after = -1;
  std::thread ([&] {
    prctl (PR_SET_TIMERSLACK, kDefault, 0, 0, 0);
    {
      dla::TimerSlackScope scope;
      inside = prctl (PR_GET_TIMERSLACK, 0, 0, 0, 0);
    }
    after = prctl (PR_GET_TIMERSLACK, 0, 0, 0, 0);
  }).join ();
  EXPECT_EQ (inside, long (CompletionWait::kTimerSlackNs));
  EXPECT_EQ (after, long (kDefault));
}

}  // namespace
