/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/fatal.h"

#include <atomic>
#include <mutex>

#include "dla/abi/cudla_abi.h"
#include "dla/status_names.h"

namespace dla {
namespace {

std::atomic<bool> poisoned{false};
std::mutex reason_mutex;
std::string reason;

}  // namespace

void poison_process (const std::string &why)
{
  std::lock_guard<std::mutex> lock (reason_mutex);
  if (!poisoned.load ())
    reason = why;
  poisoned = true;
}

bool process_poisoned ()
{
  return poisoned.load (std::memory_order_relaxed);
}

std::string poison_reason ()
{
  std::lock_guard<std::mutex> lock (reason_mutex);
  return reason;
}

Status cuda_failure (const std::string &call, int cuda_error, Code code)
{
  const std::string message = cuda_call_failed (call.c_str (), cuda_error);
  if (is_process_fatal (cuda_error)) {
    poison_process (message);
    return Status::Error (Code::kFatal, message);
  }
  return Status::Error (code, message);
}

TaskEnd classify_task_end (int cuda_error, int cudla_status, int emulated_external)
{
  if (cuda_error != 0)
    return is_process_fatal (cuda_error) ? TaskEnd::kFatal : TaskEnd::kFailed;
  if (cudla_status == cudlaSuccess)
    return TaskEnd::kDone;
  if (emulated_external != 0)
    return is_process_fatal (emulated_external) ? TaskEnd::kFatal : TaskEnd::kFailed;
  return cudla_status == cudlaErrorDlaErrEngineTimeout ? TaskEnd::kTimedOut : TaskEnd::kFailed;
}

}  // namespace dla
