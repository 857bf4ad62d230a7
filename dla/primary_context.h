/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the device's primary CUDA context, retained for an owner's lifetime.
 *
 * cuDLA hybrid mode works in the primary context, and GStreamer's gst_cuda_context_new() makes a
 * separate one, so the element retains the primary context and wraps it (docs/architecture.md
 * section 4).
 * Driver entry points come through the runtime (cudaGetDriverEntryPointByVersion), so nothing links
 * libcuda.so. */
#pragma once

#include <string>

#include "dla/status.h"
#include "dla/unique_handle.h"

namespace dla {

class PrimaryContext {
 public:
  /* Retains device `ordinal`'s primary context (initialising CUDA); a clear status when there is
   * no driver or no such device. */
  static Status Retain (int ordinal, PrimaryContext *out);

  bool valid () const { return bool (ctx_); }
  void *handle () const { return ctx_.get (); }           /* CUcontext */
  int device () const { return ctx_.releaser ().device; } /* CUdevice */
  int ordinal () const { return ctx_ ? ordinal_ : -1; }

  /* cuDevicePrimaryCtxRelease of the device the context was retained on. */
  struct Release {
    int device = 0;
    void operator() (void *ctx) const noexcept;
  };

 private:
  UniqueHandle<void *, Release> ctx_;
  int ordinal_ = -1;
};

/* Makes a context current on this thread for a scope, and restores the previous one. */
class ScopedContext {
 public:
  explicit ScopedContext (void *ctx);
  ~ScopedContext ();
  ScopedContext (const ScopedContext &) = delete;
  ScopedContext &operator= (const ScopedContext &) = delete;

 private:
  void *previous_ = nullptr;
  bool pushed_ = false;
};

/* Whether CUDA can be used here, and if not, which of the causes a user can act on. */
enum class CudaState { kAvailable, kNoDriver, kDriverTooOld, kNoDevice, kHidden, kError };
struct CudaProbe {
  CudaState state = CudaState::kError;
  int count = 0;
  std::string why; /* the cause and its fix, when not available */
};
CudaProbe probe_cuda ();
/* probe_cuda's reading of what it found, apart so that every outcome is tested without a GPU:
 * cudaGetDeviceCount's status `err` (a cudaError_t) and `count`, CUDA_VISIBLE_DEVICES (nullptr:
 * unset), the installed driver's CUDA version ("": libcuda.so.1 cannot be loaded; asked only for
 * cudaErrorInsufficientDriver) and the runtime's (cudaRuntimeGetVersion). */
CudaProbe classify_cuda_probe (int err, int count, const char *visible, const std::string &driver_version,
                               int runtime_version);

/* What a GPU test program does after the probe: run; skip (exit 77) where CUDA is absent (no
 * driver, no device) and no GPU is required; fail otherwise: a broken setup (driver too old,
 * devices hidden, any other error) must never read as "no GPU", or the whole GPU suite skips. */
enum class GpuGate { kRun, kSkip, kFail };
GpuGate gpu_gate (CudaState state, bool gpu_required);

/* Number of CUDA devices, 0 with a reason (probe_cuda's) when the driver or devices are missing. */
int cuda_device_count (std::string *why);

}  // namespace dla
