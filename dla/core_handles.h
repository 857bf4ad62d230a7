/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the device handles this process holds on each DLA core, against cuDLA's limit of
 * 16 per core (docs/cudla.md), so that the 17th engine on a core is refused before cuDLA is asked,
 * with the limit and the remedy: elements running one model share one engine, and so one handle
 * per core, through model-instance-id (dla/model_registry.h).
 *
 * It counts only what reserves through it: cuDLA's own refusal (cudlaErrorOutOfResources from
 * cudlaCreateDevice, dla/device.cpp, with the same remedy) stays the authority, e.g. for handles
 * that TensorRT or another library holds in this process. Thread-safe. dla::LoadedModel reserves
 * one per core it opens (docs/architecture.md 8). */
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "dla/status.h"
#include "dla/unique_handle.h"

namespace dla {

constexpr int kHandlesPerCore = 16;

/* What to do about a core without a handle left: ends our refusal and cuDLA's. */
std::string handle_limit_remedy ();
/* What cuDLA's own refusal tells users (its handles count every cuDLA user of the process, not
 * only ours): the limit, model-instance-id, and fewer elements per core. */
std::string handle_limit_cudla ();

class CoreHandles {
  struct State {
    std::mutex mutex;
    std::map<int, int> held; /* core -> handles reserved */
  };

 public:
  /* Gives its handle back; holds the counts alive, so it may outlive its CoreHandles. */
  struct GiveBack {
    std::shared_ptr<State> state;
    int core = -1;
    void operator() (State *s) const noexcept;
  };
  using Reservation = UniqueHandle<State *, GiveBack>;

  /* The process's counts, shared by every engine. */
  static CoreHandles &Process ();

  /* One handle on `core` for `user` (an element's name, for the message); kInit when the core
   * already has kHandlesPerCore. */
  Status reserve (int core, const std::string &user, Reservation *out);
  int held (int core) const;

 private:
  std::shared_ptr<State> state_ = std::make_shared<State> ();
};

}  // namespace dla
