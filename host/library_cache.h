/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a library loaded at run time (libcudla.so.1, libnvbufsurface.so), opened once per
 * process and shared. Its path is the environment variable's when that is set and not empty, else
 * the default; a new path opens again, and holders of the old library keep it open. A failure is
 * not kept: the next call tries again. Thread-safe. No GStreamer, no CUDA. */
#pragma once

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "host/status.h"

namespace host {

template <typename Lib>
class LibraryCache {
 public:
  /* `open (path, from_env, &lib)` opens the library (its own Open); `Lib::path ()` names it. */
  template <typename OpenFn>
  Status load (const char *env_var, const char *default_path, OpenFn open, std::shared_ptr<const Lib> *out)
  {
    const char *env = std::getenv (env_var);
    const bool from_env = env && *env;
    const std::string path = from_env ? env : default_path;
    std::lock_guard<std::mutex> lock (mutex_);
    if (!cached_ || cached_->path () != path) {
      std::shared_ptr<Lib> lib;
      const Status st = open (path, from_env, &lib);
      if (!st.ok ())
        return st;
      cached_ = std::move (lib);
    }
    *out = cached_;
    return Status::Ok ();
  }

  /* Forgets the library (tests switch files); its holders keep it open. */
  void reset ()
  {
    std::lock_guard<std::mutex> lock (mutex_);
    cached_.reset ();
  }

 private:
  std::mutex mutex_;
  std::shared_ptr<const Lib> cached_;
};

}  // namespace host
