/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla: the CUDA executor: a model's weights on the device and its layers as kernels, enqueued
 * on the task's stream with no host synchronisation. Same arithmetic as the CPU executor.
 * A task's kernels and its status store are captured into a CUDA graph the first time its set of
 * inputs, outputs and status word comes, and replayed after: one graph launch instead of a launch
 * per layer, so a submit costs the caller's thread a few microseconds, as a DLA's does, not tens. */
#pragma once

#include <cuda_runtime_api.h>

#include <deque>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "buffer_plan.h"
#include "layer_math.h"
#include "model.h"
#include "stream_ops.h"

namespace swdla {

class DeviceModel {
 public:
  /* Uploads the weights and allocates a buffer per BufferPlan slot (synchronous: done at module load). */
  static cudaError_t Create (const Model &model, std::unique_ptr<DeviceModel> *out);
  ~DeviceModel ();
  DeviceModel (const DeviceModel &) = delete;
  DeviceModel &operator= (const DeviceModel &) = delete;

  /* One task: the inputs (one per graph input, in its layout) -> the layers -> every output (each
   * whole tensor written, pads zero), then `then` (the task's status). The buffers are the
   * module's own: callers serialise tasks of one module (one DLA core does). `replay`: from the
   * graph cache (captured at a set's first task), else launched one by one. */
  using Inputs = std::vector<const void *>;
  using Outputs = std::vector<void *>;
  cudaError_t enqueue (cudaStream_t stream, const Inputs &inputs, const Outputs &outputs, WordStore then,
                       bool replay = true);

 private:
  /* The graphs of the buffer sets seen, up to kReplays, the oldest dropped first (a registration is
   * made once, used often); a null graph: capturing failed, the kernels launch one by one. Every
   * slot of every element sharing the module (model-instance-id) has a set of its own, cores x
   * max-in-flight of each: a cache smaller than that misses on every task, captured anew inside
   * cudlaSubmitTask. Looked up by key, so its size costs no time per task. */
  static constexpr size_t kReplays = 4096;
  struct ReplayKey {
    Inputs inputs; /* every input and output of the task: a graph bakes them all in */
    Outputs outputs;
    int32_t *word;
    int32_t value;
    bool operator<(const ReplayKey &o) const
    {
      return std::tie (inputs, outputs, word, value) < std::tie (o.inputs, o.outputs, o.word, o.value);
    }
  };

  explicit DeviceModel (const Model &model) : model_ (model), plan_ (plan_buffers (model)) {}
  cudaError_t enqueue_kernels (cudaStream_t stream, const Inputs &inputs, const Outputs &outputs,
                               WordStore then) const;
  /* The task's kernels as a graph, nullptr if capturing failed (then they are launched one by one). */
  cudaGraphExec_t capture (const Inputs &inputs, const Outputs &outputs, WordStore then) const;
  float *tensor (int32_t id) const { return buffers_[size_t (plan_.slot[size_t (id)])]; }

  Model model_;
  BufferPlan plan_;
  cudaStream_t capture_stream_ = nullptr; /* swdla's own: the caller's stream is never captured */
  std::map<ReplayKey, cudaGraphExec_t> replays_;
  std::deque<ReplayKey> replay_order_; /* oldest first */
  float *weights_ = nullptr;           /* every layer's weights and biases, back to back */
  std::vector<float *> buffers_;       /* one per plan_ slot */
  std::vector<LayerParams> params_;
};

}  // namespace swdla
