/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: owners of CUDA runtime objects (stream, event, pinned host memory, device memory).
 * Create them with the owning context current; releasing never throws and ignores errors (a
 * poisoned context after a DLA fault fails every call, and teardown must still finish). The CUDA
 * types appear as void * so that callers need no CUDA header. */
#pragma once

#include <cstddef>

#include "dla/status.h"
#include "dla/unique_handle.h"

namespace dla {

namespace release {
struct Stream {
  void operator() (void *stream) const noexcept;
};
struct Event {
  void operator() (void *event) const noexcept;
};
struct HostMemory {
  void operator() (void *ptr) const noexcept;
};
struct DeviceMemory {
  void operator() (void *ptr) const noexcept;
};
}  // namespace release

class CudaStream {
 public:
  /* A non-blocking stream, as every cuDLA sample uses (never the legacy default stream). */
  static Status Create (CudaStream *out);
  void *get () const { return stream_.get (); } /* cudaStream_t */
  void reset () noexcept { stream_.reset (); }

 private:
  UniqueHandle<void *, release::Stream> stream_;
};

class CudaEvent {
 public:
  /* timing: elapsed-time capable (each record then costs the CPU several times as much). Never
   * blocking-sync: see completion_wait.h. */
  static Status Create (bool timing, CudaEvent *out);
  void *get () const { return event_.get (); } /* cudaEvent_t */
  void reset () noexcept { event_.reset (); }

 private:
  UniqueHandle<void *, release::Event> event_;
};

class PinnedBuffer {
 public:
  /* Page-locked host memory (so copies are truly asynchronous), zeroed. */
  static Status Create (size_t size, PinnedBuffer *out);
  void *data () const { return data_.get (); }
  size_t size () const { return data_ ? size_ : 0; }
  void reset () noexcept { data_.reset (); }

 private:
  UniqueHandle<void *, release::HostMemory> data_;
  size_t size_ = 0;
};

class DeviceBuffer {
 public:
  /* cudaMalloc'd memory (not zeroed). */
  static Status Create (size_t size, DeviceBuffer *out);
  void *data () const { return data_.get (); }
  size_t size () const { return data_ ? size_ : 0; }
  void reset () noexcept { data_.reset (); }

 private:
  UniqueHandle<void *, release::DeviceMemory> data_;
  size_t size_ = 0;
};

/* Records `event` on `stream` (cudaEvent_t, cudaStream_t); the CUDA status. */
int record_event (void *event, void *stream);
/* Makes `stream` wait for the work before `event`'s last record; the CUDA status. */
int stream_wait_event (void *stream, void *event);
/* Milliseconds between two completed timing events, negative when they cannot be compared. */
float elapsed_ms (void *start, void *end);

}  // namespace dla
