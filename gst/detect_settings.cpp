/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/detect_settings.h"

#include <cstdlib>

#include "common/detect_plan.h"
#include "gst/modelinfo/modelinfo.h"
#include "host/labels.h"

namespace dlainfer {
namespace {

using host::Status;

Status refuse (const std::string &message)
{
  return Status::Error (host::Code::kSettings, message);
}

/* A class named by its label, or by its index. */
bool class_index (const std::string &item, const std::vector<std::string> &labels, int *out)
{
  for (size_t i = 0; i < labels.size (); ++i)
    if (labels[i] == item || labels::name_for (labels, int (i)) == item) {
      *out = int (i);
      return true;
    }
  char *end = nullptr;
  const long v = std::strtol (item.c_str (), &end, 10);
  if (item.empty () || *end != '\0' || v < 0 || v >= detect::kMaxClasses)
    return false;
  *out = int (v);
  return true;
}

/* object-class `text` (dlainfer's syntax, settings.h) as class channels. */
Status object_classes (const std::string &text, const std::string &labels_path,
                       const std::vector<std::string> &labels, std::vector<int> *out)
{
  Settings items;
  items.object_class = text;
  out->clear ();
  for (const std::string &item : dlainfer::object_classes (items)) {
    int cls = 0;
    if (!class_index (item, labels, &cls))
      return refuse ("object-class '" + text + "' names '" + item + "', which is no label" +
                     (labels_path.empty () ? "" : " of '" + labels_path + "'") +
                     " and no class index: give labels (or indices) separated by commas");
    out->push_back (cls);
  }
  return Status::Ok ();
}

Status apply_properties (const Settings &s, const DetectSettings &d, const std::vector<std::string> &labels,
                         detect::Config *c)
{
  auto set = [&s] (const char *name) { return s.user_set.count (name) > 0; };
  if (d.decoder != DecoderChoice::kAuto)
    c->family = detect::Family (int (d.decoder));
  if (set ("threshold")) {
    if (!(d.threshold >= 0.f && d.threshold < 1.f))
      return refuse ("threshold=" + std::to_string (d.threshold) +
                     " is no score threshold: give one in [0, 1)");
    c->threshold = d.threshold;
    c->class_thresholds.clear (); /* the property is every class's */
  }
  if (set ("nms-iou-threshold")) {
    if (!(d.nms_iou_threshold > 0.f && d.nms_iou_threshold <= 1.f))
      return refuse ("nms-iou-threshold=" + std::to_string (d.nms_iou_threshold) +
                     " is no IoU threshold: give one in (0, 1] (1: no suppression)");
    c->iou = d.nms_iou_threshold;
  }
  if (set ("max-detections"))
    c->max_detections = int (d.max_detections);
  if (set ("object-class"))
    return object_classes (d.object_class, s.labels, labels, &c->object_classes);
  return Status::Ok ();
}

}  // namespace

Status detect_config (const Settings &s, const DetectSettings &d, const std::vector<std::string> &labels,
                      detect::Config *out)
{
  const std::map<std::string, std::string> keys =
      s.modelinfo ? decoder_keys (*s.modelinfo) : decltype (keys) ();
  if (d.decoder == DecoderChoice::kAuto && !detect::names_a_detector (keys))
    return refuse ("No decoder for '" + s.model +
                   "': set the decoder property (yolo-anchors, yolov8 or ssd), or "
                   "dlainfer-decoder in the model's .modelinfo (docs/detection.md)");
  detect::Config c;
  Status st = detect::parse_config (keys, &c);
  if (st.ok ())
    st = apply_properties (s, d, labels, &c);
  if (st.ok ())
    *out = std::move (c);
  return st;
}

}  // namespace dlainfer
