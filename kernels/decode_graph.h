/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: one task slot's detection decode (kernels/detect_device.h) and the copy of its
 * result to pinned host memory, replayed from a CUDA graph: the CPU pays one graph launch where it
 * paid two kernel launches and a copy (docs/performance.md: a plain launch costs the GPU host's CPU
 * about 4.5 µs, a graph replay about half). A graph bakes in the frame: its outputs' addresses
 * (fixed per slot) and its geometry (fixed while the caps and the region are), so it is made again,
 * by capture on a stream of its own, when the frame differs from the one it was made for. A capture
 * that fails is not tried again: the decode launches plainly. Make, replay and destroy it in one
 * CUDA context. CUDA builds only. */
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "common/detect_plan.h"

namespace detect {

class DecodeGraph {
 public:
  DecodeGraph () = default;
  ~DecodeGraph ();
  DecodeGraph (DecodeGraph &&other) noexcept;
  DecodeGraph &operator= (DecodeGraph &&other) noexcept;
  DecodeGraph (const DecodeGraph &) = delete;
  DecodeGraph &operator= (const DecodeGraph &) = delete;

  /* Queues decode_device (plan, frame, workspace, device, ...) and the copy of `bytes` of the result
   * from `device` to `host` on `stream`, from the graph when it has one for `frame`. */
  cudaError_t launch (const Plan &plan, const Frame &frame, void *workspace, Result *device, void *host,
                      size_t bytes, cudaStream_t stream);

  uint64_t captures () const { return captures_; } /* graphs made */
  uint64_t replays () const { return replays_; }   /* launches from a graph */

 private:
  void capture (const Plan &plan, const Frame &frame, void *workspace, Result *device, void *host,
                size_t bytes);
  void reset () noexcept;

  cudaGraphExec_t exec_ = nullptr;
  Frame frame_{}; /* the frame exec_ was made for, compared byte for byte */
  bool no_graph_ = false;
  uint64_t captures_ = 0, replays_ = 0;
};

}  // namespace detect
