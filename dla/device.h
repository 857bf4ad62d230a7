/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: one cuDLA device handle in hybrid mode (CUDLA_CUDA_DLA) on one DLA core.
 *
 * Holds the CUDA device's primary context for its whole life: cuDLA hybrid mode allocates in it,
 * and every handle must be destroyed before it is released (docs/cudla.md 4.1). Every cuDLA call
 * runs with that context current. Destroying it destroys the handle first. */
#pragma once

#include <memory>
#include <string>

#include "dla/abi/cudla_abi.h"
#include "dla/loader.h"
#include "dla/primary_context.h"
#include "dla/status.h"
#include "dla/unique_handle.h"

namespace dla {

class Device {
 public:
  /* Checks `core` against cudlaDeviceGetCount (the message names the count) and creates the handle.
   * Shared: the modules and tensors made on a device hold it, so it cannot go before them. */
  static Status Open (std::shared_ptr<const Library> lib, int cuda_device, int core,
                      std::shared_ptr<const Device> *out);

  /* 1..1000000 ms (kSettings otherwise); applied only when the library has cudlaSetTaskTimeoutInMs. */
  Status set_task_timeout (uint32_t ms) const;
  /* The status of the most recent task on this handle (synchronise first). */
  cudlaStatus last_error () const;

  bool valid () const { return bool (handle_); }
  cudlaDevHandle handle () const { return handle_.get (); }
  const Library &library () const { return *lib_; }
  const std::shared_ptr<const Library> &library_ptr () const { return lib_; }
  const CudlaApi &api () const { return lib_->api (); }
  const PrimaryContext &context () const { return ctx_; }
  int dla_core () const { return core_; }
  uint64_t core_count () const { return core_count_; }

  /* cudlaDestroyDevice with the device's context current. */
  struct Release {
    std::shared_ptr<const Library> lib;
    void *ctx = nullptr;
    void operator() (cudlaDevHandle handle) const noexcept;
  };

 private:
  Device () = default;

  /* Declared in the order they are made: the handle goes before the context it was made in
   * (docs/cudla.md 4.1: handles before the primary context), the library last. */
  std::shared_ptr<const Library> lib_;
  PrimaryContext ctx_;
  UniqueHandle<cudlaDevHandle, Release> handle_;
  int core_ = -1;
  uint64_t core_count_ = 0;
};

/* cudlaCreateDevice's refusal `s` of `core` as the user reads it: the status, the core, the cause
 * where one is known (the handle limit with its remedy, dla/core_handles.h). `refusal_detail`: the
 * library's (Library::refusal_detail). Apart from Open so that it is tested without a GPU. */
Status create_device_error (cudlaStatus s, int core, const std::string &refusal_detail);

constexpr uint32_t kMinTaskTimeoutMs = 1;
constexpr uint32_t kMaxTaskTimeoutMs = 1000000;

}  // namespace dla
