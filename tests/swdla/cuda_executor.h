/* swdla: the CUDA executor: a model's weights on the device and its layers as kernels, enqueued
 * on the task's stream with no host synchronisation. Same arithmetic as the CPU executor. */
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "layer_math.h"
#include "model.h"

namespace swdla {

class DeviceModel {
 public:
  /* Uploads the weights and allocates scratch (synchronous: done at module load). */
  static cudaError_t Create (const Model &model, std::unique_ptr<DeviceModel> *out);
  ~DeviceModel ();
  DeviceModel (const DeviceModel &) = delete;
  DeviceModel &operator= (const DeviceModel &) = delete;

  /* One task: input 0 -> layers -> output 0 (the whole output tensor written, pads zero). The
   * scratch is the module's own: callers serialise tasks of one module (one DLA core does). */
  cudaError_t enqueue (cudaStream_t stream, const void *input, void *output) const;

 private:
  explicit DeviceModel (const Model &model) : model_ (model) {}
  Model model_;
  float *weights_ = nullptr; /* every layer's weights and biases, back to back */
  float *scratch_[2] = {nullptr, nullptr};
  std::vector<LayerParams> params_;
};

}  // namespace swdla
