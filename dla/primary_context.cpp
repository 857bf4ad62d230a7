/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/primary_context.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "dla/driver_entry.h"
#include "dla/status_names.h"

namespace dla {
namespace {

struct DriverApi {
  CUresult (*device_get) (CUdevice *, int) = nullptr;
  CUresult (*retain) (CUcontext *, CUdevice) = nullptr;
  CUresult (*release) (CUdevice) = nullptr;
  CUresult (*push) (CUcontext) = nullptr;
  CUresult (*pop) (CUcontext *) = nullptr;
  CUresult (*get_current) (CUcontext *) = nullptr;
  bool loaded = false;
};

const DriverApi &driver ()
{
  static DriverApi api;
  static std::once_flag once;
  std::call_once (once, [] {
    api.loaded = driver_entry ("cuDeviceGet", &api.device_get) &&
                 driver_entry ("cuDevicePrimaryCtxRetain", &api.retain) &&
                 driver_entry ("cuDevicePrimaryCtxRelease", &api.release) &&
                 driver_entry ("cuCtxPushCurrent", &api.push) && driver_entry ("cuCtxPopCurrent", &api.pop) &&
                 driver_entry ("cuCtxGetCurrent", &api.get_current);
  });
  return api;
}

}  // namespace

namespace {

/* The driver's CUDA version ("12.4"), or "" when libcuda.so.1 cannot be loaded: tells "no driver
 * installed" from "driver older than the runtime", which the runtime reports alike. */
std::string installed_driver_version ()
{
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return "";
  int version = 0;
  using GetVersion = CUresult (*) (int *);
  const auto get = reinterpret_cast<GetVersion> (dlsym (lib, "cuDriverGetVersion"));
  const bool known = get && get (&version) == CUDA_SUCCESS;
  dlclose (lib);
  return known ? std::to_string (version / 1000) + "." + std::to_string (version % 1000 / 10) : "unknown";
}

}  // namespace

CudaProbe probe_cuda ()
{
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount (&count);
  int runtime = 0;
  cudaRuntimeGetVersion (&runtime);
  return classify_cuda_probe (err, count, std::getenv ("CUDA_VISIBLE_DEVICES"),
                              err == cudaErrorInsufficientDriver ? installed_driver_version () : "", runtime);
}

CudaProbe classify_cuda_probe (int err, int count, const char *visible, const std::string &driver,
                               int runtime)
{
  CudaProbe p;
  if (err == cudaSuccess && count > 0) {
    p.state = CudaState::kAvailable;
    p.count = count;
    return p;
  }
  if (err == cudaSuccess || err == cudaErrorNoDevice) {
    if (visible) {
      p.state = CudaState::kHidden;
      p.why = std::string ("no CUDA device visible: CUDA_VISIBLE_DEVICES=\"") + visible +
              "\" hides them (unset it, or name a device that exists)";
    } else {
      p.state = CudaState::kNoDevice;
      p.why = "no CUDA device present (the NVIDIA driver is installed but reports no GPU)";
    }
    return p;
  }
  if (err == cudaErrorInsufficientDriver) {
    const std::string needed = std::to_string (runtime / 1000) + "." + std::to_string (runtime % 1000 / 10);
    if (driver.empty ()) {
      p.state = CudaState::kNoDriver;
      p.why =
          "no CUDA driver: the NVIDIA driver is not installed (libcuda.so.1 cannot be loaded); install it "
          "(JetPack on a Jetson)";
    } else {
      p.state = CudaState::kDriverTooOld;
      p.why = "CUDA driver too old: the NVIDIA driver supports CUDA " + driver +
              " but this build needs CUDA " + needed + " (cudaErrorInsufficientDriver): update the driver";
    }
    return p;
  }
  p.state = CudaState::kError;
  p.why = cuda_call_failed ("cudaGetDeviceCount", err);
  return p;
}

GpuGate gpu_gate (CudaState state, bool gpu_required)
{
  if (state == CudaState::kAvailable)
    return GpuGate::kRun;
  const bool absent = state == CudaState::kNoDriver || state == CudaState::kNoDevice;
  return absent && !gpu_required ? GpuGate::kSkip : GpuGate::kFail;
}

int cuda_device_count (std::string *why)
{
  const CudaProbe p = probe_cuda ();
  if (why)
    *why = p.why;
  return p.count;
}

Status PrimaryContext::Retain (int ordinal, PrimaryContext *out)
{
  std::string why;
  const int count = cuda_device_count (&why);
  if (count == 0)
    return Status::Error (Code::kNotFound, why);
  if (ordinal < 0 || ordinal >= count)
    return Status::Error (Code::kSettings, "CUDA device " + std::to_string (ordinal) +
                                               " does not exist: " + std::to_string (count) +
                                               " device(s) present, use 0.." + std::to_string (count - 1));
  const DriverApi &api = driver ();
  if (!api.loaded)
    return Status::Error (Code::kInit,
                          "the CUDA driver lacks the primary-context entry points (driver too old?)");
  /* cudaFree(0) initialises the runtime and the primary context, as NVIDIA's cuDLA samples do; the
   * calling thread (often the application's) gets its own current device back afterwards. */
  int previous = -1;
  const bool had_device = cudaGetDevice (&previous) == cudaSuccess;
  cudaError_t err = cudaSetDevice (ordinal);
  if (err == cudaSuccess)
    err = cudaFree (nullptr);
  if (had_device && previous != ordinal)
    cudaSetDevice (previous);
  if (err != cudaSuccess)
    return Status::Error (Code::kInit, cuda_call_failed ("cudaSetDevice/cudaFree", err));
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  if (api.device_get (&dev, ordinal) != CUDA_SUCCESS || api.retain (&ctx, dev) != CUDA_SUCCESS || !ctx)
    return Status::Error (Code::kInit,
                          "cuDevicePrimaryCtxRetain failed for CUDA device " + std::to_string (ordinal));
  out->ctx_ = UniqueHandle<void *, PrimaryContext::Release> (ctx, PrimaryContext::Release{dev});
  out->ordinal_ = ordinal;
  return Status::Ok ();
}

void PrimaryContext::Release::operator() (void *) const noexcept
{
  driver ().release (device);
}

ScopedContext::ScopedContext (void *ctx)
{
  const DriverApi &api = driver ();
  CUcontext current = nullptr;
  if (!ctx || !api.loaded || api.get_current (&current) != CUDA_SUCCESS)
    return;
  if (current == static_cast<CUcontext> (ctx))
    return; /* Same context, nothing to do */
  pushed_ = api.push (static_cast<CUcontext> (ctx)) == CUDA_SUCCESS;
}

ScopedContext::~ScopedContext ()
{
  if (pushed_) {
    CUcontext popped = nullptr;
    driver ().pop (&popped);
  }
}

}  // namespace dla
