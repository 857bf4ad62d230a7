/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "state.h"

#include <algorithm>
#include <cstdio>

#include "driver.h"

namespace swdla {
namespace {

thread_local std::string last_refusal;
bool shutting_down = false; /* set by ~State: no more CUDA calls from destructors */

void announce ()
{
  static std::once_flag once;
  std::call_once (once, [] {
    std::fprintf (
        stderr,
        "swdla: cuDLA calls are answered by swdla, a software DLA for tests (tests/swdla); results come from "
        "software, not from a DLA\n");
  });
}

}  // namespace

State::~State ()
{
  shutting_down = true;
}

TaskEvent::~TaskEvent ()
{
  if (event_ && !shutting_down)
    cudaEventDestroy (event_);
}

cudaError_t TaskEvent::record (cudaStream_t stream)
{
  if (!event_) {
    const cudaError_t err = cudaEventCreateWithFlags (&event_, cudaEventDisableTiming);
    if (err != cudaSuccess)
      return err;
  }
  return cudaEventRecord (event_, stream);
}

bool TaskEvent::done () const
{
  return !event_ || cudaEventQuery (event_) != cudaErrorNotReady;
}

StatusWord::~StatusWord ()
{
  if (host_ && !shutting_down)
    cudaFreeHost (host_);
}

cudaError_t StatusWord::allocate ()
{
  void *p = nullptr;
  cudaError_t err = cudaHostAlloc (&p, sizeof (int32_t), cudaHostAllocMapped | cudaHostAllocPortable);
  if (err != cudaSuccess)
    return err;
  host_ = static_cast<int32_t *> (p);
  *host_ = 0;
  void *d = nullptr;
  err = cudaHostGetDevicePointer (&d, p, 0);
  device_ = static_cast<int32_t *> (d);
  return err;
}

State &state ()
{
  /* Destroyed at exit or dlclose; CUDA calls in the destructors then fail harmlessly
   * (cudaErrorCudartUnloading) if the runtime went first. */
  static State s;
  return s;
}

bool poisoned ()
{
  State &s = state ();
  return s.poison_ready && s.poison.read () != 0;
}

bool known (cudlaDevHandle handle)
{
  return handle && state ().handles.count (handle) != 0;
}
bool known (cudlaModule module)
{
  return module && state ().modules.count (module) != 0;
}

cudlaStatus cuda_usable (const Call &call)
{
  if (poisoned ())
    return call.refuse (cudlaErrorCuda,
                        "CUDA is unusable after an external-device error (911) in this process");
  std::string why;
  switch (current_context (&why)) {
    case ContextState::kPrimary:
    case ContextState::kNone:
      return cudlaSuccess;
    case ContextState::kOther:
    case ContextState::kError:
      break;
  }
  return call.refuse (cudlaErrorCuda, why);
}

Call::Call (const char *entry) : entry_ (entry)
{
  announce ();
  last_refusal.clear ();
  injected_ = state ().faults.on_call (entry);
  if (injected_)
    refuse (cudlaStatus (injected_), "injected by SWDLA_FAIL_CALL");
}

cudlaStatus Call::refuse (cudlaStatus status, const std::string &why) const
{
  last_refusal = std::string (entry_) + ": " + why + " -> " + status_text (status);
  if (log_enabled ())
    std::fprintf (stderr, "swdla: %s\n", last_refusal.c_str ());
  return status;
}

}  // namespace swdla

bool cudlaDevHandle_t::busy ()
{
  pending.erase (std::remove_if (pending.begin (), pending.end (), [] (const auto &e) { return e->done (); }),
                 pending.end ());
  return !pending.empty ();
}

swdla::TaskEventPtr cudlaDevHandle_t::spare_event ()
{
  for (const auto &e : events)
    if (e.use_count () == 1)
      return e;
  events.push_back (std::make_shared<swdla::TaskEvent> ());
  return events.back ();
}

extern "C" {

__attribute__ ((visibility ("default"))) const char *swdlaBackendName (void)
{
  return "swdla";
}

__attribute__ ((visibility ("default"))) int swdlaExternalDeviceError (void)
{
  return swdla::poisoned () ? swdla::kExternalDeviceError : 0;
}

__attribute__ ((visibility ("default"))) const char *swdlaLastRefusal (void)
{
  return swdla::last_refusal.c_str ();
}

/* Tasks queued on `core` since the library was loaded (-1 for no such core): lets tests prove
 * which core a setting reached, since every core computes the same answer. */
__attribute__ ((visibility ("default"))) int64_t swdlaCoreTaskCount (int core)
{
  if (core < 0 || core >= swdla::kMaxCores)
    return -1;
  std::lock_guard<std::mutex> lock (swdla::state ().mutex);
  return int64_t (swdla::state ().cores[core].tasks);
}

/* Device handles open on `core` now (-1 for no such core): lets tests prove that elements sharing
 * a model-instance-id hold one handle per core, not one each. */
__attribute__ ((visibility ("default"))) int swdlaCoreHandleCount (int core)
{
  if (core < 0 || core >= swdla::kMaxCores)
    return -1;
  std::lock_guard<std::mutex> lock (swdla::state ().mutex);
  return swdla::state ().cores[core].handles;
}

/* Loadables loaded on `core` now (modules whose handle is on it; -1 for no such core). */
__attribute__ ((visibility ("default"))) int swdlaCoreModuleCount (int core)
{
  if (core < 0 || core >= swdla::kMaxCores)
    return -1;
  std::lock_guard<std::mutex> lock (swdla::state ().mutex);
  int n = 0;
  for (const cudlaModule_t *m : swdla::state ().modules)
    n += m->owner && m->owner->core == core ? 1 : 0;
  return n;
}
}
