/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/modelinfo/modelinfo_settings.h"

namespace dlainfer {
namespace {

/* The input's section: the first with dir=input, else the first with ranges. */
const ModelInfoTensor *input_section (const ModelInfo &mi)
{
  for (const ModelInfoTensor &t : mi.tensors)
    if (t.dir == "input")
      return &t;
  for (const ModelInfoTensor &t : mi.tensors)
    if (!t.ranges.empty ())
      return &t;
  return nullptr;
}

/* Upstream: value = pixel * (max - min) / 255 + min. Ours: value = (pixel / 255 - mean) / std. */
bool ranges_to_mean_std (const ModelInfo &mi, std::vector<float> *mean, std::vector<float> *std)
{
  const ModelInfoTensor *in = input_section (mi);
  if (!in || !(in->ranges.size () == 1 || in->ranges.size () == 3))
    return false; /* more or fewer than 3: check_modelinfo refuses it against the model */
  mean->clear ();
  std->clear ();
  for (size_t c = 0; c < 3; ++c) {
    const auto &r = in->ranges[in->ranges.size () == 1 ? 0 : c];
    mean->push_back (float (-r.first / (r.second - r.first)));
    std->push_back (float (1.0 / (r.second - r.first)));
  }
  return true;
}

/* One setting: the user's, else the file's (when `from_file`), else the default. */
template <typename T>
void pick (Settings *out, const char *name, T Settings::*field, const Settings &defaults, bool from_file,
           const T &file_value)
{
  if (out->user_set.count (name)) {
    out->origin[name] = "property";
    return;
  }
  out->*field = from_file ? file_value : defaults.*field;
  out->origin[name] = from_file ? "modelinfo" : "default";
}

}  // namespace

Settings apply_modelinfo (const Settings &user, std::shared_ptr<const ModelInfo> mi)
{
  const Settings defaults;
  Settings out = user;
  out.modelinfo = mi;
  out.origin.clear ();
  ModelInfo none;
  const ModelInfo &f = mi ? *mi : none;
  std::vector<float> mean, std;
  const bool ranges = ranges_to_mean_std (f, &mean, &std);
  pick (&out, "mean", &Settings::mean, defaults, ranges, mean);
  pick (&out, "std", &Settings::std, defaults, ranges, std);
  pick (&out, "labels", &Settings::labels, defaults, !f.labels.empty (), f.labels);
  pick (&out, "channel-order", &Settings::channel_order, defaults, !f.channel_order.empty (),
        f.channel_order == "bgr" ? preprocess::ChannelOrder::kBGR : preprocess::ChannelOrder::kRGB);
  const preprocess::ResizeMode mode = f.resize_mode == "letterbox"     ? preprocess::ResizeMode::kLetterbox
                                      : f.resize_mode == "center-crop" ? preprocess::ResizeMode::kCenterCrop
                                                                       : preprocess::ResizeMode::kStretch;
  pick (&out, "resize-mode", &Settings::resize_mode, defaults, !f.resize_mode.empty (), mode);
  return out;
}

OpenAt open_at (const Settings &user, bool instance_known)
{
  const bool waits = user.model.empty () && !user.model_instance_id.empty () && !instance_known;
  return waits ? OpenAt::kFirstData : OpenAt::kStart;
}

Settings apply_instance (const Settings &effective, const InstanceDefaults &instance)
{
  Settings out = effective;
  auto origin = out.origin.find ("labels");
  if (!instance.labels.empty () && origin != out.origin.end () && origin->second == "default") {
    out.labels = instance.labels;
    origin->second = "model-instance-id";
  }
  return out;
}

void adopt_settings (Settings *shared, const Settings &effective)
{
  for (const auto &o : effective.origin) {
    if (shared->user_set.count (o.first))
      continue; /* set again since: the user's value wins */
    if (o.first == "mean")
      shared->mean = effective.mean;
    else if (o.first == "std")
      shared->std = effective.std;
    else if (o.first == "labels")
      shared->labels = effective.labels;
    else if (o.first == "channel-order")
      shared->channel_order = effective.channel_order;
    else if (o.first == "resize-mode")
      shared->resize_mode = effective.resize_mode;
  }
  shared->modelinfo = effective.modelinfo;
  shared->origin = effective.origin;
}

Settings settings_at_start (GstElement *element, Settings *shared, host::Status *st,
                            const InstanceDefaults &instance)
{
  GST_OBJECT_LOCK (element);
  const Settings user = *shared;
  GST_OBJECT_UNLOCK (element);
  std::shared_ptr<ModelInfo> mi;
  const std::string path = find_modelinfo (user.model.empty () ? instance.model : user.model);
  std::string error;
  if (!path.empty () && !load_modelinfo (path, (mi = std::make_shared<ModelInfo> ()).get (), &error)) {
    *st = host::Status::Error (host::Code::kSettings, error);
    return user;
  }
  for (const std::string &w : mi ? mi->warnings : std::vector<std::string> ())
    GST_ELEMENT_WARNING (element, RESOURCE, SETTINGS, ("%s", w.c_str ()), ("reading %s", path.c_str ()));
  const Settings effective = apply_instance (apply_modelinfo (user, mi), instance);
  GST_OBJECT_LOCK (element);
  adopt_settings (shared, effective);
  GST_OBJECT_UNLOCK (element);
  *st = host::Status::Ok ();
  return effective;
}

}  // namespace dlainfer
