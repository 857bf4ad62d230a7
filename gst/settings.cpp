#include "gst/settings.h"

namespace dlainfer {

preprocess::Params preprocess_params (const Settings &s)
{
  preprocess::Params p = preprocess::default_params ();
  for (int c = 0; c < 3; ++c) {
    p.mean[c] = s.mean[c];
    p.std[c] = s.std[c];
  }
  p.order = s.channel_order;
  p.mode = s.resize_mode;
  p.crop_fraction = s.crop_fraction;
  p.pad_rgb[0] = uint8_t (s.pad_value >> 16);
  p.pad_rgb[1] = uint8_t (s.pad_value >> 8);
  p.pad_rgb[2] = uint8_t (s.pad_value);
  p.antialias = s.antialias;
  /* Unset only matters for INT8 inputs, which start() refuses without it. */
  p.int8_scale = s.input_scale > 0.f ? s.input_scale : 1.f;
  return p;
}

postprocess::Params postprocess_params (const Settings &s)
{
  postprocess::Params p;
  p.activation = s.activation;
  p.top_k = s.top_k > uint32_t (INT32_MAX) ? 0 : int (s.top_k);
  p.threshold = s.threshold;
  /* Unset only matters for INT8 outputs, which start() refuses without it. */
  p.int8_scale = s.output_scale > 0.f ? s.output_scale : 1.f;
  return p;
}

}  // namespace dlainfer
