/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The frames-in-flight queue (gst/inflight.h) on the CPU: input order, the wait for a free task
 * slot, flushes that end every wait, drains that wait for the push, the stored flow, deadlines. */
#include "gst/inflight.h"

#include <gst/gst.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

namespace {

using dlainfer::InFlight;
using dlainfer::PendingFrame;
using namespace std::chrono_literals;

PendingFrame frame (int slot, guint64 offset)
{
  PendingFrame f;
  f.buffer = gst_buffer_new ();
  GST_BUFFER_OFFSET (f.buffer) = offset;
  if (slot >= 0)
    f.tasks.resize (1); /* InFlight counts a frame's tasks; an empty handle stands for one */
  return f;
}

InFlight::Deadline in (std::chrono::milliseconds ms)
{
  return std::chrono::steady_clock::now () + ms;
}

/* An inferred frame, then one that carries its result. */
void queue_inferred_and_carried (InFlight &q, int max_tasks)
{
  q.configure (max_tasks, 4);
  q.push (frame (0, 0));
  q.push (frame (-1, 1));
}

/* The src task's part for one frame: take it, end its task, push it. */
guint64 take_and_push (InFlight &q, GstFlowReturn ret = GST_FLOW_OK)
{
  PendingFrame f;
  EXPECT_EQ (q.next (&f, in (1000ms)), InFlight::Wait::kReady);
  if (f.inferred ())
    q.task_done ();
  q.pushed (ret);
  return f.buffer ? GST_BUFFER_OFFSET (f.buffer) : G_MAXUINT64;
}

TEST (InFlight, FramesLeaveInInputOrder)
{
  InFlight q;
  q.configure (4, 8);
  for (guint64 i = 0; i < 6; ++i) {
    ASSERT_EQ (q.wait_for_room (i % 2 == 0, in (100ms)), InFlight::Wait::kReady) << i;
    q.push (frame (i % 2 == 0 ? int (i / 2) : -1, i));
  }
  EXPECT_EQ (q.tasks (), 3);
  for (guint64 i = 0; i < 6; ++i)
    EXPECT_EQ (take_and_push (q), i);
  EXPECT_EQ (q.tasks (), 0);
  EXPECT_EQ (q.drain (in (10ms)), InFlight::Wait::kReady);
}

TEST (InFlight, WaitsForAFreeTaskSlot)
{
  InFlight q;
  q.configure (2, 8);
  q.push (frame (0, 0));
  q.push (frame (1, 1));
  EXPECT_EQ (q.wait_for_room (true, in (20ms)), InFlight::Wait::kTimeout);
  /* A frame that runs no task still has room. */
  EXPECT_EQ (q.wait_for_room (false, in (20ms)), InFlight::Wait::kReady);

  auto waiter = std::async (std::launch::async, [&] { return q.wait_for_room (true, in (5000ms)); });
  EXPECT_EQ (waiter.wait_for (50ms), std::future_status::timeout) << "room before any task ended";
  PendingFrame f;
  ASSERT_EQ (q.next (&f), InFlight::Wait::kReady);
  EXPECT_EQ (waiter.wait_for (50ms), std::future_status::timeout) << "taking a frame frees no slot";
  q.task_done ();
  EXPECT_EQ (waiter.get (), InFlight::Wait::kReady);
  q.pushed (GST_FLOW_OK);
}

TEST (InFlight, FrameBoundCountsTheFrameBeingPushed)
{
  InFlight q;
  q.configure (1, 2);
  q.push (frame (-1, 0));
  PendingFrame f;
  ASSERT_EQ (q.next (&f), InFlight::Wait::kReady);
  q.push (frame (-1, 1));
  EXPECT_EQ (q.wait_for_room (false, in (20ms)), InFlight::Wait::kTimeout);
  q.pushed (GST_FLOW_OK);
  EXPECT_EQ (q.wait_for_room (false, in (20ms)), InFlight::Wait::kReady);
}

TEST (InFlight, FlushEndsEveryWait)
{
  InFlight q;
  q.configure (1, 1);
  q.push (frame (0, 0));
  auto room = std::async (std::launch::async, [&] { return q.wait_for_room (true); });
  auto drained = std::async (std::launch::async, [&] { return q.drain (); });
  EXPECT_EQ (room.wait_for (30ms), std::future_status::timeout);
  EXPECT_EQ (drained.wait_for (1ms), std::future_status::timeout);
  q.set_flushing (true);
  EXPECT_EQ (room.get (), InFlight::Wait::kFlushing);
  EXPECT_EQ (drained.get (), InFlight::Wait::kFlushing);
  PendingFrame f;
  EXPECT_EQ (q.next (&f), InFlight::Wait::kFlushing) << "a flushing queue hands out nothing";
  EXPECT_EQ (q.flow (), GST_FLOW_FLUSHING);

  /* FLUSH_STOP: the queued frames come back to be dropped, and the queue starts over. */
  std::deque<PendingFrame> dropped = q.take_all ();
  ASSERT_EQ (dropped.size (), 1u);
  EXPECT_EQ (dropped.front ().task_count (), 1);
  EXPECT_EQ (GST_BUFFER_OFFSET (dropped.front ().buffer), 0u);
  q.set_flushing (false);
  EXPECT_EQ (q.tasks (), 0);
  EXPECT_EQ (q.flow (), GST_FLOW_OK);
  EXPECT_EQ (q.wait_for_room (true, in (10ms)), InFlight::Wait::kReady);
}

TEST (InFlight, NextWaitsForAFrameUntilFlushed)
{
  InFlight q;
  q.configure (2, 4);
  auto taker = std::async (std::launch::async, [&] {
    PendingFrame f;
    return q.next (&f);
  });
  EXPECT_EQ (taker.wait_for (30ms), std::future_status::timeout);
  q.set_flushing (true);
  EXPECT_EQ (taker.get (), InFlight::Wait::kFlushing);
  q.set_flushing (false);
  PendingFrame f;
  EXPECT_EQ (q.next (&f, in (20ms)), InFlight::Wait::kTimeout);
}

TEST (InFlight, DrainWaitsUntilEmptyAndNotPushing)
{
  InFlight q;
  queue_inferred_and_carried (q, 2);
  std::atomic<bool> done{false};
  auto drained = std::async (std::launch::async, [&] {
    const InFlight::Wait w = q.drain ();
    done = true;
    return w;
  });
  PendingFrame f;
  ASSERT_EQ (q.next (&f), InFlight::Wait::kReady);
  q.task_done ();
  q.pushed (GST_FLOW_OK);
  ASSERT_EQ (q.next (&f), InFlight::Wait::kReady);
  /* Queue empty, last frame still being pushed: the drain goes on waiting. */
  std::this_thread::sleep_for (30ms);
  EXPECT_FALSE (done.load ());
  EXPECT_EQ (q.queued (), 0u);
  EXPECT_TRUE (q.busy ());
  q.pushed (GST_FLOW_OK);
  EXPECT_EQ (drained.get (), InFlight::Wait::kReady);
  /* Draining pushes nothing itself. */
  EXPECT_EQ (q.next (&f, in (10ms)), InFlight::Wait::kTimeout);
}

TEST (InFlight, StoredFlowReachesTheStreamingThread)
{
  InFlight q;
  /* Two frames at most, both queued: the waiter needs the pushed frame's room. (Waiting on the task
   * slot instead would race: task_done () frees it before pushed () stores the flow.) */
  q.configure (2, 2);
  q.push (frame (0, 0));
  q.push (frame (-1, 1));
  auto room = std::async (std::launch::async, [&] { return q.wait_for_room (true); });
  take_and_push (q, GST_FLOW_NOT_LINKED);
  /* The push made room, but the flow it stored wins: upstream gets it, no frame is queued. */
  EXPECT_EQ (room.get (), InFlight::Wait::kStopped);
  EXPECT_EQ (q.flow (), GST_FLOW_NOT_LINKED);
  EXPECT_EQ (q.wait_for_room (false, in (10ms)), InFlight::Wait::kStopped);
  /* A drain does not wait for a task that stopped. */
  EXPECT_EQ (q.drain (in (1000ms)), InFlight::Wait::kStopped);
  /* The first flow other than OK is kept. */
  take_and_push (q, GST_FLOW_EOS);
  EXPECT_EQ (q.flow (), GST_FLOW_NOT_LINKED);
  q.set_flushing (true);
  q.take_all ();
  q.set_flushing (false);
  EXPECT_EQ (q.flow (), GST_FLOW_OK);
}

TEST (InFlight, DeadlinesEndWaits)
{
  InFlight q;
  q.configure (1, 1);
  q.push (frame (0, 0));
  const auto start = std::chrono::steady_clock::now ();
  EXPECT_EQ (q.wait_for_room (true, in (50ms)), InFlight::Wait::kTimeout);
  EXPECT_EQ (q.drain (in (50ms)), InFlight::Wait::kTimeout);
  const auto took = std::chrono::steady_clock::now () - start;
  EXPECT_GE (took, 100ms);
  EXPECT_LT (took, 10s);
}

TEST (InFlight, DroppedFramesReleaseTheirBuffers)
{
  GstBuffer *buf = gst_buffer_new ();
  {
    InFlight q;
    PendingFrame f;
    f.buffer = gst_buffer_ref (buf);
    q.push (std::move (f));
    EXPECT_EQ (GST_MINI_OBJECT_REFCOUNT_VALUE (buf), 2);
    q.take_all ();
    EXPECT_EQ (GST_MINI_OBJECT_REFCOUNT_VALUE (buf), 1);
    f = frame (-1, 0);
    PendingFrame g (std::move (f));
    EXPECT_EQ (f.buffer, nullptr);
    EXPECT_NE (g.buffer, nullptr);
  }
  gst_buffer_unref (buf);
}

}  // namespace

namespace {

/* roi-list: a frame holds several tasks (its last wave); room is counted in tasks, and a frame
 * without a task needs a place in the queue only. */
TEST (InFlight, FramesWithSeveralTasks)
{
  InFlight q;
  q.configure (3, 8);
  ASSERT_EQ (q.wait_for_tasks (2, in (100ms)), InFlight::Wait::kReady);
  PendingFrame f = frame (-1, 0);
  f.tasks.resize (2); /* empty handles: InFlight counts them */
  f.tasks[1].first = 4;
  EXPECT_EQ (f.task_count (), 2);
  q.push (std::move (f));
  EXPECT_EQ (q.tasks (), 2);
  EXPECT_EQ (q.wait_for_tasks (2, in (30ms)), InFlight::Wait::kTimeout) << "one slot free, two asked";
  EXPECT_EQ (q.wait_for_tasks (1, in (30ms)), InFlight::Wait::kReady);
  q.push (frame (-1, 1)); /* no task: every object carried */
  EXPECT_EQ (q.tasks (), 2);
  EXPECT_EQ (q.wait_for_tasks (5, in (30ms)), InFlight::Wait::kTimeout) << "more than the maximum: all of it";
  PendingFrame out;
  ASSERT_EQ (q.next (&out, in (100ms)), InFlight::Wait::kReady);
  EXPECT_EQ (out.tasks.size (), 2u);
  q.task_done (out.task_count ());
  q.pushed (GST_FLOW_OK);
  EXPECT_EQ (q.tasks (), 0);
  EXPECT_EQ (q.wait_for_tasks (3, in (30ms)), InFlight::Wait::kReady);
  EXPECT_EQ (take_and_push (q), 1u);
}

}  // namespace

namespace {

/* A frame keeps everything it was queued with through the moves of push, next and give_back: a
 * carried result's age, the post-processing, the flags, the times. */
PendingFrame frame_with_every_field ()
{
  PendingFrame f = frame (-1, 7);
  f.graphed = true;
  f.age = 3;
  f.post.activation = postprocess::Activation::kSigmoid;
  f.post.top_k = 2;
  f.post.threshold = 0.25f;
  f.post.int8_scale = 0.125f;
  f.post_messages = true;
  gst_segment_init (&f.segment, GST_FORMAT_TIME);
  f.segment.base = 11 * GST_SECOND;
  f.running_time = 12 * GST_SECOND;
  f.submitted_at = std::chrono::steady_clock::time_point (13s);
  f.downstream_at_submit = 14ms;
  return f;
}

void expect_every_field (const PendingFrame &f, const char *after)
{
  SCOPED_TRACE (after);
  ASSERT_NE (f.buffer, nullptr);
  EXPECT_EQ (GST_BUFFER_OFFSET (f.buffer), 7u);
  EXPECT_TRUE (f.graphed);
  EXPECT_EQ (f.age, 3u) << "the carried result's age";
  EXPECT_EQ (f.post.activation, postprocess::Activation::kSigmoid);
  EXPECT_EQ (f.post.top_k, 2);
  EXPECT_EQ (f.post.threshold, 0.25f);
  EXPECT_EQ (f.post.int8_scale, 0.125f);
  EXPECT_TRUE (f.post_messages);
  EXPECT_EQ (f.segment.base, 11 * GST_SECOND);
  EXPECT_EQ (f.running_time, 12 * GST_SECOND);
  EXPECT_EQ (f.submitted_at, std::chrono::steady_clock::time_point (13s));
  EXPECT_EQ (f.downstream_at_submit, std::chrono::nanoseconds (14ms));
}

TEST (PendingFrame, MovesKeepEveryField)
{
  PendingFrame a = frame_with_every_field ();
  PendingFrame b (std::move (a));
  expect_every_field (b, "move construction");
  EXPECT_EQ (a.buffer, nullptr);
  PendingFrame c = frame (-1, 99);
  c = std::move (b);
  expect_every_field (c, "move assignment");
}

TEST (InFlight, CarriedFrameKeepsItsAgeThroughTheQueue)
{
  InFlight q;
  q.configure (1, 4);
  q.push (frame_with_every_field ());
  PendingFrame f;
  ASSERT_EQ (q.next (&f, in (1000ms)), InFlight::Wait::kReady);
  expect_every_field (f, "push and next");
  q.give_back (std::move (f), GST_FLOW_OK);
  std::deque<PendingFrame> left = q.take_all ();
  ASSERT_EQ (left.size (), 1u);
  expect_every_field (left.front (), "give_back and take_all");
}

}  // namespace
