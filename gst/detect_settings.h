/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: dladetect's own property values, and the decoder configuration they make with the
 * model's .modelinfo (docs/detection.md 3): the keys first, then every property the user set, which
 * wins. No CUDA; the checks the decoder's plan builder does not make are here, naming the property. */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gst/settings.h"
#include "host/detect/config.h"
#include "host/status.h"

namespace dlainfer {

/* The `decoder` property: kAuto takes the .modelinfo's family. */
enum class DecoderChoice { kAuto = -1, kYoloAnchors = 0, kYolov8 = 1, kSsd = 2 };

struct DetectSettings {
  DecoderChoice decoder = DecoderChoice::kAuto;
  float threshold = 0.25f;
  float nms_iou_threshold = 0.45f;
  uint32_t max_detections = 100;
  std::string object_class; /* labels (or class indices), comma-separated; empty: every class */
  bool post_messages = false;
};

/* The decoder's configuration for model `model` with these labels: Code::kSettings naming the
 * property or key at fault, or a model that no decoder names (`decoder=auto` and no .modelinfo
 * decoder). `user_set`: Settings::user_set. */
host::Status detect_config (const Settings &s, const DetectSettings &d,
                            const std::vector<std::string> &labels, detect::Config *out);

}  // namespace dlainfer
