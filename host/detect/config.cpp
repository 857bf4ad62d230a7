/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/detect/config.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <sstream>

#include "common/detect_plan.h"

namespace detect {
namespace {

using host::Code;
using host::Status;

/* Upstream 1.28's id of the post-DFL YOLOv8 tensor (its yolov8tensordec reads it). */
constexpr const char *kUpstreamYolov8Id = "yolo-v8-out";

std::vector<std::string> split (const std::string &s, char sep)
{
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in (s);
  while (std::getline (in, cur, sep)) {
    const size_t a = cur.find_first_not_of (" \t"), b = cur.find_last_not_of (" \t");
    out.push_back (a == std::string::npos ? "" : cur.substr (a, b - a + 1));
  }
  if (!s.empty () && s.back () == sep)
    out.push_back ("");
  return out;
}

Status bad (const std::string &key, const std::string &value, const std::string &takes)
{
  return Status::Error (Code::kSettings, "detection key " + key + "=" + value + ": " + takes);
}

bool to_float (const std::string &s, float *out)
{
  if (s.empty ())
    return false;
  char *end = nullptr;
  errno = 0;
  const double v = std::strtod (s.c_str (), &end);
  if (*end || errno || !std::isfinite (v))
    return false;
  *out = float (v);
  return true;
}

bool to_int (const std::string &s, int *out)
{
  if (s.empty ())
    return false;
  char *end = nullptr;
  errno = 0;
  const long v = std::strtol (s.c_str (), &end, 10);
  if (*end || errno || v < -(1l << 30) || v > (1l << 30))
    return false;
  *out = int (v);
  return true;
}

bool floats (const std::string &s, std::vector<float> *out)
{
  out->clear ();
  for (const std::string &t : split (s, ',')) {
    float v;
    if (!to_float (t, &v))
      return false;
    out->push_back (v);
  }
  return !out->empty ();
}

bool ints (const std::string &s, std::vector<int> *out)
{
  out->clear ();
  for (const std::string &t : split (s, ',')) {
    int v;
    if (!to_int (t, &v))
      return false;
    out->push_back (v);
  }
  return !out->empty ();
}

bool boolean (const std::string &s, bool *out)
{
  if (s == "true" || s == "1")
    *out = true;
  else if (s == "false" || s == "0")
    *out = false;
  else
    return false;
  return true;
}

/* One of the names in `names` (index into it). */
bool choice (const std::string &s, std::initializer_list<const char *> names, int *out)
{
  int i = 0;
  for (const char *n : names) {
    if (s == n) {
      *out = i;
      return true;
    }
    ++i;
  }
  return false;
}

Status parse_anchors (const std::string &key, const std::string &v, Config *c)
{
  c->anchors.clear ();
  for (const std::string &level : split (v, ';')) {
    std::vector<float> f;
    if (!floats (level, &f) || f.size () % 2 != 0)
      return bad (key, v, "per level an even count of numbers (w,h pairs), levels separated by ';'");
    std::vector<std::pair<float, float>> pairs;
    for (size_t i = 0; i < f.size (); i += 2) {
      if (!(f[i] > 0.f && f[i + 1] > 0.f))
        return bad (key, v, "anchor sizes must be positive");
      pairs.emplace_back (f[i], f[i + 1]);
    }
    c->anchors.push_back (pairs);
  }
  return Status::Ok ();
}

Status parse_ratios (const std::string &key, const std::string &v, Config *c)
{
  c->aspect_ratios.clear ();
  for (const std::string &level : split (v, ';')) {
    std::vector<float> f;
    if (!level.empty () && !floats (level, &f))
      return bad (key, v, "per level comma-separated positive ratios, levels separated by ';'");
    for (float r : f)
      if (!(r > 0.f))
        return bad (key, v, "aspect ratios must be positive");
    c->aspect_ratios.push_back (f);
  }
  return Status::Ok ();
}

Status parse_class_thresholds (const std::string &key, const std::string &v, Config *c)
{
  c->class_thresholds.clear ();
  for (const std::string &item : split (v, ',')) {
    const size_t colon = item.find (':');
    int cls;
    float t;
    if (colon == std::string::npos || !to_int (item.substr (0, colon), &cls) || cls < 0 ||
        !to_float (item.substr (colon + 1), &t) || t < 0.f || t >= 1.f)
      return bad (key, v, "class:threshold pairs, class >= 0, threshold in [0, 1)");
    c->class_thresholds.emplace_back (cls, t);
  }
  return Status::Ok ();
}

using Parser = std::function<Status (const std::string &, const std::string &, Config *)>;

Status parse_int (const std::string &key, const std::string &v, int lo, int hi, int *out)
{
  if (!to_int (v, out) || *out < lo || *out > hi)
    return bad (key, v, "an integer in " + std::to_string (lo) + ".." + std::to_string (hi));
  return Status::Ok ();
}

const std::map<std::string, Parser> &parsers ()
{
  static const std::map<std::string, Parser> p = {
      {"dlainfer-decoder",
       [] (const std::string &k, const std::string &v, Config *c) {
         int i;
         if (!choice (v, {"yolo-anchors", "yolov8", "ssd"}, &i))
           return bad (k, v, "yolo-anchors, yolov8 or ssd");
         c->family = Family (i);
         return Status::Ok ();
       }},
      {"dlainfer-box-formula",
       [] (const std::string &k, const std::string &v, Config *c) {
         int i;
         if (!choice (v, {"yolov2", "yolov5"}, &i))
           return bad (k, v, "yolov2 (s+cell, exp*anchor) or yolov5 ((2s-0.5)+cell, (2s)^2*anchor)");
         c->yolov5_box = i == 1;
         return Status::Ok ();
       }},
      {"dlainfer-class-activation",
       [] (const std::string &k, const std::string &v, Config *c) {
         int i;
         if (!choice (v, {"sigmoid", "softmax"}, &i))
           return bad (k, v, "sigmoid or softmax");
         c->softmax = i == 1;
         return Status::Ok ();
       }},
      {"dlainfer-decoded",
       [] (const std::string &k, const std::string &v, Config *c) {
         return boolean (v, &c->decoded) ? Status::Ok () : bad (k, v, "true or false");
       }},
      {"dlainfer-classes", [] (const std::string &k, const std::string &v,
                               Config *c) { return parse_int (k, v, 0, kMaxClasses, &c->classes); }},
      {"dlainfer-strides",
       [] (const std::string &k, const std::string &v, Config *c) {
         if (!ints (v, &c->strides))
           return bad (k, v, "comma-separated positive integers, one per level");
         for (int s : c->strides)
           if (s < 1)
             return bad (k, v, "strides must be positive");
         return Status::Ok ();
       }},
      {"dlainfer-anchors", parse_anchors},
      {"dlainfer-anchor-unit",
       [] (const std::string &k, const std::string &v, Config *c) {
         int i;
         if (!choice (v, {"pixels", "cells"}, &i))
           return bad (k, v, "pixels or cells");
         c->anchors_in_cells = i == 1;
         return Status::Ok ();
       }},
      {"dlainfer-reg-max", [] (const std::string &k, const std::string &v,
                               Config *c) { return parse_int (k, v, 1, 64, &c->reg_max); }},
      {"dlainfer-min-sizes",
       [] (const std::string &k, const std::string &v, Config *c) {
         return floats (v, &c->min_sizes) ? Status::Ok () : bad (k, v, "comma-separated sizes in pixels");
       }},
      {"dlainfer-max-sizes",
       [] (const std::string &k, const std::string &v, Config *c) {
         return floats (v, &c->max_sizes) ? Status::Ok () : bad (k, v, "comma-separated sizes in pixels");
       }},
      {"dlainfer-aspect-ratios", parse_ratios},
      {"dlainfer-flip",
       [] (const std::string &k, const std::string &v, Config *c) {
         return boolean (v, &c->flip) ? Status::Ok () : bad (k, v, "true or false");
       }},
      {"dlainfer-variances",
       [] (const std::string &k, const std::string &v, Config *c) {
         std::vector<float> f;
         if (!floats (v, &f) || f.size () != 4 || !(f[0] > 0 && f[1] > 0 && f[2] > 0 && f[3] > 0))
           return bad (k, v, "four positive numbers (x, y, w, h)");
         for (int i = 0; i < 4; ++i)
           c->variances[i] = f[i];
         return Status::Ok ();
       }},
      {"dlainfer-background-class",
       [] (const std::string &k, const std::string &v, Config *c) {
         return parse_int (k, v, -1, kMaxClasses - 1, &c->background);
       }},
      {"dlainfer-box-order",
       [] (const std::string &k, const std::string &v, Config *c) {
         int i;
         if (!choice (v, {"xywh", "yxhw"}, &i))
           return bad (k, v, "xywh (Caffe) or yxhw (TensorFlow)");
         c->yxhw = i == 1;
         return Status::Ok ();
       }},
      {"dlainfer-prior-offset",
       [] (const std::string &k, const std::string &v, Config *c) {
         if (!to_float (v, &c->prior_offset) || c->prior_offset < 0.f || c->prior_offset > 1.f)
           return bad (k, v, "a number in [0, 1]");
         return Status::Ok ();
       }},
      {"dlainfer-outputs",
       [] (const std::string &k, const std::string &v, Config *c) {
         c->outputs = split (v, ',');
         for (const std::string &s : c->outputs)
           if (s.empty ())
             return bad (k, v, "comma-separated output names in level order");
         return Status::Ok ();
       }},
      {"dlainfer-threshold",
       [] (const std::string &k, const std::string &v, Config *c) {
         if (!to_float (v, &c->threshold) || c->threshold < 0.f || c->threshold >= 1.f)
           return bad (k, v, "a score threshold in [0, 1)");
         return Status::Ok ();
       }},
      {"dlainfer-class-thresholds", parse_class_thresholds},
      {"dlainfer-object-classes",
       [] (const std::string &k, const std::string &v, Config *c) {
         if (!ints (v, &c->object_classes))
           return bad (k, v, "comma-separated class indices");
         for (int i : c->object_classes)
           if (i < 0 || i >= kMaxClasses)
             return bad (k, v, "class indices in 0.." + std::to_string (kMaxClasses - 1));
         return Status::Ok ();
       }},
      {"dlainfer-nms-iou-threshold",
       [] (const std::string &k, const std::string &v, Config *c) {
         if (!to_float (v, &c->iou) || !(c->iou > 0.f) || c->iou > 1.f)
           return bad (k, v, "an IoU in (0, 1] (1: no suppression)");
         return Status::Ok ();
       }},
      {"dlainfer-class-agnostic-nms",
       [] (const std::string &k, const std::string &v, Config *c) {
         return boolean (v, &c->class_agnostic) ? Status::Ok () : bad (k, v, "true or false");
       }},
      {"dlainfer-max-detections",
       [] (const std::string &k, const std::string &v, Config *c) {
         return parse_int (k, v, 1, kMaxDetections, &c->max_detections);
       }},
      {"dlainfer-max-candidates",
       [] (const std::string &k, const std::string &v, Config *c) {
         return parse_int (k, v, 1, kMaxCandidates, &c->max_candidates);
       }},
  };
  return p;
}

bool upstream_yolov8 (const std::map<std::string, std::string> &keys)
{
  const auto g = keys.find ("group-id");
  if (g != keys.end () && g->second == kUpstreamYolov8Id)
    return true;
  const auto t = keys.find ("tensor-ids");
  if (t == keys.end ())
    return false;
  for (const std::string &id : split (t->second, ','))
    if (id == kUpstreamYolov8Id)
      return true;
  return false;
}

}  // namespace

const char *family_name (Family f)
{
  switch (f) {
    case Family::kYoloAnchors:
      return "yolo-anchors";
    case Family::kYolov8:
      return "yolov8";
    case Family::kSsd:
      return "ssd";
  }
  return "unknown";
}

bool names_a_detector (const std::map<std::string, std::string> &keys)
{
  return keys.count ("dlainfer-decoder") || upstream_yolov8 (keys);
}

host::Status parse_config (const std::map<std::string, std::string> &keys, Config *out)
{
  Config c = *out;
  if (upstream_yolov8 (keys)) {
    c.family = Family::kYolov8;
    c.decoded = true;
  }
  for (const auto &kv : keys) {
    const auto p = parsers ().find (kv.first);
    if (p == parsers ().end ())
      continue;
    const Status s = p->second (kv.first, kv.second, &c);
    if (!s.ok ())
      return s;
  }
  *out = c;
  return Status::Ok ();
}

}  // namespace detect
