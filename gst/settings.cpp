#include "gst/settings.h"

#include <cmath>
#include <cstdio>

namespace dlainfer {

namespace {

/* "<0.5, 0.5>", as gst-launch writes it. */
std::string triple_text (const std::vector<float> &v)
{
  std::string out = "<";
  for (size_t i = 0; i < v.size (); ++i) {
    char buf[32];
    std::snprintf (buf, sizeof buf, "%s%g", i ? ", " : "", double (v[i]));
    out += buf;
  }
  return out + ">";
}

bool check_triple (const char *name, const std::vector<float> &v, bool positive, std::string *message)
{
  const char *expected = positive ? "3 numbers > 0, one per channel in the model's channel order, e.g. "
                                    "std=\"<0.229, 0.224, 0.225>\""
                                  : "3 numbers, one per channel in the model's channel order, e.g. "
                                    "mean=\"<0.485, 0.456, 0.406>\"";
  bool ok = v.size () == 3;
  for (float x : v)
    ok = ok && std::isfinite (x) && (!positive || x > 0.f);
  if (!ok)
    *message = std::string ("Property '") + name + "' is " + triple_text (v) + " (" +
               std::to_string (v.size ()) + (v.size () == 1 ? " value" : " values") + "): it takes " +
               expected;
  return ok;
}

}  // namespace

bool check (const Settings &s, std::string *message)
{
  return check_triple ("mean", s.mean, false, message) && check_triple ("std", s.std, true, message);
}

preprocess::Params preprocess_params (const Settings &s)
{
  preprocess::Params p = preprocess::default_params ();
  /* check () refused any other length at start; a later change of length keeps the defaults. */
  for (size_t c = 0; c < 3 && s.mean.size () == 3 && s.std.size () == 3; ++c) {
    p.mean[c] = s.mean[c];
    p.std[c] = s.std[c] > 0.f ? s.std[c] : 1.f;
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
