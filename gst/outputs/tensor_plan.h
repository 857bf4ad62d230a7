/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: what each output of the model is published as with tensor-meta (docs/tensors.md):
 * its id, type and dims, from the properties, the .modelinfo and whether it is the class vector. */
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

#include "dla/descriptor_map.h"
#include "gst/settings.h"
#include "host/depad.h"

namespace dlainfer {

/* One output as it is published. */
struct TensorPlan {
  std::string name;
  tensor::View view{}; /* what is read: a class vector's c is the class count */
  GQuark id = 0;
  depad::Type type = depad::Type::kFloat32;
  std::vector<gsize> dims; /* [N, C] for a class vector, else [N, C, H, W] */
  float int8_scale = 1.f;
};

/* The plans for `outputs`, given settings (tensor-type, output-scale, the .modelinfo's ids and
 * types) and the class count of output 0 (0: the model is no classifier). */
std::vector<TensorPlan> plan_tensors (const std::vector<dla::TensorInfo> &outputs, const Settings &s,
                                      int classes);

}  // namespace dlainfer
