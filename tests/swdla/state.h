/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla: the library's state behind the opaque handles, and what every entry point does first.
 * One global lock, as cuDLA takes one (docs/cudla.md 4.4). */
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cuda_executor.h"
#include "dla/abi/cudla_abi.h"
#include "model.h"
#include "settings.h"

namespace swdla {

constexpr int kMaxCores = 16;
constexpr int kHandlesPerCore = 16;                  /* "16 cuDLA device handles per DLA HW instance" */
constexpr size_t kMaxRegistrations = 4096;           /* per handle; the real limit is undocumented */
constexpr uint32_t kDefaultTimeoutMs = 30000;        /* docs/cudla.md 4.5 */
constexpr uint64_t kDlaBase = 0xD1A0000000000000ull; /* DLA addresses: never valid CPU/GPU pointers */
constexpr int32_t kExternalDeviceError = 911;        /* cudaErrorExternalDevice */

/* Completion of one task on its stream (an event recorded after it). */
class TaskEvent {
 public:
  TaskEvent () = default;
  ~TaskEvent ();
  TaskEvent (const TaskEvent &) = delete;
  TaskEvent &operator= (const TaskEvent &) = delete;
  cudaError_t record (cudaStream_t stream);
  bool done () const;
  cudaEvent_t event () const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};
using TaskEventPtr = std::shared_ptr<TaskEvent>;

/* Mapped pinned host memory the GPU writes task status into (stream-ordered, read without sync). */
class StatusWord {
 public:
  StatusWord () = default;
  ~StatusWord ();
  StatusWord (const StatusWord &) = delete;
  StatusWord &operator= (const StatusWord &) = delete;
  cudaError_t allocate ();
  int32_t read () const { return *static_cast<volatile int32_t *> (host_); }
  int32_t *device () const { return device_; }

 private:
  int32_t *host_ = nullptr;
  int32_t *device_ = nullptr;
};

struct Registration {
  const void *cuda_ptr = nullptr;
  size_t size = 0;
  uint64_t dla = 0;
  TaskEventPtr last_use;
};

}  // namespace swdla

struct cudlaModule_t {
  cudlaDevHandle_t *owner = nullptr;
  swdla::Model model;
  std::unique_ptr<swdla::DeviceModel> device;
};

struct cudlaDevHandle_t {
  int core = 0;
  uint32_t timeout_ms = swdla::kDefaultTimeoutMs;
  cudlaModule_t *module = nullptr;
  bool loaded_once = false;                              /* a handle loads one loadable in its lifetime */
  std::map<uint64_t, swdla::Registration> registrations; /* by DLA address */
  std::vector<swdla::TaskEventPtr> pending; /* tasks in flight, oldest first (SWDLA_QUEUE_LIMIT) */
  std::vector<swdla::TaskEventPtr> events;  /* every event its tasks recorded, to record again */
  swdla::StatusWord status;                 /* what cudlaGetLastError returns */

  bool busy (); /* any task still in flight (prunes finished ones) */
  /* An event for the next task: one nothing refers to any more (no core, registration or pending
   * list, so its task is done), or a new one. Creating an event per task cost a submit ~1 us. */
  swdla::TaskEventPtr spare_event ();
};

namespace swdla {

struct Core {
  int handles = 0;
  uint64_t tasks = 0; /* tasks queued on this core since load (swdlaCoreTaskCount, tests only) */
  TaskEventPtr last;  /* the core's latest task: the next one waits for it (one task at a time) */
};

struct State {
  State () = default;
  ~State (); /* at exit/dlclose: leaves CUDA objects to the driver (the runtime may be gone) */
  std::mutex mutex;
  std::set<cudlaDevHandle_t *> handles;
  std::set<cudlaModule_t *> modules;
  Core cores[kMaxCores];
  uint64_t next_registration = 1;
  StatusWord poison; /* 911 once an external-device fault has completed */
  bool poison_ready = false;
  Faults faults;
  SettingsCache settings; /* what every submit reads from the environment */
  ServiceTime service;    /* each task's service time (SWDLA_SERVICE_US, jittered) */
};
State &state ();

/* Whether a fault made CUDA "unusable" (emulated: see README, external-device error). */
bool poisoned ();

/* Live handles and modules (callers hold state().mutex). */
bool known (cudlaDevHandle handle);
bool known (cudlaModule module);

class Call;
/* Success when CUDA work may be done here: not poisoned, a device, and the primary context (or
 * none) current; otherwise the refusal (cudlaErrorCuda). */
cudlaStatus cuda_usable (const Call &call);

/* The start of every entry point: the identity line once, the thread's refusal reset, and
 * SWDLA_FAIL_CALL. `injected()` non-zero: return it at once. */
class Call {
 public:
  explicit Call (const char *entry);
  int32_t injected () const { return injected_; }
  const char *entry () const { return entry_; }
  /* Records (and with SWDLA_LOG=1 prints) why the call fails, and returns the status. */
  cudlaStatus refuse (cudlaStatus status, const std::string &why) const;

 private:
  const char *entry_;
  int32_t injected_ = 0;
};

}  // namespace swdla
