/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/slot_ring.h"

#include <string>

namespace dla {

Status SlotRing::check_exists (int slot) const
{
  if (slot < 0 || slot >= size ())
    return Status::Error (Code::kRuntime, "slot " + std::to_string (slot) +
                                              " does not exist (the engine has " + std::to_string (size ()) +
                                              ")");
  return Status::Ok ();
}

bool SlotRing::has_free () const
{
  for (State s : states_)
    if (s == State::kFree)
      return true;
  return false;
}

int SlotRing::busy () const
{
  int n = 0;
  for (State s : states_)
    n += s != State::kFree;
  return n;
}

Status SlotRing::acquire (int *slot)
{
  for (int k = 0; k < size (); ++k) {
    const int i = (next_ + k) % size ();
    if (states_[size_t (i)] == State::kFree) {
      set (i, State::kAcquired);
      *slot = i;
      next_ = (i + 1) % size ();
      return Status::Ok ();
    }
  }
  return Status::Error (Code::kRuntime, "all " + std::to_string (size ()) +
                                            " slot(s) have a task acquired, in flight or not yet released");
}

void SlotRing::set (int slot, State s)
{
  State &now = states_[size_t (slot)];
  abandoned_ += (s == State::kAbandoned) - (now == State::kAbandoned);
  now = s;
}

void SlotRing::release (int slot)
{
  if (!check_exists (slot).ok ())
    return;
  const State s = state (slot);
  if (s == State::kAcquired || s == State::kEnded || s == State::kEndedEarly)
    set (slot, State::kFree);
}

void SlotRing::abandon (int slot)
{
  if (check_exists (slot).ok () && state (slot) == State::kSubmitted)
    set (slot, State::kAbandoned);
}

void SlotRing::ended (int slot, bool by_consumer)
{
  if (state (slot) == State::kAbandoned)
    set (slot, State::kFree);
  else
    set (slot, by_consumer ? State::kEnded : State::kEndedEarly);
}

Status SlotRing::check_submit (int slot) const
{
  Status st = check_exists (slot);
  if (!st.ok ())
    return st;
  /* Every submit passes here: a refusal's text is built only for a refusal. */
  switch (states_[size_t (slot)]) {
    case State::kAcquired:
      return Status::Ok ();
    case State::kSubmitted:
    case State::kAbandoned:
      return Status::Error (Code::kRuntime, "slot " + std::to_string (slot) + " still has a task in flight");
    case State::kEnded:
    case State::kEndedEarly:
      return Status::Error (Code::kRuntime, "slot " + std::to_string (slot) +
                                                "'s task ended: release () it and acquire () another");
    case State::kFree:
      break;
  }
  return Status::Error (Code::kRuntime, "slot " + std::to_string (slot) +
                                            " was not acquired: acquire () a task before submit ()");
}

Status SlotRing::check_in_flight (int slot) const
{
  Status st = check_exists (slot);
  if (st.ok () && states_[size_t (slot)] != State::kSubmitted)
    return Status::Error (Code::kRuntime,
                          "slot " + std::to_string (slot) + " has no task in flight to complete");
  return st;
}

}  // namespace dla
