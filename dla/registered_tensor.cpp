/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/registered_tensor.h"

#include <cuda_runtime_api.h>

#include "dla/status_names.h"

namespace dla {

Status RegisteredTensor::Create (std::shared_ptr<const Device> device, uint64_t size, const std::string &name,
                                 RegisteredTensor *out, std::mutex *register_lock)
{
  if (!device || !device->valid ())
    return Status::Error (Code::kInit, "no DLA device to register tensor '" + name + "' with");
  if (size == 0)
    return Status::Error (Code::kModel, "tensor '" + name + "' has size 0 in its descriptor");
  const Device &dev = *device;
  void *ctx = dev.context ().handle ();
  ScopedContext scope (ctx);
  RegisteredTensor t;
  t.size_ = size;
  void *cuda = nullptr;
  cudaError_t err = cudaMalloc (&cuda, size);
  if (err != cudaSuccess)
    return Status::Error (Code::kInit, cuda_call_failed ("cudaMalloc", err) + " for tensor '" + name + "' (" +
                                           std::to_string (size) + " bytes)");
  t.memory_ = UniqueHandle<void *, Free> (cuda, Free{ctx});
  /* Zeroed once: pad lanes and row tails stay zero, the kernels never write them. Synchronised here
   * because the engine's non-blocking stream does not wait for the legacy stream. */
  err = cudaMemset (cuda, 0, size);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize (nullptr);
  if (err != cudaSuccess)
    return Status::Error (Code::kInit, cuda_call_failed ("cudaMemset", err) + " for tensor '" + name + "'");
  if (reinterpret_cast<uintptr_t> (cuda) % 32 != 0) /* cuDLA needs 32-byte alignment (docs/cudla.md 4.2) */
    return Status::Error (Code::kInit,
                          "cudaMalloc returned an address not 32-byte aligned for tensor '" + name + "'");
  uint64_t *dla = nullptr;
  std::unique_lock<std::mutex> guard;
  if (register_lock)
    guard = std::unique_lock<std::mutex> (*register_lock);
  const cudlaStatus s =
      dev.api ().MemRegister (dev.handle (), static_cast<const uint64_t *> (cuda), size, &dla, 0);
  if (guard)
    guard.unlock ();
  if (s != cudlaSuccess || !dla)
    return Status::Error (Code::kInit, cudla_call_failed ("cudlaMemRegister", s) +
                                           dev.library ().refusal_detail () + " for tensor '" + name + "' (" +
                                           std::to_string (size) + " bytes)");
  t.registration_ = UniqueHandle<uint64_t *, Unregister> (dla, Unregister{std::move (device)});
  *out = std::move (t);
  return Status::Ok ();
}

void RegisteredTensor::Free::operator() (void *ptr) const noexcept
{
  ScopedContext scope (ctx);
  cudaFree (ptr);
}

void RegisteredTensor::Unregister::operator() (uint64_t *dla_ptr) const noexcept
{
  ScopedContext scope (device->context ().handle ());
  device->api ().MemUnregister (device->handle (), dla_ptr);
}

}  // namespace dla
