/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/staging.h"

#include <cuda_runtime_api.h>

#include <string>

#include "dla/fatal.h"

namespace dlainfer {

void Staging::release () noexcept
{
  host_.reset ();
  device_.reset ();
}

dla::Status Staging::reserve (size_t bytes)
{
  if (bytes <= capacity ())
    return dla::Status::Ok ();
  release ();
  dla::PinnedBuffer host;
  dla::DeviceBuffer device;
  dla::Status st = dla::PinnedBuffer::Create (bytes, &host);
  if (st.ok ())
    st = dla::DeviceBuffer::Create (bytes, &device);
  if (!st.ok ())
    return dla::Status::Error (dla::Code::kRuntime, "upload staging: " + st.message);
  host_ = std::move (host);
  device_ = std::move (device);
  return dla::Status::Ok ();
}

dla::Status Staging::upload (size_t bytes, void *stream)
{
  if (bytes > capacity ())
    return dla::Status::Error (dla::Code::kRuntime, "upload of " + std::to_string (bytes) +
                                                        " bytes exceeds the staging buffer of " +
                                                        std::to_string (capacity ()));
  const cudaError_t err = cudaMemcpyAsync (device_.data (), host_.data (), bytes, cudaMemcpyHostToDevice,
                                           static_cast<cudaStream_t> (stream));
  return err == cudaSuccess ? dla::Status::Ok () : dla::cuda_failure ("cudaMemcpyAsync (upload)", err);
}

}  // namespace dlainfer
