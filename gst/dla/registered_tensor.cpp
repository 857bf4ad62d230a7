#include "registered_tensor.h"

#include <cuda_runtime_api.h>

#include "status_names.h"

namespace dla {

RegisteredTensor::RegisteredTensor (RegisteredTensor &&o) noexcept
    : lib_ (std::move (o.lib_)), ctx_ (o.ctx_), dev_ (o.dev_), cuda_ (o.cuda_), dla_ (o.dla_), size_ (o.size_)
{
  o.cuda_ = nullptr;
  o.dla_ = nullptr;
}

RegisteredTensor &RegisteredTensor::operator= (RegisteredTensor &&o) noexcept
{
  if (this != &o) {
    reset ();
    lib_ = std::move (o.lib_);
    ctx_ = o.ctx_;
    dev_ = o.dev_;
    cuda_ = o.cuda_;
    dla_ = o.dla_;
    size_ = o.size_;
    o.cuda_ = nullptr;
    o.dla_ = nullptr;
  }
  return *this;
}

Status RegisteredTensor::Create (const Device &dev, uint64_t size, const std::string &name,
                                 RegisteredTensor *out)
{
  if (!dev.valid ())
    return Status::Error (Code::kInit, "no DLA device to register tensor '" + name + "' with");
  if (size == 0)
    return Status::Error (Code::kModel, "tensor '" + name + "' has size 0 in its descriptor");
  ScopedContext scope (dev.context ().handle ());
  RegisteredTensor t;
  t.lib_ = dev.library_ptr ();
  t.ctx_ = dev.context ().handle ();
  t.dev_ = dev.handle ();
  t.size_ = size;
  cudaError_t err = cudaMalloc (&t.cuda_, size);
  if (err != cudaSuccess) {
    t.cuda_ = nullptr;
    return Status::Error (Code::kInit, cuda_call_failed ("cudaMalloc", err) + " for tensor '" + name + "' (" +
                                           std::to_string (size) + " bytes)");
  }
  /* Zeroed once: pad lanes and row tails stay zero, the kernels never write them. Synchronised here
   * because the engine's non-blocking stream does not wait for the legacy stream. */
  err = cudaMemset (t.cuda_, 0, size);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize (nullptr);
  if (err != cudaSuccess)
    return Status::Error (Code::kInit, cuda_call_failed ("cudaMemset", err) + " for tensor '" + name + "'");
  if (reinterpret_cast<uintptr_t> (t.cuda_) % 32 != 0) /* cuDLA needs 32-byte alignment */
    return Status::Error (Code::kInit,
                          "cudaMalloc returned an address not 32-byte aligned for tensor '" + name + "'");
  uint64_t *dla = nullptr;
  const cudlaStatus s =
      dev.api ().MemRegister (dev.handle (), static_cast<const uint64_t *> (t.cuda_), size, &dla, 0);
  if (s != cudlaSuccess || !dla)
    return Status::Error (Code::kInit, cudla_call_failed ("cudlaMemRegister", s) +
                                           dev.library ().refusal_detail () + " for tensor '" + name + "' (" +
                                           std::to_string (size) + " bytes)");
  t.dla_ = dla;
  *out = std::move (t);
  return Status::Ok ();
}

void RegisteredTensor::reset () noexcept
{
  if (cuda_ || dla_) {
    ScopedContext scope (ctx_);
    if (dla_)
      lib_->api ().MemUnregister (dev_, dla_);
    if (cuda_)
      cudaFree (cuda_);
  }
  cuda_ = nullptr;
  dla_ = nullptr;
  size_ = 0;
  lib_.reset ();
}

}  // namespace dla
