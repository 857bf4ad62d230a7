#include "staging.h"

#include <cuda_runtime_api.h>

#include <string>

namespace dlainfer {
namespace {

dla::Status cuda_failure (const char *call, cudaError_t err)
{
  return dla::Status::Error (dla::Code::kRuntime,
                             std::string (call) + " failed with " + cudaGetErrorName (err) + " (" +
                                 std::to_string (int (err)) + "): " + cudaGetErrorString (err));
}

}  // namespace

Staging::~Staging ()
{
  release ();
}

void Staging::release () noexcept
{
  if (host_)
    cudaFreeHost (host_);
  if (device_)
    cudaFree (device_);
  host_ = nullptr;
  device_ = nullptr;
  capacity_ = 0;
}

dla::Status Staging::reserve (size_t bytes)
{
  if (bytes <= capacity_)
    return dla::Status::Ok ();
  release ();
  void *host = nullptr;
  void *device = nullptr;
  cudaError_t err = cudaHostAlloc (&host, bytes, cudaHostAllocDefault);
  if (err != cudaSuccess)
    return cuda_failure ("cudaHostAlloc (upload staging)", err);
  err = cudaMalloc (&device, bytes);
  if (err != cudaSuccess) {
    cudaFreeHost (host);
    return cuda_failure ("cudaMalloc (upload staging)", err);
  }
  host_ = static_cast<uint8_t *> (host);
  device_ = static_cast<uint8_t *> (device);
  capacity_ = bytes;
  return dla::Status::Ok ();
}

dla::Status Staging::upload (size_t bytes, void *stream)
{
  if (bytes > capacity_)
    return dla::Status::Error (dla::Code::kRuntime, "upload of " + std::to_string (bytes) +
                                                        " bytes exceeds the staging buffer of " +
                                                        std::to_string (capacity_));
  const cudaError_t err =
      cudaMemcpyAsync (device_, host_, bytes, cudaMemcpyHostToDevice, static_cast<cudaStream_t> (stream));
  return err == cudaSuccess ? dla::Status::Ok () : cuda_failure ("cudaMemcpyAsync (upload)", err);
}

}  // namespace dlainfer
