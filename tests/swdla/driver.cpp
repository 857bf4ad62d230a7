/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "driver.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <mutex>

#include "dla/driver_entry.h"

namespace swdla {
namespace {

struct Driver {
  CUresult (*get_current) (CUcontext *) = nullptr;
  CUresult (*ctx_get_device) (CUdevice *) = nullptr;
  CUresult (*primary_state) (CUdevice, unsigned *, int *) = nullptr;
  CUresult (*primary_retain) (CUcontext *, CUdevice) = nullptr;
  CUresult (*primary_release) (CUdevice) = nullptr;
  CUresult (*address_range) (CUdeviceptr *, size_t *, CUdeviceptr) = nullptr;
  bool loaded = false;
};

const Driver &driver ()
{
  static Driver d;
  static std::once_flag once;
  std::call_once (once, [] {
    using dla::driver_entry;
    d.loaded = driver_entry ("cuCtxGetCurrent", &d.get_current) &&
               driver_entry ("cuCtxGetDevice", &d.ctx_get_device) &&
               driver_entry ("cuDevicePrimaryCtxGetState", &d.primary_state) &&
               driver_entry ("cuDevicePrimaryCtxRetain", &d.primary_retain) &&
               driver_entry ("cuDevicePrimaryCtxRelease", &d.primary_release) &&
               driver_entry ("cuMemGetAddressRange", &d.address_range);
  });
  return d;
}

}  // namespace

ContextState current_context (std::string *why)
{
  int count = 0;
  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0) {
    *why = "no CUDA device or driver";
    return ContextState::kError;
  }
  const Driver &d = driver ();
  if (!d.loaded) {
    *why = "the CUDA driver lacks the context entry points";
    return ContextState::kError;
  }
  CUcontext current = nullptr;
  if (d.get_current (&current) != CUDA_SUCCESS) {
    *why = "cuCtxGetCurrent failed";
    return ContextState::kError;
  }
  if (!current)
    return ContextState::kNone;
  CUdevice dev = 0;
  unsigned flags = 0;
  int active = 0;
  if (d.ctx_get_device (&dev) != CUDA_SUCCESS || d.primary_state (dev, &flags, &active) != CUDA_SUCCESS) {
    *why = "cannot query the current context's device";
    return ContextState::kError;
  }
  if (!active) {
    *why = "the current context is not the device's primary context (the primary one is not even active)";
    return ContextState::kOther;
  }
  /* Active: retain/release only reads its handle (refcount back where it was). */
  CUcontext primary = nullptr;
  if (d.primary_retain (&primary, dev) != CUDA_SUCCESS) {
    *why = "cuDevicePrimaryCtxRetain failed";
    return ContextState::kError;
  }
  d.primary_release (dev);
  if (primary != current) {
    *why =
        "the current context is not the device's primary context (cuDLA hybrid mode works in the primary "
        "one)";
    return ContextState::kOther;
  }
  return ContextState::kPrimary;
}

bool device_range_ok (const void *ptr, size_t size, std::string *why)
{
  cudaPointerAttributes attr{};
  const cudaError_t err = cudaPointerGetAttributes (&attr, ptr);
  if (err != cudaSuccess) {
    cudaGetLastError (); /* not sticky; clear it */
    *why = std::string ("cudaPointerGetAttributes failed: ") + cudaGetErrorName (err);
    return false;
  }
  if (attr.type != cudaMemoryTypeDevice) {
    *why = attr.type == cudaMemoryTypeManaged
               ? "managed memory (swdla accepts cudaMalloc'ed device memory only)"
           : attr.type == cudaMemoryTypeHost ? "host memory (swdla accepts cudaMalloc'ed device memory only)"
                                             : "not CUDA memory";
    return false;
  }
  const Driver &d = driver ();
  CUdeviceptr base = 0;
  size_t alloc = 0;
  if (!d.loaded ||
      d.address_range (&base, &alloc, CUdeviceptr (reinterpret_cast<uintptr_t> (ptr))) != CUDA_SUCCESS) {
    *why = "cuMemGetAddressRange failed";
    return false;
  }
  const uintptr_t p = reinterpret_cast<uintptr_t> (ptr);
  if (p + size > uintptr_t (base) + alloc) {
    *why = "size " + std::to_string (size) + " runs past the end of its allocation (" +
           std::to_string (alloc) + " bytes from " + std::to_string (p - uintptr_t (base)) +
           " bytes before ptr)";
    return false;
  }
  return true;
}

}  // namespace swdla
