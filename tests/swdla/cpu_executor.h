/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla: the CPU executor (the reference the CUDA executor is tested against), and the packing of
 * dense FP32 NCHW data to and from a tensor's layout. */
#pragma once

#include <cstdint>
#include <vector>

#include "layer_math.h"
#include "model.h"

namespace swdla {

/* Layer i's parameters, with its weight pointers supplied by the caller (host or device copies). */
LayerParams layer_params (const Model &model, size_t i, const float *weights, const float *bias);

/* Dense FP32 [N][C][H][W] from a tensor in its layout (INT8 dequantised with its scale). */
std::vector<float> unpack_tensor (const TensorSpec &t, const uint8_t *bytes);

/* Writes the whole tensor (view.size bytes): values in place (FP16 rounded to nearest even, INT8
 * quantised with the scale and saturated), every pad lane and row tail zero. */
void pack_tensor (const TensorSpec &t, const float *dense, uint8_t *bytes);

/* Runs the model: inputs[k] holds input k in its layout, output receives output 0 (whole tensor). */
void run_cpu (const Model &model, const std::vector<const uint8_t *> &inputs, uint8_t *output);

/* Dense FP32 result of the layers for dense input 0 (no output packing), for tests. */
std::vector<float> run_layers_cpu (const Model &model, std::vector<float> activation);

}  // namespace swdla
