/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: what the open model is, for the `model-info` property and the INFO log at start:
 * every tensor's name, dims, layout, type, size and raw cuDLA descriptor, and where it runs. */
#pragma once

#include <gst/gst.h>

#include <map>
#include <string>
#include <vector>

#include "dla/descriptor_map.h"

namespace dlainfer {

struct ModelDescription {
  std::string model;          /* the loadable's path */
  std::string instance;       /* model-instance-id ("" none) */
  std::string backend;        /* "dla" or "swdla" */
  std::string cudla_version;  /* the cuDLA library's version */
  std::string library;        /* the cuDLA library's path */
  std::string description;    /* dla::Engine::describe (): the same as one text */
  int dla_core = 0;           /* the setting: a core, or -1 for every core */
  std::vector<int> dla_cores; /* the cores the model is loaded on */
  int cuda_device = 0;
  int classes = 0;
  int labels = 0; /* labels read from the labels file (0: class index names) */
  const std::vector<dla::TensorInfo> *inputs = nullptr;
  const std::vector<dla::TensorInfo> *outputs = nullptr;
  std::string modelinfo;                                      /* the .modelinfo read ("" none) */
  const std::map<std::string, std::string> *origin = nullptr; /* setting -> property|modelinfo|default */
};

/* "dlainfer-model-info": model, model-instance-id (when set: the model is shared), backend, cudla-version,
 * library, dla-core (the setting), dla-cores (an array of int: the cores the model is loaded on),
 * cuda-device, classes, labels, description, modelinfo (strings/ints), settings-source (a structure: each
 * setting a .modelinfo may give -> "property", "modelinfo" or "default"), and inputs, outputs: arrays of
 * "tensor" structures with name, layout, type, n, c, h, w, size, row-stride, plane-stride, batch-stride,
 * reading, raw.
 */
GstStructure *model_info_structure (const ModelDescription &d);

}  // namespace dlainfer
