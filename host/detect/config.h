/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a detection decoder's configuration as a user writes it (docs/detection.md 3): the
 * family, its geometry (strides, anchors, priors), the classes and the selection (thresholds, NMS,
 * bounds). Read from `dlainfer-*` keys (the `.modelinfo`'s [modelinfo] section, or any key/value
 * source); host/detect/plan.h checks it against a model's tensors. No GStreamer, no CUDA. */
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "host/status.h"

namespace detect {

enum class Family { kYoloAnchors, kYolov8, kSsd };

struct Config {
  Family family = Family::kYoloAnchors;
  bool yolov5_box = true; /* yolo-anchors: (2s-0.5)+cell, (2s)^2*anchor; false: YOLOv2's s+cell, exp*anchor */
  bool softmax = false;   /* class activation: softmax instead of sigmoid */
  bool decoded = false;   /* yolov8: the post-DFL [1, 4 + C, N] tensor (probabilities) */
  int classes = -1;       /* class channels (SSD: background included); -1: from the labels/outputs */
  std::vector<int> strides; /* per level, tensor pixels per cell; empty: input size / grid */
  std::vector<std::vector<std::pair<float, float>>> anchors; /* per level, (w, h) */
  bool anchors_in_cells = false; /* anchors in grid cells (YOLOv2, face-api) rather than pixels */
  int reg_max = 16;

  /* SSD priors (Caffe's PriorBox per level), or `anchors` given explicitly. */
  std::vector<float> min_sizes, max_sizes;
  std::vector<std::vector<float>> aspect_ratios;
  bool flip = true;
  float variances[4] = {0.1f, 0.1f, 0.2f, 0.2f};
  int background = 0; /* -1: none */
  bool yxhw = false;
  float prior_offset = 0.5f;

  std::vector<std::string> outputs; /* output names in level order (box before class); empty: matched */

  float threshold = 0.25f;
  std::vector<std::pair<int, float>> class_thresholds; /* class channel -> threshold */
  std::vector<int> object_classes;                     /* non-empty: only these are reported */
  float iou = 0.45f;
  bool class_agnostic = false;
  int max_detections = 100;
  int max_candidates = 1024;
};

const char *family_name (Family f);

/* Every `dlainfer-*` key of a detection decoder; other keys are ignored. `keys` holds the values as
 * written (GKeyFile's lists: comma-separated; levels separated by ';'). An absent key keeps *out's
 * value. A bad value: Code::kSettings, naming the key, the value and what it takes. */
host::Status parse_config (const std::map<std::string, std::string> &keys, Config *out);

/* Whether the keys name a detector at all (a `dlainfer-decoder` key, or upstream's `yolo-v8-out`
 * as group-id or a tensor id, passed in `keys` as "group-id" / "tensor-ids"). */
bool names_a_detector (const std::map<std::string, std::string> &keys);

}  // namespace detect
