/* gst-dlainfer: the device's primary CUDA context, retained for an owner's lifetime.
 *
 * cuDLA hybrid mode works in the primary context, and GStreamer's gst_cuda_context_new() makes a
 * separate one, so the element retains the primary context and wraps it (ARCHITECTURE section 4).
 * Driver entry points come through the runtime (cudaGetDriverEntryPointByVersion), so nothing links
 * libcuda.so. */
#pragma once

#include "status.h"

namespace dla {

class PrimaryContext {
 public:
  PrimaryContext () = default;
  ~PrimaryContext ();
  PrimaryContext (PrimaryContext &&other) noexcept;
  PrimaryContext &operator= (PrimaryContext &&other) noexcept;
  PrimaryContext (const PrimaryContext &) = delete;
  PrimaryContext &operator= (const PrimaryContext &) = delete;

  /* Retains device `ordinal`'s primary context (initialising CUDA); a clear status when there is
   * no driver or no such device. */
  static Status Retain (int ordinal, PrimaryContext *out);

  bool valid () const { return ctx_ != nullptr; }
  void *handle () const { return ctx_; }  /* CUcontext */
  int device () const { return device_; } /* CUdevice */
  int ordinal () const { return ordinal_; }

 private:
  void reset () noexcept;
  void *ctx_ = nullptr;
  int device_ = 0;
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

/* Number of CUDA devices, 0 with a reason (probe_cuda's) when the driver or devices are missing. */
int cuda_device_count (std::string *why);

}  // namespace dla
