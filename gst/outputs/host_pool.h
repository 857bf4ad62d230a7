/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: host buffers of one size, handed downstream as GstMemory without a copy: the raw
 * tensors' de-padded values are copied from the GPU straight into one (docs/tensors.md 4), and the
 * buffer comes back to the pool when downstream frees its memory. acquire () never allocates: the
 * owner reserves buffers at start and tops the pool up where allocating is fine (never under the
 * engine's lock: cudaMallocHost is slow and may synchronise), up to a bound; an acquire that finds
 * none free says no and the caller falls back (and counts it). The allocator runs without the pool's
 * lock, so an acquire on another thread never waits for it. The pool lives until the last of its
 * memories is freed. The allocator is given (pinned CUDA memory in the element, plain memory in
 * unit tests). Thread-safe. */
#pragma once

#include <gst/gst.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace dlainfer {

class HostPool : public std::enable_shared_from_this<HostPool> {
 public:
  struct Allocator {
    std::function<void *(size_t)> alloc; /* nullptr when it cannot */
    std::function<void (void *)> free;
  };

  static std::shared_ptr<HostPool> Create (size_t size, size_t max_buffers, Allocator allocator);
  ~HostPool ();
  HostPool (const HostPool &) = delete;
  HostPool &operator= (const HostPool &) = delete;

  /* Allocates until `count` buffers exist (at most the bound). False when the allocator failed. */
  bool reserve (size_t count);
  /* Allocates until `free` buffers are free or the bound is reached. False when the allocator failed. */
  bool top_up (size_t free);
  /* A free buffer; nullptr when none is (it never allocates). */
  void *acquire ();
  /* A buffer acquire () gave, back without going downstream. */
  void release (void *data);
  /* `data` (from acquire ()) as a GstMemory of size () bytes; freeing it releases `data`. */
  GstMemory *wrap (void *data);

  size_t size () const { return size_; }
  size_t allocated () const;
  size_t free_count () const;

 private:
  HostPool (size_t size, size_t max_buffers, Allocator allocator);
  /* Allocates up to `n` more buffers (within the bound), the lock not held while allocating. */
  bool grow (size_t n);

  const size_t size_, max_;
  Allocator allocator_;
  mutable std::mutex mutex_;
  std::vector<void *> free_;
  size_t allocated_ = 0; /* with those being allocated */
};

}  // namespace dlainfer
