/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: kernel launches replayed from CUDA graphs.
 *
 * A graph launch costs the CPU about half a kernel launch (after a sleep, as between two frames;
 * tests/bench/launch_costs.cu measures both), but a graph bakes in its arguments, the frame's
 * address among them. So a launch becomes a graph the second time it is seen byte for byte (a
 * pooled frame buffer coming round again) and is replayed from then on; a source that never repeats
 * a buffer pays a lookup and launches plainly. The least recently used of kCapacity launches goes.
 * Graphs live in the context current when they are made: make, replay and destroy them in it.
 * Making one takes tens of microseconds, so prepare() (which makes it) and launch() are apart:
 * prepare before the work that is timed begins. */
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "kernels/kernel_launch.h"

namespace preprocess {

class LaunchGraphs {
 public:
  /* Room for a decoder's surfaces (H.264 keeps up to 16 references) and a pool or two; a source
   * that cycles through more buffers never comes round within it and launches plainly. */
  static constexpr size_t kCapacity = 32;

  LaunchGraphs ();
  ~LaunchGraphs ();
  LaunchGraphs (const LaunchGraphs &) = delete;
  LaunchGraphs &operator= (const LaunchGraphs &) = delete;

  /* Looks `k` up: a first sighting is remembered, a later one gets its graph (made now). Returns
   * the launch's entry, for launch() before the next prepare(). */
  size_t prepare (const KernelLaunch &k);
  /* Launches an entry on `stream`, from its graph when it has one; returns the CUDA status. */
  cudaError_t launch (size_t entry, cudaStream_t stream);
  cudaError_t launch (const KernelLaunch &k, cudaStream_t stream) { return launch (prepare (k), stream); }

  bool graphed (size_t entry) const { return entries_[entry].graph; } /* launch() replays a graph */
  size_t graphs () const;                                             /* graphs held now */
  uint64_t replays () const { return replays_; }                      /* launches made from a graph */

 private:
  struct Entry {
    KernelLaunch launch;
    cudaGraphExec_t graph = nullptr;
    bool no_graph = false; /* making one failed: launch plainly */
    uint64_t used = 0;
  };
  Entry *find (const KernelLaunch &k);
  Entry &insert (const KernelLaunch &k);
  static void make_graph (Entry *e);

  std::vector<Entry> entries_;
  uint64_t clock_ = 0, replays_ = 0;
};

}  // namespace preprocess
