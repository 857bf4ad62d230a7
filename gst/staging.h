/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the upload path of one task slot for frames in system memory.
 *
 * A pinned host buffer and a device buffer, made once (in set_caps) and reused for every frame:
 * the frame's planes are copied into the pinned buffer, then uploaded on the element's stream, and
 * the kernel reads the device copy. No CUDA type in this header. */
#pragma once

#include <cstddef>
#include <cstdint>

#include "dla/cuda_resources.h"
#include "dla/status.h"

namespace dlainfer {

class Staging {
 public:
  /* Makes room for `bytes`; allocates only when the buffers are smaller. Needs the CUDA context
   * current. */
  dla::Status reserve (size_t bytes);
  /* Frees both buffers (context current). */
  void release () noexcept;

  size_t capacity () const { return device_.size (); }
  uint8_t *host () const { return static_cast<uint8_t *> (host_.data ()); }
  const uint8_t *device () const { return static_cast<const uint8_t *> (device_.data ()); }

  /* Copies the first `bytes` of the host buffer to the device buffer on `stream` (a cudaStream_t). */
  dla::Status upload (size_t bytes, void *stream);

 private:
  dla::PinnedBuffer host_;
  dla::DeviceBuffer device_;
};

}  // namespace dlainfer
