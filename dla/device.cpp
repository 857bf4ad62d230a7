/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/device.h"

#include <cuda_runtime_api.h>

#include "dla/core_handles.h"
#include "dla/status_names.h"

namespace dla {

namespace {

/* The cores cuDLA reports, and `core` among them. */
Status count_cores (const Library &lib, int core, uint64_t *count)
{
  const cudlaStatus s = lib.api ().DeviceGetCount (count);
  if (s != cudlaSuccess)
    return Status::Error (Code::kInit,
                          cudla_call_failed ("cudlaDeviceGetCount", s) + lib.refusal_detail () +
                              (s == cudlaErrorIncompatibleDlaSWVersion
                                   ? ": the DLA runtime does not match this cuDLA (mixed JetPack?)"
                                   : ""));
  if (*count == 0)
    return Status::Error (Code::kNotFound, "cudlaDeviceGetCount reports no DLA core on this system");
  if (uint64_t (core) >= *count)
    return Status::Error (Code::kSettings, "DLA core " + std::to_string (core) +
                                               " does not exist: cudlaDeviceGetCount " + "reports " +
                                               std::to_string (*count) + " core(s), use 0.." +
                                               std::to_string (*count - 1));
  return Status::Ok ();
}

Status create_handle (const Library &lib, int core, cudlaDevHandle *handle)
{
  const cudlaStatus s = lib.api ().CreateDevice (uint64_t (core), handle, CUDLA_CUDA_DLA);
  if (s == cudlaSuccess && *handle)
    return Status::Ok ();
  return create_device_error (s, core, lib.refusal_detail ());
}

/* In hybrid mode the current CUDA device decides which GPU a handle belongs to (docs/cudla.md
 * 4.1). The calling thread (the application's, at start) gets its own device back afterwards. */
struct DeviceRestore {
  int previous = -1;
  bool had = cudaGetDevice (&previous) == cudaSuccess;
  int wanted = -1;
  ~DeviceRestore ()
  {
    if (had && previous != wanted)
      cudaSetDevice (previous);
  }
};

}  // namespace

Status create_device_error (cudlaStatus s, int core, const std::string &refusal_detail)
{
  return Status::Error (
      Code::kInit,
      cudla_call_failed ("cudlaCreateDevice", s) + refusal_detail + " (DLA core " + std::to_string (core) +
          ", hybrid mode)" +
          (s == cudlaErrorUnsupportedOperation ? ": hybrid mode needs the Jetson's integrated GPU" : "") +
          (s == cudlaErrorOutOfResources ? ": " + handle_limit_cudla () : ""));
}

Status Device::Open (std::shared_ptr<const Library> lib, int cuda_device, int core,
                     std::shared_ptr<const Device> *out)
{
  if (!lib)
    return Status::Error (Code::kInit, "no cuDLA library loaded");
  if (core < 0)
    return Status::Error (Code::kSettings,
                          "DLA core " + std::to_string (core) + " is invalid: cores count from 0");
  PrimaryContext ctx;
  Status st = PrimaryContext::Retain (cuda_device, &ctx);
  if (!st.ok ())
    return st;
  /* Declared before the scope, so the device comes back once the context pushed below is popped. */
  DeviceRestore restore;
  restore.wanted = cuda_device;
  ScopedContext scope (ctx.handle ());
  const cudaError_t set = cudaSetDevice (cuda_device);
  if (set != cudaSuccess)
    return Status::Error (Code::kInit, cuda_call_failed ("cudaSetDevice", set));
  uint64_t count = 0;
  cudlaDevHandle handle = nullptr;
  if (!(st = count_cores (*lib, core, &count)).ok () || !(st = create_handle (*lib, core, &handle)).ok ())
    return st;
  std::shared_ptr<Device> d (new Device ());
  d->handle_ = UniqueHandle<cudlaDevHandle, Release> (handle, Release{lib, ctx.handle ()});
  d->lib_ = std::move (lib);
  d->ctx_ = std::move (ctx);
  d->core_ = core;
  d->core_count_ = count;
  *out = std::move (d);
  return Status::Ok ();
}

Status Device::set_task_timeout (uint32_t ms) const
{
  if (ms < kMinTaskTimeoutMs || ms > kMaxTaskTimeoutMs)
    return Status::Error (Code::kSettings, "task timeout " + std::to_string (ms) +
                                               " ms is out of range: cuDLA takes " +
                                               std::to_string (kMinTaskTimeoutMs) + ".." +
                                               std::to_string (kMaxTaskTimeoutMs) + " ms");
  if (!handle_ || !api ().SetTaskTimeoutInMs)
    return Status::Ok ();
  ScopedContext scope (ctx_.handle ());
  const cudlaStatus s = api ().SetTaskTimeoutInMs (handle (), ms);
  if (s != cudlaSuccess)
    return Status::Error (Code::kSettings, cudla_call_failed ("cudlaSetTaskTimeoutInMs", s) +
                                               lib_->refusal_detail () + " for " + std::to_string (ms) +
                                               " ms");
  return Status::Ok ();
}

cudlaStatus Device::last_error () const
{
  if (!handle_)
    return cudlaErrorInvalidDevice;
  ScopedContext scope (ctx_.handle ());
  return api ().GetLastError (handle ());
}

void Device::Release::operator() (cudlaDevHandle handle) const noexcept
{
  ScopedContext scope (ctx);
  lib->api ().DestroyDevice (handle);
}

}  // namespace dla
