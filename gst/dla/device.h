/* gst-dlainfer: one cuDLA device handle in hybrid mode (CUDLA_CUDA_DLA) on one DLA core.
 *
 * Holds the CUDA device's primary context for its whole life: cuDLA hybrid mode allocates in it,
 * and every handle must be destroyed before it is released (reference section 4.1). Every cuDLA
 * call runs with that context current. Move-only; destroying it destroys the handle first. */
#pragma once

#include <memory>

#include "cudla_abi.h"
#include "loader.h"
#include "primary_context.h"
#include "status.h"

namespace dla {

class Device {
 public:
  Device () = default;
  ~Device () { reset (); }
  Device (Device &&o) noexcept;
  Device &operator= (Device &&o) noexcept;
  Device (const Device &) = delete;
  Device &operator= (const Device &) = delete;

  /* Checks `core` against cudlaDeviceGetCount (the message names the count) and creates the handle. */
  static Status Open (std::shared_ptr<const Library> lib, int cuda_device, int core, Device *out);

  /* 1..1000000 ms (kSettings otherwise); applied only when the library has cudlaSetTaskTimeoutInMs. */
  Status set_task_timeout (uint32_t ms) const;
  /* The status of the most recent task on this handle (synchronise first). */
  cudlaStatus last_error () const;

  bool valid () const { return handle_ != nullptr; }
  cudlaDevHandle handle () const { return handle_; }
  const Library &library () const { return *lib_; }
  const std::shared_ptr<const Library> &library_ptr () const { return lib_; }
  const CudlaApi &api () const { return lib_->api (); }
  const PrimaryContext &context () const { return ctx_; }
  int core () const { return core_; }
  uint64_t core_count () const { return core_count_; }
  void reset () noexcept;

 private:
  std::shared_ptr<const Library> lib_;
  PrimaryContext ctx_;
  cudlaDevHandle handle_ = nullptr;
  int core_ = -1;
  uint64_t core_count_ = 0;
};

constexpr uint32_t kMinTaskTimeoutMs = 1;
constexpr uint32_t kMaxTaskTimeoutMs = 1000000;

}  // namespace dla
