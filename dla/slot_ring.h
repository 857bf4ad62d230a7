/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the states of an engine's task slots on one core and the rules between them: the
 * one record of where each slot is, apart from any CUDA work so that misuse is tested on any machine.
 *   free -> acquired (acquire) -> submitted (submit) -> ended (the consumer's wait or poll saw the
 *   task end; its outputs are the caller's to read) -> free (release: the caller has read them);
 *   acquired -> free (release: the input could not be written, or the submit was refused);
 *   submitted -> ended early (another thread saw the end first: Engine::await_end) -> ended (the
 *   consumer's wait or poll collects the status it left);
 *   submitted -> abandoned (abandon: nobody will read its outputs) -> free (its end is seen).
 * A slot is handed out again only once its caller released it, so a producer on one thread never
 * takes the slot whose outputs a consumer on another is still reading (engine.h). Free slots are
 * handed out in turn, so that every slot's memory is used alike. */
#pragma once

#include <vector>

#include "dla/status.h"

namespace dla {

class SlotRing {
 public:
  enum class State { kFree, kAcquired, kSubmitted, kAbandoned, kEndedEarly, kEnded };

  explicit SlotRing (int slots = 0) : states_ (size_t (slots), State::kFree) {}
  int size () const { return int (states_.size ()); }
  State state (int slot) const { return states_[size_t (slot)]; }

  /* The next free slot in turn, now acquired; kRuntime when none is free. */
  Status acquire (int *slot);
  /* Back to free: an acquired slot whose task will not be submitted, or an ended one whose outputs
   * were read (or will not be). A slot in flight or free: no-op. */
  void release (int slot);
  /* Whether `slot` exists and was acquired, not submitted. */
  Status check_submit (int slot) const;
  void submitted (int slot) { set (slot, State::kSubmitted); }
  /* Whether `slot` exists and has a task in flight that its consumer has still to wait for. */
  Status check_in_flight (int slot) const;
  /* Nobody will read the task in flight on `slot`: free once its end is seen. No-op otherwise. */
  void abandon (int slot);
  /* The task on `slot` was seen ending, by its consumer or (`by_consumer` false) by another thread:
   * ended, ended early, or free when abandoned. */
  void ended (int slot, bool by_consumer = true);
  /* The consumer took the status of a task that ended early: ended. */
  void collected (int slot) { set (slot, State::kEnded); }
  /* Whether the task's consumer has still to see the task end (submitted, or ended early). */
  bool in_flight (int slot) const
  {
    return state (slot) == State::kSubmitted || state (slot) == State::kEndedEarly;
  }
  /* Whether a slot is free. */
  bool has_free () const;
  /* Slots not free. */
  int busy () const;
  /* Slots abandoned with their task in flight. */
  int abandoned () const { return abandoned_; }
  /* Whether `slot` exists. */
  Status check_exists (int slot) const;

 private:
  void set (int slot, State s);

  std::vector<State> states_;
  int next_ = 0;      /* where the next acquire starts looking */
  int abandoned_ = 0; /* slots in kAbandoned */
};

}  // namespace dla
