/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla: the CPU executor (the reference the CUDA executor is tested against), and the packing of
 * dense FP32 NCHW data to and from a tensor's layout. */
#pragma once

#include <cstdint>
#include <vector>

#include "layer_math.h"
#include "model.h"

namespace swdla {

/* Layer j's parameters: tensors[id] is where tensor id's dense batch lives, weights and bias the
 * layer's weight copies (host or device pointers alike). */
LayerParams layer_params (const Model &model, size_t j, const float *const *tensors, const float *weights,
                          const float *bias);

/* Dense FP32 [N][C][H][W] from a tensor in its layout (INT8 dequantised with its scale). */
std::vector<float> unpack_tensor (const TensorSpec &t, const uint8_t *bytes);

/* Writes the whole tensor (view.size bytes): values in place (FP16 rounded to nearest even, INT8
 * quantised with the scale and saturated), every pad lane and row tail zero. */
void pack_tensor (const TensorSpec &t, const float *dense, uint8_t *bytes);

/* Runs the graph on dense FP32 inputs (one per graph input, whole batch; those nothing reads may
 * be empty) and returns every output's dense FP32 values, in output order (not yet packed). */
std::vector<std::vector<float>> run_dense_cpu (const Model &model,
                                               const std::vector<std::vector<float>> &inputs);

/* Runs the model: inputs[k] holds input k in its layout, outputs[k] receives output k (the whole
 * tensor, pads zero). */
void run_cpu (const Model &model, const std::vector<const uint8_t *> &inputs,
              const std::vector<uint8_t *> &outputs);

/* A one-input model on dense input 0: output 0's dense values (tests). */
std::vector<float> run_layers_cpu (const Model &model, std::vector<float> activation);

}  // namespace swdla
