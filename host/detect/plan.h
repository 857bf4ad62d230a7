/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a decoder configuration (host/detect/config.h) against a model's tensors, resolved
 * into the POD plan the reference and the kernel run (common/detect_plan.h). Every mismatch (output
 * count, channels, grid against stride, classes) is refused here, before the first frame, with a
 * message that names the decoder's expectation and the model's tensor. No GStreamer, no CUDA. */
#pragma once

#include <vector>

#include "common/detect_plan.h"
#include "host/detect/config.h"
#include "host/status.h"
#include "host/tensor_desc.h"

namespace detect {

/* What the decoder sees of a model. */
struct ModelTensors {
  int input_width = 0, input_height = 0; /* the image input's tensor size */
  std::vector<host::TensorDesc> outputs; /* in the model's order; Frame::outputs follows it */
  std::vector<float> output_scales;      /* per output; INT8 outputs need one > 0 */
};

/* The plan, or Code::kModel (the model does not fit the decoder) / Code::kSettings (the
 * configuration is incomplete or contradicts itself). The plan's outputs are the model's, in its
 * order, with c = the channels read (a descriptor's padded count resolved). */
host::Status build_plan (const Config &config, const ModelTensors &model, Plan *out);

/* SSD priors of one level as (w, h) in pixels, Caffe's PriorBox order: min, sqrt (min * max), then
 * per aspect ratio r != 1: (min sqrt r, min / sqrt r) and, with flip, its transpose. */
std::vector<std::pair<float, float>> ssd_priors (float min_size, float max_size,
                                                 const std::vector<float> &ratios, bool flip);

}  // namespace detect
