/* gst-dlainfer: de-padding on the GPU (docs/tensors.md 4): a task's outputs, from their DLA layout
 * into dense row-major NCHW FLOAT32 (INT8 dequantised with its scale) or FLOAT16, in one launch on
 * the caller's stream or from a CUDA graph. The same layout math (tensor::View::offset) and the
 * same conversions as host/depad.cpp, its reference: the results are bit for bit equal. CUDA
 * builds only. */
#pragma once

#include <cuda_runtime_api.h>

#include "host/depad.h"

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

/* The same work as a CUDA graph (*out, made in the current context; cudaGraphExecDestroy it there),
 * for a replay that costs the host about half a kernel launch. Job k writes to dst_table[k], read
 * when the kernel runs (the jobs' dst are not used): the caller writes the table before each
 * launch, so the table must be memory both the host and the device reach (pinned host memory
 * under unified addressing), and so may the destinations be (the kernel then writes host memory
 * directly: no copy). The sources are baked in. A failure is returned, not left as the thread's
 * last error. */
cudaError_t depad_graph (const DeviceJob *jobs, int count, void *const *dst_table, cudaGraphExec_t *out);

}  // namespace depad
