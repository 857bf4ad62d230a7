/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Kernels standing for the element's own work around a DLA task (pre- and post-processing). */
#pragma once

#include <cuda_runtime_api.h>

namespace swdla_test {

/* Writes a solid colour (normalised R, G, B) into a 3 x h x w FP16 chw16 tensor: whole 32-byte
 * pixels, pad lanes zero. */
cudaError_t fill_solid_chw16 (cudaStream_t s, void *tensor, int h, int w, float r, float g, float b);

/* Writes the index of the largest of `classes` FP16 chw16 logits into *result. */
cudaError_t argmax_chw16 (cudaStream_t s, const void *logits, int classes, int *result);

}  // namespace swdla_test
