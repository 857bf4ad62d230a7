/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlainfer-inspect: dense float32 NCHW files to and from a tensor's layout, checksums, and the
 * comparison of an output with an expected file. */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/tensor_layout.h"
#include "tools/inspect/options.h"

namespace inspect {

bool read_f32 (const std::string &path, std::vector<float> *out);
/* Dense float32 NCHW (c_dense channels) -> the tensor's layout and type; the rest stays zero. */
void pack (const tensor::View &v, const float *dense, int64_t c_dense, float scale,
           std::vector<uint8_t> *out);
/* The tensor's values as dense float32 NCHW (INT8 dequantised with `scale`). */
std::vector<float> unpack (const tensor::View &v, const uint8_t *bytes, float scale);
/* FNV-1a over the values' bits. */
uint64_t checksum (const std::vector<float> &v);
/* The output against o.expect: FP16 within o.ulps ulps, INT8 within o.steps steps, same argmax.
 * Prints a "compare:" line; kOk or kRunFailed. */
int compare (const std::vector<float> &got, const tensor::View &v, const Options &o);

}  // namespace inspect
