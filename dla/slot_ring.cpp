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
      states_[size_t (i)] = State::kAcquired;
      *slot = i;
      next_ = (i + 1) % size ();
      return Status::Ok ();
    }
  }
  return Status::Error (Code::kRuntime,
                        "all " + std::to_string (size ()) + " slot(s) have a task acquired or in flight");
}

void SlotRing::release (int slot)
{
  if (!check_exists (slot).ok () || states_[size_t (slot)] != State::kAcquired)
    return;
  states_[size_t (slot)] = State::kFree;
  /* The turn goes back to it: past it, the next acquire would reach the slot after, which may be
   * the one whose task just ended and whose outputs are still being read. */
  if ((slot + 1) % size () == next_)
    next_ = slot;
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
      return Status::Error (Code::kRuntime, "slot " + std::to_string (slot) + " still has a task in flight");
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
