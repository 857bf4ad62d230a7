/* gst-dlainfer: the upload path for frames in system memory.
 *
 * A pinned host buffer and a device buffer, made once (in set_caps) and reused for every frame:
 * the frame's planes are copied into the pinned buffer, then uploaded on the element's stream, and
 * the kernel reads the device copy. Keeps CUDA runtime headers out of the element. */
#pragma once

#include <cstddef>
#include <cstdint>

#include "status.h"

namespace dlainfer {

class Staging {
 public:
  Staging () = default;
  ~Staging ();
  Staging (const Staging &) = delete;
  Staging &operator= (const Staging &) = delete;

  /* Makes room for `bytes`; allocates only when the buffers are smaller. Needs the CUDA context
   * current. */
  dla::Status reserve (size_t bytes);
  /* Frees both buffers (context current). */
  void release () noexcept;

  size_t capacity () const { return capacity_; }
  uint8_t *host () const { return host_; }
  const uint8_t *device () const { return device_; }

  /* Copies the first `bytes` of the host buffer to the device buffer on `stream` (a cudaStream_t). */
  dla::Status upload (size_t bytes, void *stream);

 private:
  uint8_t *host_ = nullptr;
  uint8_t *device_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace dlainfer
