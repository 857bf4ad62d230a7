/* gst-dlainfer: kernel launches replayed from CUDA graphs.
 *
 * A graph launch costs the CPU about half a kernel launch (after a 60 us sleep, as between two
 * frames: 2.8 against 5.8 us on the H200 host), but a graph bakes in its arguments, the frame's
 * address among them. So a launch becomes a graph the second time it is seen byte for byte (a
 * pooled frame buffer coming round again) and is replayed from then on; a source that never repeats
 * a buffer pays a lookup and launches plainly. The least recently used of kCapacity launches goes.
 * Graphs live in the context current when they are made: make, replay and destroy them in it. */
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "kernel_launch.h"

namespace preprocess {

class LaunchGraphs {
 public:
  /* More than the buffers of any upstream pool or decoder's surfaces (H.264: 16 references). */
  static constexpr size_t kCapacity = 32;

  LaunchGraphs ();
  ~LaunchGraphs ();
  LaunchGraphs (const LaunchGraphs &) = delete;
  LaunchGraphs &operator= (const LaunchGraphs &) = delete;

  /* Launches `k` on `stream`, from a graph when it was seen before; returns the CUDA status. */
  cudaError_t launch (const KernelLaunch &k, cudaStream_t stream);

  size_t graphs () const;                   /* graphs held now */
  uint64_t replays () const { return replays_; } /* launches made from a graph */

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
