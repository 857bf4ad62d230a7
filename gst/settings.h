/* gst-dlainfer: the element's property values, copied under the object lock where they are used.
 *
 * The element core reads settings only through this struct and the two *_params() functions, so
 * properties added later (resize mode, top-k, activation, ...) change this file and the property
 * table (gstdlainferprops.cpp), not the per-frame flow. No GStreamer. */
#pragma once

#include <cstdint>
#include <string>

#include "postprocess.h"
#include "preprocess.h"

namespace dlainfer {

struct Settings {
  /* Model-changing: applied at start (NULL/READY only). */
  std::string model;
  std::string labels;
  int dla_core = 0;
  int cuda_device_id = -1; /* -1: automatic (device 0) */
  uint32_t task_timeout_ms = 5000;

  /* Per frame. */
  float mean[3] = {0.f, 0.f, 0.f};
  float std[3] = {1.f, 1.f, 1.f};
  preprocess::ChannelOrder channel_order = preprocess::ChannelOrder::kRGB;

  int device () const { return cuda_device_id < 0 ? 0 : cuda_device_id; }
};

/* The preprocessing parameters these settings ask for; frame geometry (crop, pixel aspect) is the
 * caller's. */
preprocess::Params preprocess_params (const Settings &s);

/* The post-processing parameters (activation, top-k, threshold). */
postprocess::Params postprocess_params (const Settings &s);

}  // namespace dlainfer
