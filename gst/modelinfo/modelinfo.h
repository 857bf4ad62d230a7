/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the `.modelinfo` file beside a model (upstream's format 1.0, docs/modelinfo.md),
 * read with GKeyFile on every GStreamer version: the tensors' dims, ids and input ranges, plus our
 * own `dlainfer-*` keys in [modelinfo] that upstream's reader ignores. GLib only. */
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "host/tensor_desc.h"

namespace dlainfer {

/* One tensor section: [<tensor name as in the model>]. Empty strings: key not given. */
struct ModelInfoTensor {
  std::string name;
  std::string dir;           /* "input", "output" or "" */
  std::vector<int64_t> dims; /* -1: any */
  std::string type;          /* upstream's type name (float32, float16, ...) */
  std::string id;
  bool col_major = false;
  std::vector<std::pair<double, double>> ranges; /* (min, max) per channel; one pair: every channel */
};

struct ModelInfo {
  std::string path;
  std::string version;
  std::string group_id;
  std::vector<ModelInfoTensor> tensors;
  /* Our keys (docs/modelinfo.md); labels made absolute against the file's folder. */
  std::string channel_order, resize_mode, labels;
  /* Every key of [modelinfo] as written: a detector's decoder reads its own (docs/detection.md 3). */
  std::map<std::string, std::string> keys;
  /* What a user should hear of without failing: PLACEHOLDER values (ignored), a newer minor version. */
  std::vector<std::string> warnings;

  const ModelInfoTensor *find (const std::string &name) const;
};

/* The file upstream would read for `model_path`: <model>.modelinfo, else <model without its
 * extension>.modelinfo; "" when neither exists. */
std::string find_modelinfo (const std::string &model_path);

/* Parses a file's text; false with a message that names the file, the cause and the fix. */
bool parse_modelinfo (const std::string &text, const std::string &path, ModelInfo *out, std::string *error);
bool load_modelinfo (const std::string &path, ModelInfo *out, std::string *error);

/* The file against the loadable's tensors: every section names a tensor of the model in its
 * direction, dims agree (NCHW; [N, C] for a C x 1 x 1 vector; reversed when col-major), an input's
 * ranges are one pair or one per channel, an output's type is float32 or float16 (float32 for a
 * class vector). */
bool check_modelinfo (const ModelInfo &mi, const std::vector<host::TensorDesc> &inputs,
                      const std::vector<host::TensorDesc> &outputs, std::string *error);

/* What a detection decoder reads of the file (host/detect/config.h): the [modelinfo] keys, and the
 * output tensors' ids as "tensor-ids" (comma-separated). */
std::map<std::string, std::string> decoder_keys (const ModelInfo &mi);

/* The real channel count of an input: 3 where a padded layout's descriptor reports 16, 32 or 4. */
int64_t image_channels (const tensor::View &v);

}  // namespace dlainfer
