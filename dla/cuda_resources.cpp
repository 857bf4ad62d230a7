/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/cuda_resources.h"

#include <cuda_runtime_api.h>

#include <cstring>

#include "dla/status_names.h"

namespace dla {

namespace release {
void Stream::operator() (void *stream) const noexcept
{
  cudaStreamDestroy (static_cast<cudaStream_t> (stream));
}
void Event::operator() (void *event) const noexcept
{
  cudaEventDestroy (static_cast<cudaEvent_t> (event));
}
void HostMemory::operator() (void *ptr) const noexcept
{
  cudaFreeHost (ptr);
}
void DeviceMemory::operator() (void *ptr) const noexcept
{
  cudaFree (ptr);
}
}  // namespace release

Status CudaStream::Create (CudaStream *out)
{
  cudaStream_t s = nullptr;
  const cudaError_t err = cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking);
  if (err != cudaSuccess)
    return Status::Error (Code::kInit, cuda_call_failed ("cudaStreamCreateWithFlags", err));
  out->stream_ = UniqueHandle<void *, release::Stream> (s);
  return Status::Ok ();
}

Status CudaEvent::Create (bool timing, CudaEvent *out)
{
  const unsigned flags = timing ? 0u : cudaEventDisableTiming;
  cudaEvent_t e = nullptr;
  const cudaError_t err = cudaEventCreateWithFlags (&e, flags);
  if (err != cudaSuccess)
    return Status::Error (Code::kInit, cuda_call_failed ("cudaEventCreateWithFlags", err));
  out->event_ = UniqueHandle<void *, release::Event> (e);
  return Status::Ok ();
}

Status PinnedBuffer::Create (size_t size, PinnedBuffer *out)
{
  void *p = nullptr;
  const cudaError_t err = cudaMallocHost (&p, size ? size : 1);
  if (err != cudaSuccess)
    return Status::Error (
        Code::kInit, cuda_call_failed ("cudaMallocHost", err) + " for " + std::to_string (size) + " bytes");
  std::memset (p, 0, size);
  out->data_ = UniqueHandle<void *, release::HostMemory> (p);
  out->size_ = size;
  return Status::Ok ();
}

Status DeviceBuffer::Create (size_t size, DeviceBuffer *out)
{
  void *p = nullptr;
  const cudaError_t err = cudaMalloc (&p, size ? size : 1);
  if (err != cudaSuccess)
    return Status::Error (Code::kInit,
                          cuda_call_failed ("cudaMalloc", err) + " for " + std::to_string (size) + " bytes");
  out->data_ = UniqueHandle<void *, release::DeviceMemory> (p);
  out->size_ = size;
  return Status::Ok ();
}

int record_event (void *event, void *stream)
{
  return cudaEventRecord (static_cast<cudaEvent_t> (event), static_cast<cudaStream_t> (stream));
}

int stream_wait_event (void *stream, void *event)
{
  return cudaStreamWaitEvent (static_cast<cudaStream_t> (stream), static_cast<cudaEvent_t> (event), 0);
}

float elapsed_ms (void *start, void *end)
{
  float ms = 0.f;
  if (cudaEventElapsedTime (&ms, static_cast<cudaEvent_t> (start), static_cast<cudaEvent_t> (end)) ==
      cudaSuccess)
    return ms;
  cudaGetLastError (); /* a failed query must not linger as the runtime's last error */
  return -1.f;
}

}  // namespace dla
