/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the states of an engine's task slots on one core and the rules between them, apart
 * from any CUDA work so that misuse is tested on any machine:
 *   free -> acquired (acquire) -> submitted (submit) -> ended (wait or poll saw the task end; its
 *   outputs are the caller's to read) -> free (release: the caller has read them);
 *   acquired -> free (release: the input could not be written, or the submit was refused).
 * A slot is handed out again only once its caller released it, so a producer on one thread never
 * takes the slot whose outputs a consumer on another is still reading (engine.h). Free slots are
 * handed out in turn, so that every slot's memory is used alike. */
#pragma once

#include <vector>

#include "dla/status.h"

namespace dla {

class SlotRing {
 public:
  enum class State { kFree, kAcquired, kSubmitted, kEnded };

  explicit SlotRing (int slots = 0) : states_ (size_t (slots), State::kFree) {}
  int size () const { return int (states_.size ()); }
  State state (int slot) const { return states_[size_t (slot)]; }

  /* The next free slot in turn, now acquired; kRuntime when none is free. */
  Status acquire (int *slot);
  /* Back to free: an acquired slot whose task will not be submitted, or an ended one whose outputs
   * were read. A slot in flight (the DLA may still run its task) or free: no-op. */
  void release (int slot);
  /* Whether `slot` exists and was acquired, not submitted. */
  Status check_submit (int slot) const;
  void submitted (int slot) { states_[size_t (slot)] = State::kSubmitted; }
  /* Whether `slot` exists and has a task in flight (for wait and poll). */
  Status check_in_flight (int slot) const;
  /* The task ended: its outputs wait for the caller's release (). */
  void ended (int slot) { states_[size_t (slot)] = State::kEnded; }
  /* Whether a slot is free. */
  bool has_free () const;
  /* Slots not free. */
  int busy () const;
  /* Whether `slot` exists. */
  Status check_exists (int slot) const;

 private:
  std::vector<State> states_;
  int next_ = 0; /* where the next acquire starts looking */
};

}  // namespace dla
