/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the one rule for the CUDA error that ends CUDA in the whole process, and the one
 * process-wide flag that remembers it.
 *
 * A DLA fault surfaces in CUDA as cudaErrorExternalDevice (911); CUDA documents it as leaving the
 * process inconsistent: every later CUDA call fails and only a new process can use CUDA again
 * (docs/cudla.md 4.5). Whoever sees a CUDA error asks is_process_fatal(); whoever sees a fatal
 * one poisons the process; every engine and element refuses work once it is poisoned. */
#pragma once

#include <string>

#include "dla/status.h"

namespace dla {

/* cudaErrorExternalDevice: a DLA fault seen by CUDA. */
constexpr int kCudaErrorExternalDevice = 911;

/* The one rule: whether a CUDA status leaves CUDA unusable in this process. */
constexpr bool is_process_fatal (int cuda_error)
{
  return cuda_error == kCudaErrorExternalDevice;
}

/* How a DLA task that ended is reported, from CUDA's status of its end event (`cuda_error`),
 * cudlaGetLastError's after it (`cudla_status`, read only when CUDA saw no fault) and a test backend's
 * emulated external-device error (0: none; swdla's, asked only when cuDLA reports a failure):
 * kFatal only for a process-fatal CUDA status (911), seen or emulated; kTimedOut for cuDLA's task
 * timeout (a hung task: the engine goes on, it is not the 911); kFailed for any other failure. */
enum class TaskEnd { kDone, kTimedOut, kFailed, kFatal };
TaskEnd classify_task_end (int cuda_error, int cudla_status, int emulated_external);

/* Marks CUDA unusable in this process; the first description is kept. Thread-safe. */
void poison_process (const std::string &why);
bool process_poisoned ();
/* The first fatal error's description ("" while healthy). */
std::string poison_reason ();

/* A failed CUDA call as a status: "<call> failed: <name> (<number>)". A process-fatal error poisons
 * the process and is kFatal; any other gets `code`. */
Status cuda_failure (const std::string &call, int cuda_error, Code code = Code::kRuntime);

}  // namespace dla
