/* gst-dlainfer: the states of an engine's task slots and the rules between them, apart from any
 * CUDA work so that misuse is tested on any machine:
 *   free -> acquired (acquire) -> submitted (submit) -> free (the task ended: wait or poll saw
 *   it); acquired -> free (release: the input could not be written, or the submit was refused).
 * Free slots are handed out in turn, from the one after the last acquired: a slot whose task just
 * ended comes back only when no other is free, so its outputs can still be read while a producer
 * on another thread acquires the next (engine.h). */
#pragma once

#include <vector>

#include "dla/status.h"

namespace dla {

class SlotRing {
 public:
  enum class State { kFree, kAcquired, kSubmitted };

  explicit SlotRing (int slots = 0) : states_ (size_t (slots), State::kFree) {}
  int size () const { return int (states_.size ()); }
  State state (int slot) const { return states_[size_t (slot)]; }

  /* The next free slot in turn, now acquired; kRuntime when every slot is acquired or in flight. */
  Status acquire (int *slot);
  /* Back to free: an acquired slot whose task will not be submitted (anything else: no-op). */
  void release (int slot);
  /* Whether `slot` exists and was acquired, not submitted. */
  Status check_submit (int slot) const;
  void submitted (int slot) { states_[size_t (slot)] = State::kSubmitted; }
  /* Whether `slot` exists and has a task in flight (for wait and poll). */
  Status check_in_flight (int slot) const;
  /* The task ended: the slot is free again. */
  void ended (int slot) { states_[size_t (slot)] = State::kFree; }
  /* Slots acquired or in flight. */
  int busy () const;
  /* Whether `slot` exists. */
  Status check_exists (int slot) const;

 private:
  std::vector<State> states_;
  int next_ = 0; /* where the next acquire starts looking */
};

}  // namespace dla
