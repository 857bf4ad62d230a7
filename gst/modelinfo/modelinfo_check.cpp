/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a .modelinfo against the loadable's tensors (modelinfo.h). */
#include <algorithm>

#include "gst/modelinfo/modelinfo.h"

namespace dlainfer {
namespace {

std::string dims_text (const std::vector<int64_t> &d)
{
  std::string out;
  for (int64_t x : d)
    out += (out.empty () ? "" : ",") + std::to_string (x);
  return out;
}

/* A descriptor may report a padded channel count (1008 for 1000 in chw16, 16 for 3). */
bool channels_match (int64_t given, const tensor::View &v)
{
  const bool may_pad = v.lanes > 1 && v.c % v.lanes == 0;
  return given == v.c || (may_pad && given > 0 && given < v.c && v.c - given < v.lanes);
}

bool dims_match (std::vector<int64_t> d, const ModelInfoTensor &t, const tensor::View &v)
{
  if (t.col_major)
    std::reverse (d.begin (), d.end ());
  const bool vector = v.h == 1 && v.w == 1;
  if (!(d.size () == 4 || (vector && d.size () == 2)))
    return false;
  const int64_t want[4] = {v.n, v.c, v.h, v.w};
  for (size_t i = 0; i < d.size (); ++i) {
    const bool ok = d[i] < 0 || (i == 1 ? channels_match (d[i], v) : d[i] == want[i]);
    if (!ok)
      return false;
  }
  return true;
}

std::string names (const std::vector<host::TensorDesc> &in, const std::vector<host::TensorDesc> &out)
{
  std::string s;
  for (const auto &t : in)
    s += (s.empty () ? "'" : ", '") + t.name + "' (input)";
  for (const auto &t : out)
    s += (s.empty () ? "'" : ", '") + t.name + "' (output)";
  return s;
}

const host::TensorDesc *find (const std::vector<host::TensorDesc> &list, const std::string &name)
{
  for (const auto &t : list)
    if (t.name == name)
      return &t;
  return nullptr;
}

bool check_output (const ModelInfoTensor &t, const tensor::View &v, std::string *why)
{
  const bool vector = v.h == 1 && v.w == 1;
  if (t.type.empty () || t.type == "float32" || (t.type == "float16" && !vector))
    return true;
  *why = "has type=" + t.type + "; dlainfer publishes this output as " +
         (vector ? "float32 (upstream's classifier decoder reads float32 only): write type=float32"
                 : "float32 or float16: write one of them");
  return false;
}

bool check_input (const ModelInfoTensor &t, const tensor::View &v, std::string *why)
{
  const size_t channels = size_t (image_channels (v));
  if (t.ranges.empty () || t.ranges.size () == 1 || t.ranges.size () == channels)
    return true;
  *why = "has " + std::to_string (t.ranges.size ()) + " ranges but the input has " +
         std::to_string (channels) + " channels: give one min,max pair per channel (or one for all)";
  return false;
}

bool check_tensor (const ModelInfoTensor &t, const host::TensorDesc &d, bool input, std::string *why)
{
  const char *dir = input ? "input" : "output";
  if (!t.dir.empty () && t.dir != dir) {
    *why = "says dir=" + t.dir + " but the model's '" + t.name + "' is an " + dir + ": write dir=" + dir;
    return false;
  }
  const tensor::View &v = d.view;
  if (!t.dims.empty () && !dims_match (t.dims, t, v)) {
    *why = "has dims=" + dims_text (t.dims) + " but the loadable's '" + t.name + "' is " +
           std::to_string (v.n) + "," + std::to_string (v.c) + "," + std::to_string (v.h) + "," +
           std::to_string (v.w) + " (NCHW" + (v.h == 1 && v.w == 1 ? "; N,C also fits" : "") +
           "): write the loadable's dims, or -1 for any";
    return false;
  }
  return input ? check_input (t, v, why) : check_output (t, v, why);
}

}  // namespace

int64_t image_channels (const tensor::View &v)
{
  const bool padded = (v.layout == tensor::Layout::kDlaHwc4 && v.c == 4) || (v.lanes > 1 && v.c == v.lanes);
  return padded ? 3 : v.c;
}

bool check_modelinfo (const ModelInfo &mi, const std::vector<host::TensorDesc> &inputs,
                      const std::vector<host::TensorDesc> &outputs, std::string *error)
{
  for (const ModelInfoTensor &t : mi.tensors) {
    const host::TensorDesc *in = find (inputs, t.name);
    const host::TensorDesc *out = in ? nullptr : find (outputs, t.name);
    std::string why;
    if (!in && !out)
      why = "names no tensor of the model, whose tensors are " + names (inputs, outputs) +
            ": name each section after a tensor (dlainfer-inspect lists them)";
    else
      check_tensor (t, in ? *in : *out, in != nullptr, &why);
    if (!why.empty ()) {
      *error = "The model info file '" + mi.path + "': [" + t.name + "] " + why;
      return false;
    }
  }
  return true;
}

}  // namespace dlainfer
