/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/core_handles.h"

namespace dla {

std::string handle_limit_remedy ()
{
  return "at most " + std::to_string (kHandlesPerCore) +
         " device handles per DLA core; elements that run the same model can share one engine (one "
         "handle per core) by setting the same model-instance-id";
}

std::string handle_limit_cudla ()
{
  return handle_limit_remedy () +
         " (other cuDLA users in the process count too); or run fewer elements on this core, or put some "
         "on the other core (dla-core)";
}

void CoreHandles::GiveBack::operator() (State *s) const noexcept
{
  std::lock_guard<std::mutex> lock (s->mutex);
  if (--s->held[core] <= 0)
    s->held.erase (core);
}

CoreHandles &CoreHandles::Process ()
{
  static CoreHandles handles;
  return handles;
}

Status CoreHandles::reserve (int core, const std::string &user, Reservation *out)
{
  std::lock_guard<std::mutex> lock (state_->mutex);
  int &held = state_->held[core];
  if (held >= kHandlesPerCore)
    return Status::Error (Code::kInit, user + ": DLA core " + std::to_string (core) +
                                           " has no device handle left (this process holds " +
                                           std::to_string (held) + "): " + handle_limit_remedy ());
  ++held;
  *out = Reservation (state_.get (), GiveBack{state_, core});
  return Status::Ok ();
}

int CoreHandles::held (int core) const
{
  std::lock_guard<std::mutex> lock (state_->mutex);
  auto it = state_->held.find (core);
  return it == state_->held.end () ? 0 : it->second;
}

}  // namespace dla
