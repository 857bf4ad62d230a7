#include "cuda_resources.h"

#include <cuda_runtime_api.h>

#include <cstring>

#include "status_names.h"

namespace dla {

CudaStream &CudaStream::operator= (CudaStream &&o) noexcept
{
  if (this != &o) {
    reset ();
    stream_ = o.stream_;
    o.stream_ = nullptr;
  }
  return *this;
}

Status CudaStream::Create (CudaStream *out)
{
  cudaStream_t s = nullptr;
  const cudaError_t err = cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking);
  if (err != cudaSuccess)
    return Status::Error (Code::kInit, cuda_call_failed ("cudaStreamCreateWithFlags", err));
  out->reset ();
  out->stream_ = s;
  return Status::Ok ();
}

void CudaStream::reset () noexcept
{
  if (stream_)
    cudaStreamDestroy (static_cast<cudaStream_t> (stream_));
  stream_ = nullptr;
}

CudaEvent &CudaEvent::operator= (CudaEvent &&o) noexcept
{
  if (this != &o) {
    reset ();
    event_ = o.event_;
    o.event_ = nullptr;
  }
  return *this;
}

Status CudaEvent::Create (bool timing, CudaEvent *out)
{
  const unsigned flags = timing ? 0u : cudaEventDisableTiming;
  cudaEvent_t e = nullptr;
  const cudaError_t err = cudaEventCreateWithFlags (&e, flags);
  if (err != cudaSuccess)
    return Status::Error (Code::kInit, cuda_call_failed ("cudaEventCreateWithFlags", err));
  out->reset ();
  out->event_ = e;
  return Status::Ok ();
}

void CudaEvent::reset () noexcept
{
  if (event_)
    cudaEventDestroy (static_cast<cudaEvent_t> (event_));
  event_ = nullptr;
}

PinnedBuffer &PinnedBuffer::operator= (PinnedBuffer &&o) noexcept
{
  if (this != &o) {
    reset ();
    data_ = o.data_;
    size_ = o.size_;
    o.data_ = nullptr;
  }
  return *this;
}

Status PinnedBuffer::Create (size_t size, PinnedBuffer *out)
{
  void *p = nullptr;
  const cudaError_t err = cudaMallocHost (&p, size ? size : 1);
  if (err != cudaSuccess)
    return Status::Error (
        Code::kInit, cuda_call_failed ("cudaMallocHost", err) + " for " + std::to_string (size) + " bytes");
  std::memset (p, 0, size);
  out->reset ();
  out->data_ = p;
  out->size_ = size;
  return Status::Ok ();
}

void PinnedBuffer::reset () noexcept
{
  if (data_)
    cudaFreeHost (data_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace dla
