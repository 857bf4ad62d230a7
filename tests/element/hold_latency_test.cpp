/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The latency the element announces (gst/hold_latency.h): the base until the 99th percentile of a
 * window of holds outgrows it, then that percentile; never less. A hold leaves out the time the src
 * task spent inside downstream's push (DownstreamTime). */
#include "gst/hold_latency.h"

#include <gtest/gtest.h>

#include <chrono>

namespace {

using dlainfer::DownstreamTime;
using dlainfer::HoldLatency;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

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

/* Elements sharing a model: a task waits behind every sharer's tasks in flight, spread over the
 * cores. */
TEST (HoldLatency, TasksAheadCountEverySharerOverTheCores)
{
  EXPECT_EQ (dlainfer::tasks_ahead (2, 1), 2);
  EXPECT_EQ (dlainfer::tasks_ahead (2, 2), 1);
  EXPECT_EQ (dlainfer::tasks_ahead (3, 2), 2);
  EXPECT_EQ (dlainfer::tasks_ahead (16, 2), 8) << "8 sharers of 2 tasks over two cores";
  EXPECT_EQ (dlainfer::tasks_ahead (0, 2), 1) << "the task itself";
  EXPECT_EQ (dlainfer::tasks_ahead (4, 0), 1);
}

/* A sharer joining or leaving moves the base, up or down: the next hold announces it once; the
 * same base again announces nothing; a reset drops a rebase not yet announced. */
TEST (HoldLatency, RebaseIsAnnouncedAtTheNextHold)
{
  HoldLatency l;
  l.reset (4ms);
  l.rebase (16ms);
  EXPECT_EQ (l.announced (), 4ms) << "announced by the push thread, not the joining one";
  EXPECT_TRUE (l.add (3ms));
  EXPECT_EQ (l.announced (), 16ms);
  EXPECT_FALSE (l.add (3ms)) << "once";
  l.rebase (8ms);
  EXPECT_TRUE (l.add (3ms));
  EXPECT_EQ (l.announced (), 8ms) << "a sharer left: down";
  l.rebase (8ms);
  EXPECT_FALSE (l.add (3ms)) << "nothing changed";
  l.rebase (32ms);
  l.reset (4ms);
  EXPECT_FALSE (l.add (3ms)) << "a restart announces its own base";
  EXPECT_EQ (l.announced (), 4ms);
  /* After a rebase the window starts again: a 99th percentile over the new base still grows it. */
  l.rebase (2ms);
  EXPECT_TRUE (l.add (1ms));
  bool grew = false;
  for (size_t i = 0; i < HoldLatency::kWindow; ++i)
    grew = l.add (5ms) || grew;
  EXPECT_TRUE (grew);
  EXPECT_EQ (l.announced (), 5ms);
}

TEST (DownstreamTime, CountsThePushesAndTheOneInProgress)
{
  DownstreamTime d;
  const Clock::time_point t0 = Clock::now ();
  EXPECT_EQ (d.total (t0), 0ns);
  d.push_started (t0);
  EXPECT_EQ (d.total (t0 + 5ms), 5ms) << "a push in progress counts up to now";
  d.push_ended (t0 + 10ms);
  EXPECT_EQ (d.total (t0 + 20ms), 10ms) << "between pushes the total stays";
  d.push_started (t0 + 30ms);
  d.push_ended (t0 + 33ms);
  EXPECT_EQ (d.total (t0 + 40ms), 13ms);
  d.push_ended (t0 + 50ms); /* no push in progress: nothing added */
  EXPECT_EQ (d.total (t0 + 60ms), 13ms);
  d.reset ();
  EXPECT_EQ (d.total (t0 + 70ms), 0ns);
}

/* A live source into a sink that syncs: the sink holds each push until the frame's running time
 * plus the pipeline's latency (here the upstream frame period, ours and basesink's 20 ms processing
 * deadline), so every frame waits behind the previous push. Counted as ours, the hold (25 ms)
 * outgrows the announcement, which would raise the sink's wait, and so on; without downstream's
 * time it is at most the task's 2 ms and the announcement stays. */
TEST (DownstreamTime, KeepsASyncingSinkOutOfTheHold)
{
  const auto period = 33ms, task = 2ms, deadline = 20ms;
  HoldLatency naive, own;
  naive.reset (5ms);
  own.reset (5ms);
  DownstreamTime d;
  const Clock::time_point t0 = Clock::now ();
  Clock::time_point push_end = t0; /* the previous push returns then (in time order below) */
  int naive_grew = 0;
  for (int k = 0; k < 10 * int (HoldLatency::kWindow); ++k) {
    const Clock::time_point arrive = t0 + k * period;
    if (push_end <= arrive)
      d.push_ended (push_end); /* before this frame came: a no-op when already ended */
    const auto at_submit = d.total (arrive);
    const Clock::time_point ready = std::max (arrive + task, push_end);
    d.push_ended (push_end); /* the src task is out of the previous push by now */
    naive_grew += naive.add (ready - arrive) ? 1 : 0;
    own.add (d.own_hold (arrive, at_submit, ready));
    /* The sink renders at the frame's time plus the pipeline's latency (upstream's period, the
     * element's base, the deadline): the push returns then. (Kept at the base: an application that
     * recalculated the latency on each announcement would grow the naive one without bound.) */
    d.push_started (ready);
    push_end = std::max (ready, arrive + period + 5ms + deadline);
  }
  EXPECT_GT (naive_grew, 0) << "the scenario must show the feedback it guards against";
  EXPECT_EQ (own.announced (), 5ms) << "the element's own hold never outgrew the base";
}

}  // namespace
