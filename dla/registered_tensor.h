/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: one DLA tensor: cudaMalloc'd from the descriptor's size, zeroed once, registered
 * once with cudlaMemRegister. Tasks take the DLA-side pointer, CUDA kernels the CUDA pointer; the
 * two differ and are never mixed. Destroying it unregisters, then frees. */
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "dla/device.h"
#include "dla/status.h"
#include "dla/unique_handle.h"

namespace dla {

class RegisteredTensor {
 public:
  /* `name` appears in messages. The tensor holds the device it is registered with. `register_lock`
   * (when given) is held around cudlaMemRegister only: the memory is allocated and zeroed before. */
  static Status Create (std::shared_ptr<const Device> dev, uint64_t size, const std::string &name,
                        RegisteredTensor *out, std::mutex *register_lock = nullptr);

  void *cuda_ptr () const { return memory_.get (); }
  uint64_t *dla_ptr () const { return registration_.get (); }
  uint64_t size () const { return memory_ ? size_ : 0; }
  void reset () noexcept { registration_.reset (), memory_.reset (); }
  /* cudlaMemUnregister now (under the caller's lock); the memory is freed when the tensor goes. */
  void unregister () noexcept { registration_.reset (); }

  /* cudaFree with the context current. */
  struct Free {
    void *ctx = nullptr;
    void operator() (void *ptr) const noexcept;
  };
  /* cudlaMemUnregister with the device's context current. */
  struct Unregister {
    std::shared_ptr<const Device> device;
    void operator() (uint64_t *dla_ptr) const noexcept;
  };

 private:
  /* Made in this order, so the registration goes before the memory it maps. */
  UniqueHandle<void *, Free> memory_;
  UniqueHandle<uint64_t *, Unregister> registration_;
  uint64_t size_ = 0;
};

}  // namespace dla
