/* gst-dlainfer: one DLA tensor: cudaMalloc'd from the descriptor's size, zeroed once, registered
 * once with cudlaMemRegister. Tasks take the DLA-side pointer, CUDA kernels the CUDA pointer; the
 * two differ and are never mixed. Destroying it unregisters, then frees. */
#pragma once

#include <cstdint>
#include <memory>

#include "device.h"
#include "status.h"

namespace dla {

class RegisteredTensor {
 public:
  RegisteredTensor () = default;
  ~RegisteredTensor () { reset (); }
  RegisteredTensor (RegisteredTensor &&o) noexcept;
  RegisteredTensor &operator= (RegisteredTensor &&o) noexcept;
  RegisteredTensor (const RegisteredTensor &) = delete;
  RegisteredTensor &operator= (const RegisteredTensor &) = delete;

  /* `dev` must outlive the tensor. `name` appears in messages. */
  static Status Create (const Device &dev, uint64_t size, const std::string &name, RegisteredTensor *out);

  void *cuda_ptr () const { return cuda_; }
  uint64_t *dla_ptr () const { return dla_; }
  uint64_t size () const { return size_; }
  void reset () noexcept;

 private:
  std::shared_ptr<const Library> lib_;
  void *ctx_ = nullptr;
  cudlaDevHandle dev_ = nullptr;
  void *cuda_ = nullptr;
  uint64_t *dla_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace dla
