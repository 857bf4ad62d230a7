/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/engine_config.h"

#include "dla/descriptor_map.h"
#include "host/classifier.h"

namespace dlainfer {

dla::EngineConfig engine_config (const Settings &s, const std::string &user)
{
  dla::EngineConfig config;
  config.model_path = s.model;
  config.dla_core = s.dla_core;
  config.cuda_device = s.device ();
  config.task_timeout_ms = s.task_timeout_ms;
  config.num_slots = s.max_in_flight;
  /* One task in flight: the next is submitted the moment the DLA ends it (frame_submit.cpp). */
  config.spare_slot = s.max_in_flight == 1 && s.inference_region == InferenceRegion::kFullFrame;
  config.user = user;
  config.accept_tensors = [] (const std::vector<dla::TensorInfo> &in,
                              const std::vector<dla::TensorInfo> &out) {
    return classifier::check_tensor_sizes (dla::host_descs (in), dla::host_descs (out));
  };
  return config;
}

}  // namespace dlainfer
