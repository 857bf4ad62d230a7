/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The task slots' rules (dla/slot_ring.h), on any machine: the misuse the engine refuses (submit
 * without acquire, double submit, wait without a task in flight, a slot that does not exist, more
 * tasks than slots), and an ended slot kept for its reader until released. The same refusals
 * through a real engine: tests/dla/engine_test.cpp (SlotMisuseIsRefused, WaitPastTheDeadline). */
#include "dla/slot_ring.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using State = dla::SlotRing::State;

bool says (const dla::Status &st, const std::string &what)
{
  return st.code == dla::Code::kRuntime && st.message.find (what) != std::string::npos;
}

TEST (SlotRing, OneTaskThroughItsStates)
{
  dla::SlotRing ring (1);
  int slot = -1;
  ASSERT_TRUE (ring.acquire (&slot).ok ());
  EXPECT_EQ (slot, 0);
  EXPECT_EQ (ring.state (0), State::kAcquired);
  EXPECT_TRUE (says (ring.check_in_flight (0), "no task in flight")) << "acquired is not in flight";
  ASSERT_TRUE (ring.check_submit (0).ok ());
  ring.submitted (0);
  EXPECT_TRUE (ring.check_in_flight (0).ok ());
  ring.ended (0);
  EXPECT_EQ (ring.state (0), State::kEnded);
  EXPECT_TRUE (says (ring.check_in_flight (0), "no task in flight")) << "ended: waited once";
  EXPECT_TRUE (says (ring.check_submit (0), "release () it"));
  EXPECT_FALSE (ring.has_free ());
  ring.release (0);
  EXPECT_EQ (ring.state (0), State::kFree);
  EXPECT_TRUE (ring.has_free ());
}

TEST (SlotRing, SubmitWithoutAcquire)
{
  dla::SlotRing ring (2);
  EXPECT_TRUE (says (ring.check_submit (1), "slot 1 was not acquired"));
  EXPECT_TRUE (says (ring.check_submit (2), "slot 2 does not exist (the engine has 2)"));
  EXPECT_TRUE (says (ring.check_submit (-1), "does not exist"));
}

TEST (SlotRing, DoubleSubmit)
{
  dla::SlotRing ring (1);
  int slot = -1;
  ASSERT_TRUE (ring.acquire (&slot).ok ());
  ring.submitted (slot);
  EXPECT_TRUE (says (ring.check_submit (slot), "still has a task in flight"));
}

TEST (SlotRing, WaitWithoutATaskInFlight)
{
  dla::SlotRing ring (1);
  EXPECT_TRUE (says (ring.check_in_flight (0), "slot 0 has no task in flight to complete"));
  EXPECT_TRUE (says (ring.check_in_flight (5), "does not exist"));
}

TEST (SlotRing, MoreTasksThanSlots)
{
  dla::SlotRing ring (3);
  for (int want = 0; want < 3; ++want) {
    int slot = -1;
    ASSERT_TRUE (ring.acquire (&slot).ok ());
    EXPECT_EQ (slot, want) << "in turn from slot 0";
  }
  int slot = -1;
  EXPECT_TRUE (says (ring.acquire (&slot), "all 3 slot(s)"));
  ring.submitted (1);
  ring.ended (1);
  EXPECT_TRUE (says (ring.acquire (&slot), "not yet released")) << "ended, its outputs unread";
  EXPECT_EQ (ring.busy (), 3);
  ring.release (1);
  ASSERT_TRUE (ring.acquire (&slot).ok ());
  EXPECT_EQ (slot, 1) << "the released slot comes back";
}

/* A slot whose task ended is the caller's until it releases it (its outputs are being read on
 * another thread): never handed out before, even when it is the next in turn; free slots come in
 * turn. */
TEST (SlotRing, AnEndedSlotWaitsForItsRelease)
{
  dla::SlotRing ring (3);
  int slot = -1;
  for (int round = 0; round < 2; ++round)
    for (int want = 0; want < 3; ++want) {
      ASSERT_TRUE (ring.acquire (&slot).ok ());
      EXPECT_EQ (slot, want) << "round " << round;
      ring.submitted (slot);
      ring.ended (slot);
      ring.release (slot);
    }
  int a = -1, b = -1, c = -1;
  ASSERT_TRUE (ring.acquire (&a).ok ());
  EXPECT_EQ (a, 0);
  ring.submitted (a);
  ring.ended (a); /* being read */
  ASSERT_TRUE (ring.acquire (&b).ok ());
  ring.release (b); /* its input could not be written */
  ASSERT_TRUE (ring.acquire (&b).ok ());
  ASSERT_TRUE (ring.acquire (&c).ok ());
  EXPECT_NE (b, a);
  EXPECT_NE (c, a);
  EXPECT_TRUE (says (ring.acquire (&slot), "all 3 slot(s)")) << "the ended one stays the reader's";
  ring.release (a);
  ASSERT_TRUE (ring.acquire (&slot).ok ());
  EXPECT_EQ (slot, a) << "the only free one";
}

/* release () gives back an acquired slot or an ended one: never one in flight, whose task the DLA
 * may still be running. */
TEST (SlotRing, ReleaseOnlyWhatIsNotInFlight)
{
  dla::SlotRing ring (3);
  int a = -1, b = -1, c = -1;
  ASSERT_TRUE (ring.acquire (&a).ok ());
  ASSERT_TRUE (ring.acquire (&b).ok ());
  ASSERT_TRUE (ring.acquire (&c).ok ());
  ring.submitted (b);
  ring.submitted (c);
  ring.ended (c);
  ring.release (a);
  ring.release (b);
  ring.release (c);
  ring.release (7);
  EXPECT_EQ (ring.state (a), State::kFree);
  EXPECT_EQ (ring.state (b), State::kSubmitted);
  EXPECT_EQ (ring.state (c), State::kFree);
}

/* A task given back in flight is abandoned: not free until its end is seen, whoever sees it, and
 * counted meanwhile (the engine reaps those at acquire). */
TEST (SlotRing, AbandonedIsFreedWhenItsEndIsSeen)
{
  dla::SlotRing ring (2);
  int a = -1, b = -1;
  ASSERT_TRUE (ring.acquire (&a).ok ());
  ASSERT_TRUE (ring.acquire (&b).ok ());
  ring.abandon (a); /* acquired, not in flight: nothing to abandon */
  EXPECT_EQ (ring.state (a), State::kAcquired);
  ring.submitted (a);
  ring.submitted (b);
  ring.abandon (a);
  EXPECT_EQ (ring.state (a), State::kAbandoned);
  EXPECT_EQ (ring.abandoned (), 1);
  EXPECT_FALSE (ring.in_flight (a)) << "nobody waits for it";
  EXPECT_TRUE (says (ring.check_submit (a), "still has a task in flight"));
  ring.release (a);
  EXPECT_EQ (ring.state (a), State::kAbandoned) << "release () never frees a task the DLA may run";
  ring.ended (a, false);
  EXPECT_EQ (ring.state (a), State::kFree);
  EXPECT_EQ (ring.abandoned (), 0);
  ring.abandon (b);
  ring.ended (b, true);
  EXPECT_EQ (ring.state (b), State::kFree) << "seen by its consumer's last poll: free all the same";
  EXPECT_EQ (ring.abandoned (), 0);
}

/* Another thread saw the task end: it stays in flight for its consumer until the consumer
 * collects the status; given back before that, the slot is free. */
TEST (SlotRing, EndedEarlyWaitsForItsConsumer)
{
  dla::SlotRing ring (2);
  int a = -1, b = -1;
  ASSERT_TRUE (ring.acquire (&a).ok ());
  ASSERT_TRUE (ring.acquire (&b).ok ());
  ring.submitted (a);
  ring.submitted (b);
  ring.ended (a, false);
  ring.ended (b, false);
  EXPECT_EQ (ring.state (a), State::kEndedEarly);
  EXPECT_TRUE (ring.in_flight (a)) << "its consumer has still to see it end";
  EXPECT_TRUE (says (ring.check_submit (a), "release () it"));
  ring.collected (a);
  EXPECT_EQ (ring.state (a), State::kEnded);
  EXPECT_FALSE (ring.in_flight (a));
  ring.release (b);
  EXPECT_EQ (ring.state (b), State::kFree);
}

}  // namespace
