/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Test-only queries of the software DLA the process has loaded (DLAINFER_CUDLA_LIBRARY). */
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>

namespace dlainfer_test {

/* Tasks swdla queued on `core` so far; -1 when swdla is not loaded in this process or lacks the
 * query. The library is looked up, never loaded: the element's own dlopen is the one counted. */
inline int64_t swdla_core_tasks (int core)
{
  const char *path = std::getenv ("DLAINFER_CUDLA_LIBRARY");
  void *handle = path ? dlopen (path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  if (!handle)
    return -1;
  using Fn = int64_t (*) (int);
  const auto fn = reinterpret_cast<Fn> (dlsym (handle, "swdlaCoreTaskCount"));
  const int64_t n = fn ? fn (core) : -1;
  dlclose (handle);
  return n;
}

/* A baseline for swdla_core_tasks taken before anything in the process has loaded swdla (a pipeline
 * that has not started yet): swdla counts from its load, so "not loaded" is 0 tasks so far. */
inline int64_t swdla_core_tasks_before_load (int core)
{
  const int64_t n = swdla_core_tasks (core);
  return n < 0 ? 0 : n;
}

/* Device handles (loaded modules) swdla has open on `core` now; -1 when swdla is not loaded in this
 * process or lacks the query. */
inline int swdla_core_count (const char *query, int core)
{
  const char *path = std::getenv ("DLAINFER_CUDLA_LIBRARY");
  void *handle = path ? dlopen (path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  if (!handle)
    return -1;
  using Fn = int (*) (int);
  const auto fn = reinterpret_cast<Fn> (dlsym (handle, query));
  const int n = fn ? fn (core) : -1;
  dlclose (handle);
  return n;
}
inline int swdla_core_handles (int core)
{
  return swdla_core_count ("swdlaCoreHandleCount", core);
}
inline int swdla_core_modules (int core)
{
  return swdla_core_count ("swdlaCoreModuleCount", core);
}

}  // namespace dlainfer_test
