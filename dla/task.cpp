/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/task.h"

#include <utility>

#include "dla/engine.h"

namespace dla {

Task &Task::operator= (Task &&other) noexcept
{
  if (this != &other) {
    give_back ();
    engine_ = std::exchange (other.engine_, nullptr);
    slot_ = std::exchange (other.slot_, -1);
    input_ = std::exchange (other.input_, nullptr);
    timed_ = std::exchange (other.timed_, false);
  }
  return *this;
}

Status Task::empty_error (const char *call) const
{
  return Status::Error (Code::kRuntime, std::string ("dla::Task::") + call +
                                            ": the handle holds no task (acquire one from the engine)");
}

Status Task::submit (void *input_ready)
{
  return engine_ ? engine_->submit (slot_, input_ready) : empty_error ("submit");
}

Status Task::wait (Deadline deadline)
{
  return engine_ ? engine_->wait (slot_, deadline) : empty_error ("wait");
}

Status Task::poll (bool *done)
{
  *done = false;
  return engine_ ? engine_->poll (slot_, done) : empty_error ("poll");
}

bool Task::in_flight () const
{
  return engine_ && engine_->in_flight (slot_);
}

int Task::tasks_ahead () const
{
  return engine_ ? engine_->tasks_ahead (slot_) : -1;
}

int Task::dla_core () const
{
  return engine_ ? engine_->core_of (slot_) : -1;
}

const void *Task::host_output (int index) const
{
  return engine_ ? engine_->host_output (slot_, index) : nullptr;
}

SlotTimings Task::timings () const
{
  return engine_ ? engine_->timings (slot_) : SlotTimings ();
}

void Task::give_back () noexcept
{
  if (engine_)
    engine_->give_back (slot_);
  engine_ = nullptr;
  slot_ = -1;
  input_ = nullptr;
  timed_ = false;
}

}  // namespace dla
