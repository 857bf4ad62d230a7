/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/settings.h"

#include <glib.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <locale>
#include <sstream>

namespace dlainfer {

namespace {

/* `property` and `text`: as the user gave the value (Settings::mean_property, mean_text); empty:
 * the numbers (a .modelinfo's). A string property's text is quoted, an array's is not. */
bool check_triple (const char *name, const std::vector<float> &v, bool positive, const std::string &property,
                   const std::string &text, std::string *message)
{
  bool ok = v.size () == 3;
  for (float x : v)
    ok = ok && std::isfinite (x) && (!positive || x > 0.f);
  if (ok)
    return true;
  const bool string_form = property != name && !property.empty ();
  const std::string shown = text.empty () ? numbers_text (v) : string_form ? "\"" + text + "\"" : text;
  const std::string example = std::string (name) + (string_form ? "-string" : "") + "=\"<" +
                              (positive ? "0.229, 0.224, 0.225" : "0.485, 0.456, 0.406") + ">\"";
  *message = "Property '" + (property.empty () ? std::string (name) : property) + "' is " + shown + " (" +
             std::to_string (v.size ()) + (v.size () == 1 ? " value" : " values") + "): it takes 3 " +
             (positive ? "numbers > 0" : "numbers") +
             ", one per channel in the model's channel order, e.g. " + example;
  return false;
}

std::string trimmed (const std::string &t)
{
  const size_t a = t.find_first_not_of (" \t"), b = t.find_last_not_of (" \t");
  return a == std::string::npos ? std::string () : t.substr (a, b - a + 1);
}

bool check_object_class (const Settings &s, std::string *message)
{
  if (s.object_class.empty ())
    return true;
  for (const std::string &label : object_classes (s))
    if (label.empty ()) {
      *message = "Property 'object-class' is \"" + s.object_class +
                 "\": it has an empty item; it takes the detections' type labels separated by commas, "
                 "e.g. object-class=car,truck (unset: every type)";
      return false;
    }
  return true;
}

/* GStreamer's rule for a structure name: a letter, then letters, digits and / - _ . : + */
bool check_attribute_name (const Settings &s, std::string *message)
{
  const std::string &n = s.attribute_name;
  bool ok = n.empty () || std::isalpha (static_cast<unsigned char> (n[0]));
  for (char c : n)
    ok = ok && (std::isalnum (static_cast<unsigned char> (c)) || std::strchr ("/-_.:+", c));
  if (!ok)
    *message = "Property 'attribute-name' is \"" + n +
               "\": it names a GstStructure, so it takes a letter followed by letters, digits and / - _ . "
               ": + (e.g. attribute-name=vehicle-type; unset: the element's name)";
  return ok;
}

/* roi-list attaches each object's result, not the task's raw tensors (a batch of objects). */
bool check_region (const Settings &s, std::string *message)
{
  if (s.inference_region == InferenceRegion::kFullFrame || !s.tensor_meta)
    return true;
  *message =
      "inference-region=roi-list with tensor-meta=true: the raw tensors of a batch of objects are not "
      "attached (docs/objects.md): set tensor-meta=false, or inference-region=full-frame";
  return false;
}

/* An EWMA factor of 1 would keep the first result forever. */
bool check_smoothing (const Settings &s, std::string *message)
{
  if (s.smoothing >= 0.f && s.smoothing < 1.f)
    return true;
  char value[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (value, sizeof value, "%g", double (s.smoothing));
  *message = std::string ("Property 'smoothing' is ") + value +
             ": it takes 0 (off) up to below 1 (1 would keep an object's first result forever), e.g. "
             "smoothing=0.7 (a label flips on the second classification that disagrees)";
  return false;
}

}  // namespace

std::vector<std::string> object_classes (const Settings &s)
{
  std::vector<std::string> out;
  if (s.object_class.empty ())
    return out;
  size_t start = 0;
  for (;;) {
    const size_t comma = s.object_class.find (',', start);
    out.push_back (trimmed (s.object_class.substr (start, comma - start)));
    if (comma == std::string::npos)
      return out;
    start = comma + 1;
  }
}

std::string numbers_text (const std::vector<float> &v)
{
  std::string out = "<";
  for (size_t i = 0; i < v.size (); ++i) {
    char buf[32];
    std::snprintf (buf, sizeof buf, "%s%g", i ? ", " : "", double (v[i]));
    out += buf;
  }
  return out + ">";
}

std::vector<float> parse_numbers (const std::string &text)
{
  std::string t = trimmed (text);
  if (t.size () >= 2 && t.front () == '<' && t.back () == '>')
    t = t.substr (1, t.size () - 2);
  std::vector<float> out;
  if (trimmed (t).empty ())
    return out;
  size_t start = 0;
  for (;;) {
    const size_t comma = t.find (',', start);
    const std::string item = trimmed (t.substr (start, comma - start));
    /* Not strtod: the decimal point does not follow the locale. */
    std::istringstream in (item);
    in.imbue (std::locale::classic ());
    double x = NAN;
    in >> x;
    out.push_back (item.empty () || in.fail () || !in.eof () || !std::isfinite (x) ? NAN : float (x));
    if (comma == std::string::npos)
      return out;
    start = comma + 1;
  }
}

bool check_mean_std (const Settings &s, bool std, std::string *message)
{
  return std ? check_triple ("std", s.std, true, s.std_property, s.std_text, message)
             : check_triple ("mean", s.mean, false, s.mean_property, s.mean_text, message);
}

bool check (const Settings &s, std::string *message)
{
  return check_mean_std (s, false, message) && check_mean_std (s, true, message) &&
         check_object_class (s, message) && check_attribute_name (s, message) && check_region (s, message) &&
         check_smoothing (s, message);
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
