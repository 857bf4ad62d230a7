/* gst-dlainfer: move-only owners of CUDA runtime objects (stream, event, pinned host memory).
 * Create them with the owning context current; destructors never throw and ignore errors (a
 * poisoned context after a DLA fault fails every call, and teardown must still finish). */
#pragma once

#include <cstddef>

#include "status.h"

namespace dla {

class CudaStream {
 public:
  CudaStream () = default;
  ~CudaStream () { reset (); }
  CudaStream (CudaStream &&o) noexcept : stream_ (o.stream_) { o.stream_ = nullptr; }
  CudaStream &operator= (CudaStream &&o) noexcept;
  CudaStream (const CudaStream &) = delete;
  CudaStream &operator= (const CudaStream &) = delete;

  /* A non-blocking stream, as every cuDLA sample uses (never the legacy default stream). */
  static Status Create (CudaStream *out);
  void *get () const { return stream_; } /* cudaStream_t */
  void reset () noexcept;

 private:
  void *stream_ = nullptr;
};

class CudaEvent {
 public:
  CudaEvent () = default;
  ~CudaEvent () { reset (); }
  CudaEvent (CudaEvent &&o) noexcept : event_ (o.event_) { o.event_ = nullptr; }
  CudaEvent &operator= (CudaEvent &&o) noexcept;
  CudaEvent (const CudaEvent &) = delete;
  CudaEvent &operator= (const CudaEvent &) = delete;

  /* timing: elapsed-time capable (each record then costs the CPU about ten times as much). Never
   * blocking-sync: see completion_wait.h. */
  static Status Create (bool timing, CudaEvent *out);
  void *get () const { return event_; } /* cudaEvent_t */
  void reset () noexcept;

 private:
  void *event_ = nullptr;
};

class PinnedBuffer {
 public:
  PinnedBuffer () = default;
  ~PinnedBuffer () { reset (); }
  PinnedBuffer (PinnedBuffer &&o) noexcept : data_ (o.data_), size_ (o.size_) { o.data_ = nullptr; }
  PinnedBuffer &operator= (PinnedBuffer &&o) noexcept;
  PinnedBuffer (const PinnedBuffer &) = delete;
  PinnedBuffer &operator= (const PinnedBuffer &) = delete;

  /* Page-locked host memory (so the output copy is truly asynchronous), zeroed. */
  static Status Create (size_t size, PinnedBuffer *out);
  void *data () const { return data_; }
  size_t size () const { return size_; }
  void reset () noexcept;

 private:
  void *data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace dla
