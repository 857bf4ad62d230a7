/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: engines shared by model-instance-id (DL Streamer's inference singleton
 * shape): a process-wide map from an instance id to a shared object held by weak references, so the
 * object lives as long as its last user and a user leaving disturbs no other.
 *
 * The first user of an id defines the instance: the factory makes the object from that user's
 * model-defining settings. A later user joins it; one whose set, model-defining settings differ
 * from the instance's is refused with a message naming both users and each differing setting
 * (only the first user needs `model`; the others may leave such settings unset). Values are
 * compared as text: the caller writes them in one form (a path as the user gave it, a core
 * number). Joins of one id wait while its object is being made (exactly one is made); other ids
 * go on. A failed make registers nothing: the next user tries with its own settings.
 *
 * Generic over the shared type, so it is tested with a fake engine; the element shares
 * dla::LoadedModel through it (gst/open_model.cpp, docs/architecture.md 8). */
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dla/status.h"
#include "dla/unique_handle.h"

namespace dla {

/* One model-defining setting of a user: its name (the property's), its value as text, and
 * whether the user set it (an unset one takes the instance's, whatever it is). */
struct DefiningSetting {
  std::string name;
  std::string value;
  bool set = false;
};

struct SharerSettings {
  std::string name;                      /* the element's name, for messages */
  std::vector<DefiningSetting> settings; /* every model-defining setting, set or not */
  /* What the definer offers the later users for what they leave unset (never compared: each user
   * may set its own), e.g. its labels file. */
  std::vector<DefiningSetting> offers;
};

/* The registry without the shared type: its objects are std::shared_ptr<void>. */
class InstanceRegistry {
  struct State;

 public:
  using Factory = std::function<Status (const SharerSettings &definer, std::shared_ptr<void> *made)>;

  /* A user's place in an instance: given back (the user leaves) when destroyed. */
  struct Leave {
    std::shared_ptr<State> state;
    std::string id;
    void operator() (uint64_t user) const noexcept;
  };
  using Membership = UniqueHandle<uint64_t, Leave>;

  InstanceRegistry ();
  /* Joins `user` to instance `id` (made by `make` when it has no live object), or refuses. */
  Status join (const std::string &id, const SharerSettings &user, const Factory &make,
               std::shared_ptr<void> *object, Membership *membership);
  /* The names of the users of `id`, in the order they joined (none: no such instance). */
  std::vector<std::string> users (const std::string &id) const;
  /* Whether `id` has a live object or one being made; *definer (when given) then gets the user who
   * defined it, with its settings and offers. */
  bool definer (const std::string &id, SharerSettings *definer = nullptr) const;

 private:
  std::shared_ptr<State> state_;
};

/* The differences between the instance's settings (its definer's) and the set ones of `user`, as
 * the refusal names them: "dla-core (dlainfer0: -1, dlainfer1: 0)"; empty when none. */
std::vector<std::string> differing_settings (const SharerSettings &definer, const SharerSettings &user);

template <typename T>
class ModelRegistry {
 public:
  using Factory = std::function<Status (const SharerSettings &definer, std::shared_ptr<T> *made)>;

  /* A user's hold on the shared object: the object, and the user's place among its users. The
   * place goes first, then the object (its destructor runs outside the registry's lock). */
  class Lease {
   public:
    T *get () const { return object_.get (); }
    const std::shared_ptr<T> &shared () const { return object_; }
    T *operator->() const { return object_.get (); }
    explicit operator bool () const { return bool (object_); }
    void reset ()
    {
      membership_.reset ();
      object_.reset ();
    }

   private:
    friend class ModelRegistry;
    std::shared_ptr<T> object_;
    InstanceRegistry::Membership membership_;
  };

  /* The process's registry of this type: every element of the process shares it. */
  static ModelRegistry &Process ()
  {
    static ModelRegistry registry;
    return registry;
  }

  Status join (const std::string &id, const SharerSettings &user, const Factory &make, Lease *out)
  {
    auto erased = [&make] (const SharerSettings &definer, std::shared_ptr<void> *made) {
      std::shared_ptr<T> typed;
      const Status st = make (definer, &typed);
      *made = std::move (typed);
      return st;
    };
    std::shared_ptr<void> object;
    Lease lease;
    const Status st = registry_.join (id, user, erased, &object, &lease.membership_);
    if (st.ok ()) {
      lease.object_ = std::static_pointer_cast<T> (object);
      *out = std::move (lease);
    }
    return st;
  }
  std::vector<std::string> users (const std::string &id) const { return registry_.users (id); }
  bool definer (const std::string &id, SharerSettings *definer = nullptr) const
  {
    return registry_.definer (id, definer);
  }

 private:
  InstanceRegistry registry_;
};

}  // namespace dla
