/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the family-independent steps of host/detect/plan.cpp: messages, which outputs make
 * which level, and the selection part of the plan (thresholds, bounds). */
#pragma once

#include <string>
#include <vector>

#include "host/detect/plan.h"

namespace detect {
namespace plan_support {

/* "'s8' (fp16 chw16 1x255x80x80)" */
std::string describe (const host::TensorDesc &d);
/* "2 outputs: 's8' (...), 's16' (...)" */
std::string list_outputs (const ModelTensors &m);

/* Code::kModel: "<family> decoder: <what>; fix the loadable or set <key>". */
host::Status model_error (const Config &c, const std::string &what, const std::string &key);
/* Code::kSettings: "<family> decoder: <what>". */
host::Status settings_error (const Config &c, const std::string &what);

/* A descriptor's channel count is the expected one, or it padded to the layout's lanes. */
bool fits_channels (const tensor::View &v, int64_t expected);

/* The inputs the plan needs at all: sizes, output count, INT8 scales. */
host::Status check_model (const Config &c, const ModelTensors &m);
/* The configuration's own geometry keys agree with each other (per-level list lengths, bounds). */
host::Status level_count_ok (const Config &c);
/* Levels the configuration names (yolov8 without strides: the outputs' distinct grids). */
int level_count (const Config &c, const ModelTensors &m);
/* Output indices per level, finest grid first: by `outputs` names, else by grid; every output is
 * read by exactly one level. */
host::Status assign_outputs (const Config &c, const ModelTensors &m, int levels,
                             std::vector<std::vector<int>> *out);
/* Thresholds, rejection logit, candidate numbering and bounds, once the levels are planned. */
host::Status finish (const Config &c, const ModelTensors &m, Plan *p);

}  // namespace plan_support
}  // namespace detect
