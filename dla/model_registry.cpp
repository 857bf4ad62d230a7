/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/model_registry.h"

#include <condition_variable>
#include <map>
#include <mutex>

namespace dla {

namespace {

const DefiningSetting *find (const SharerSettings &s, const std::string &name)
{
  for (const DefiningSetting &d : s.settings)
    if (d.name == name)
      return &d;
  return nullptr;
}

std::string joined (const std::vector<std::string> &parts, const char *separator)
{
  std::string out;
  for (const std::string &p : parts)
    out += (out.empty () ? "" : separator) + p;
  return out;
}

}  // namespace

std::vector<std::string> differing_settings (const SharerSettings &definer, const SharerSettings &user)
{
  std::vector<std::string> out;
  for (const DefiningSetting &mine : user.settings) {
    if (!mine.set)
      continue;
    const DefiningSetting *theirs = find (definer, mine.name);
    if (theirs && theirs->value == mine.value)
      continue;
    const std::string their_value = !theirs ? "(none)" : theirs->value + (theirs->set ? "" : " (default)");
    out.push_back (mine.name + " (" + definer.name + ": " + their_value + ", " + user.name + ": " +
                   mine.value + ")");
  }
  return out;
}

struct InstanceRegistry::State {
  struct Entry {
    std::weak_ptr<void> object;
    SharerSettings definer;
    std::map<uint64_t, std::string> users; /* by join order (tokens grow) */
    bool making = false;
  };
  std::mutex mutex;
  std::condition_variable made; /* an entry stopped making (made, or failed and gone) */
  std::map<std::string, Entry> entries;
  uint64_t next_user = 1;
};

InstanceRegistry::InstanceRegistry () : state_ (std::make_shared<State> ()) {}

void InstanceRegistry::Leave::operator() (uint64_t user) const noexcept
{
  std::lock_guard<std::mutex> lock (state->mutex);
  auto it = state->entries.find (id);
  /* The user may belong to an instance already replaced (its object expired): then nothing. */
  if (it == state->entries.end () || it->second.users.erase (user) == 0)
    return;
  if (it->second.users.empty () && !it->second.making)
    state->entries.erase (it);
}

namespace {

Status refusal (const std::string &id, const SharerSettings &definer, const SharerSettings &user,
                const std::vector<std::string> &differ)
{
  return Status::Error (Code::kSettings, user.name + " cannot share model-instance-id '" + id + "' with " +
                                             definer.name + ", which defined it: " + joined (differ, ", ") +
                                             " differ" + (differ.size () == 1 ? "s" : "") +
                                             "; leave them unset on " + user.name + " or set " +
                                             definer.name + "'s values");
}

}  // namespace

Status InstanceRegistry::join (const std::string &id, const SharerSettings &user, const Factory &make,
                               std::shared_ptr<void> *object, Membership *membership)
{
  if (id.empty ())
    return Status::Error (Code::kSettings, user.name + ": an empty model-instance-id shares nothing");
  std::shared_ptr<void> alive; /* before the lock: a last reference dropped here goes after it */
  std::unique_lock<std::mutex> lock (state_->mutex);
  state_->made.wait (lock, [&] () {
    auto it = state_->entries.find (id);
    return it == state_->entries.end () || !it->second.making;
  });
  State::Entry *e = &state_->entries[id];
  alive = e->object.lock ();
  if (!alive) { /* new, or its object expired: this user defines it */
    *e = State::Entry{};
    e->definer = user;
    e->making = true;
    lock.unlock (); /* making may take long (a model loaded): other ids go on */
    Status st = make (user, &alive);
    lock.lock ();
    e = &state_->entries[id]; /* a making entry is never erased by others */
    e->making = false;
    state_->made.notify_all ();
    if (st.ok () && !alive)
      st = Status::Error (Code::kInit, "model-instance-id '" + id + "': nothing was made for " + user.name);
    if (!st.ok ()) {
      state_->entries.erase (id);
      return st;
    }
    e->object = alive;
  } else {
    const std::vector<std::string> differ = differing_settings (e->definer, user);
    if (!differ.empty ())
      return refusal (id, e->definer, user, differ);
  }
  const uint64_t token = state_->next_user++;
  e->users[token] = user.name;
  lock.unlock (); /* what the outputs held before may leave this registry */
  *object = std::move (alive);
  *membership = Membership (token, Leave{state_, id});
  return Status::Ok ();
}

std::vector<std::string> InstanceRegistry::users (const std::string &id) const
{
  std::vector<std::string> out;
  std::lock_guard<std::mutex> lock (state_->mutex);
  auto it = state_->entries.find (id);
  if (it != state_->entries.end ())
    for (const auto &u : it->second.users)
      out.push_back (u.second);
  return out;
}

bool InstanceRegistry::definer (const std::string &id, SharerSettings *definer) const
{
  std::lock_guard<std::mutex> lock (state_->mutex);
  auto it = state_->entries.find (id);
  if (it == state_->entries.end () || (!it->second.making && it->second.object.expired ()))
    return false;
  if (definer)
    *definer = it->second.definer;
  return true;
}

}  // namespace dla
