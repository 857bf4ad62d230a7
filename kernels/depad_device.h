/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: de-padding on the GPU (docs/tensors.md 4): a task's outputs, from their DLA layout
 * into dense row-major NCHW FLOAT32 (INT8 dequantised with its scale) or FLOAT16, in one launch on
 * the caller's stream or from a CUDA graph. The same layout math (tensor::View::offset) and the
 * same conversions as host/depad.cpp, its reference: the results are bit for bit equal. CUDA
 * builds only. */
#pragma once

#include <cuda_runtime_api.h>

#include <vector>

#include "common/depad_types.h"

namespace depad {

/* One output to de-pad, both pointers device memory. */
struct DeviceJob {
  tensor::View view{};       /* the source as the DLA wrote it; c: the channels kept (class count) */
  const void *src = nullptr; /* view.size bytes */
  void *dst = nullptr;       /* dense_bytes (view, type) bytes */
  float int8_scale = 1.f;
  Type type = Type::kFloat32;
};

/* Outputs one launch takes (more take more launches). */
constexpr int kMaxDeviceJobs = 8;

/* Queues the de-padding of `count` outputs on `stream`. A launch failure is returned, not left as
 * the thread's last error. */
cudaError_t depad_device (const DeviceJob *jobs, int count, cudaStream_t stream);

/* The same work as a CUDA graph, followed by one copy per job from its dst (device memory) to a
 * host buffer: a replay costs the host about half a kernel launch, and a changed host buffer one
 * more driver call (the copy node's parameters). Made and used in one context; the sources and
 * device destinations are baked in. Failures are returned, not left as the thread's last error. */
class DepadGraph {
 public:
  DepadGraph () = default;
  ~DepadGraph ();
  DepadGraph (const DepadGraph &) = delete;
  DepadGraph &operator= (const DepadGraph &) = delete;

  /* The graph for `count` jobs, job k's values copied to host[k] (pinned host memory). */
  cudaError_t make (const DeviceJob *jobs, int count, void *const *host);
  /* Queues the graph on `stream`, job k's values copied to host[k] this time. */
  cudaError_t launch (void *const *host, cudaStream_t stream);

 private:
  cudaGraph_t graph_ = nullptr; /* kept: the copy nodes are its */
  cudaGraphExec_t exec_ = nullptr;
  std::vector<cudaGraphNode_t> copies_;
  std::vector<const void *> device_;
  std::vector<size_t> bytes_;
  std::vector<void *> host_; /* each copy's destination as the graph has it now */
};

}  // namespace depad
