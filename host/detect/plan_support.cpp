/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/detect/plan_support.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace detect {
namespace plan_support {

using host::Code;
using host::Status;

std::string describe (const host::TensorDesc &d)
{
  const tensor::View &v = d.view;
  return "'" + d.name + "' (" + tensor::elem_type_name (v.type) + " " + tensor::layout_name (v.layout) + " " +
         std::to_string (v.n) + "x" + std::to_string (v.c) + "x" + std::to_string (v.h) + "x" +
         std::to_string (v.w) + ")";
}

std::string list_outputs (const ModelTensors &m)
{
  std::string s = std::to_string (m.outputs.size ()) + (m.outputs.size () == 1 ? " output: " : " outputs: ");
  for (size_t i = 0; i < m.outputs.size (); ++i)
    s += (i ? ", " : "") + describe (m.outputs[i]);
  return s;
}

Status model_error (const Config &c, const std::string &what, const std::string &key)
{
  return Status::Error (Code::kModel, std::string (family_name (c.family)) + " decoder: " + what +
                                          "; use a loadable whose outputs match or set " + key);
}

Status settings_error (const Config &c, const std::string &what)
{
  return Status::Error (Code::kSettings, std::string (family_name (c.family)) + " decoder: " + what);
}

bool fits_channels (const tensor::View &v, int64_t expected)
{
  return v.c == expected || (v.c > expected && v.c == tensor::round_up (expected, v.lanes));
}

Status check_model (const Config &c, const ModelTensors &m)
{
  if (m.input_width < 1 || m.input_height < 1)
    return settings_error (c, "the input size is unknown (" + std::to_string (m.input_width) + "x" +
                                  std::to_string (m.input_height) + ")");
  if (m.outputs.empty () || m.outputs.size () > size_t (kMaxOutputs))
    return model_error (c,
                        "the model has " + std::to_string (m.outputs.size ()) +
                            " outputs; a detector has 1.." + std::to_string (kMaxOutputs),
                        "dlainfer-decoder");
  for (size_t o = 0; o < m.outputs.size (); ++o) {
    const float scale = o < m.output_scales.size () ? m.output_scales[o] : 0.f;
    if (m.outputs[o].view.type == tensor::ElemType::kInt8 && !(scale > 0.f && std::isfinite (scale)))
      return settings_error (c, "INT8 output " + describe (m.outputs[o]) +
                                    " needs its scale (output-scale, from the calibration cache)");
  }
  return Status::Ok ();
}

Status level_count_ok (const Config &c)
{
  size_t levels = 0;
  switch (c.family) {
    case Family::kYoloAnchors:
      if (c.anchors.empty ())
        return settings_error (c,
                               "dlainfer-anchors is not set (per level w,h pairs, levels separated by ';')");
      levels = c.anchors.size ();
      break;
    case Family::kSsd:
      if (c.anchors.empty () && c.min_sizes.empty ())
        return settings_error (c, "neither dlainfer-min-sizes nor dlainfer-anchors is set: no priors");
      levels = c.anchors.empty () ? c.min_sizes.size () : c.anchors.size ();
      if (!c.max_sizes.empty () && c.max_sizes.size () != c.min_sizes.size ())
        return settings_error (c, "dlainfer-max-sizes has " + std::to_string (c.max_sizes.size ()) +
                                      " values for " + std::to_string (c.min_sizes.size ()) + " min sizes");
      if (!c.aspect_ratios.empty () && c.aspect_ratios.size () != levels)
        return settings_error (c, "dlainfer-aspect-ratios has " + std::to_string (c.aspect_ratios.size ()) +
                                      " levels for " + std::to_string (levels));
      break;
    case Family::kYolov8:
      levels = c.strides.size ();
      break;
  }
  if (levels > size_t (kMaxLevels))
    return settings_error (c, std::to_string (levels) + " levels; at most " + std::to_string (kMaxLevels));
  if (!c.strides.empty () && levels && c.strides.size () != levels)
    return settings_error (c, "dlainfer-strides has " + std::to_string (c.strides.size ()) + " values for " +
                                  std::to_string (levels) + " levels");
  for (const auto &a : c.anchors)
    if (a.empty () || a.size () > size_t (kMaxAnchors))
      return settings_error (
          c, "a level has " + std::to_string (a.size ()) + " anchors; 1.." + std::to_string (kMaxAnchors));
  return Status::Ok ();
}

namespace {

/* Distinct grids of the outputs, finest first, each with its outputs in model order. */
std::vector<std::vector<int>> by_grid (const ModelTensors &m)
{
  std::vector<std::pair<int64_t, int64_t>> grids;
  for (const host::TensorDesc &d : m.outputs)
    if (std::find (grids.begin (), grids.end (), std::make_pair (d.view.h, d.view.w)) == grids.end ())
      grids.emplace_back (d.view.h, d.view.w);
  std::stable_sort (grids.begin (), grids.end (),
                    [] (const auto &a, const auto &b) { return a.first * a.second > b.first * b.second; });
  std::vector<std::vector<int>> out (grids.size ());
  for (size_t g = 0; g < grids.size (); ++g)
    for (size_t o = 0; o < m.outputs.size (); ++o)
      if (std::make_pair (m.outputs[o].view.h, m.outputs[o].view.w) == grids[g])
        out[g].push_back (int (o));
  return out;
}

Status by_name (const Config &c, const ModelTensors &m, int levels, std::vector<std::vector<int>> *out)
{
  std::vector<int> idx;
  for (const std::string &n : c.outputs) {
    auto it = std::find_if (m.outputs.begin (), m.outputs.end (),
                            [&] (const host::TensorDesc &d) { return d.name == n; });
    if (it == m.outputs.end ())
      return model_error (
          c, "dlainfer-outputs names '" + n + "', which the model lacks (" + list_outputs (m) + ")",
          "dlainfer-outputs");
    idx.push_back (int (it - m.outputs.begin ()));
  }
  const size_t per = levels > 0 && idx.size () == 2 * size_t (levels) ? 2 : 1;
  if (levels < 1 || idx.size () != per * size_t (levels) || (per == 2 && c.family == Family::kYoloAnchors))
    return settings_error (c, "dlainfer-outputs has " + std::to_string (idx.size ()) + " names for " +
                                  std::to_string (levels) +
                                  " levels (one per level, or box and class per level)");
  out->assign (size_t (levels), {});
  for (size_t i = 0; i < idx.size (); ++i)
    (*out)[i / per].push_back (idx[i]);
  return Status::Ok ();
}

}  // namespace

int level_count (const Config &c, const ModelTensors &m)
{
  switch (c.family) {
    case Family::kYoloAnchors:
      return int (c.anchors.size ());
    case Family::kSsd:
      return int (c.anchors.empty () ? c.min_sizes.size () : c.anchors.size ());
    case Family::kYolov8:
      break;
  }
  if (!c.strides.empty ())
    return int (c.strides.size ());
  if (!c.outputs.empty ()) {
    std::set<std::pair<int64_t, int64_t>> grids;
    for (const std::string &n : c.outputs)
      for (const host::TensorDesc &d : m.outputs)
        if (d.name == n)
          grids.emplace (d.view.h, d.view.w);
    return int (grids.size ());
  }
  return int (by_grid (m).size ());
}

Status assign_outputs (const Config &c, const ModelTensors &m, int levels, std::vector<std::vector<int>> *out)
{
  if (!c.outputs.empty ()) {
    const Status s = by_name (c, m, levels, out);
    if (!s.ok ())
      return s;
  } else {
    *out = by_grid (m);
    if (int (out->size ()) != levels)
      return model_error (c,
                          "expects " + std::to_string (levels) +
                              " levels (output grids), but the model has " + std::to_string (out->size ()) +
                              " grids in its " + list_outputs (m),
                          c.family == Family::kYolov8 ? "dlainfer-strides" : "the levels' keys");
  }
  if (out->size () > size_t (kMaxLevels))
    return model_error (c, std::to_string (out->size ()) + " levels; at most " + std::to_string (kMaxLevels),
                        "dlainfer-outputs");
  std::vector<int> uses (m.outputs.size (), 0);
  for (const auto &l : *out)
    for (int o : l)
      ++uses[size_t (o)];
  for (size_t o = 0; o < uses.size (); ++o)
    if (uses[o] != 1)
      return model_error (c,
                          "output " + describe (m.outputs[o]) + " is read by " + std::to_string (uses[o]) +
                              " levels, not one",
                          "dlainfer-outputs");
  return Status::Ok ();
}

namespace {

Status fill_thresholds (const Config &c, Plan *p)
{
  const int n = std::max (p->classes, 1);
  if (p->classes > kMaxClasses)
    return settings_error (c,
                           std::to_string (p->classes) + " classes; at most " + std::to_string (kMaxClasses));
  if (p->background >= n)
    return settings_error (c, "dlainfer-background-class " + std::to_string (p->background) +
                                  " is not among the " + std::to_string (n) + " class channels");
  for (int i = 0; i < kMaxClasses; ++i)
    p->threshold[i] = i < n ? c.threshold : 2.f;
  for (const auto &ct : c.class_thresholds) {
    if (ct.first >= n)
      return settings_error (c, "dlainfer-class-thresholds names class " + std::to_string (ct.first) +
                                    " of " + std::to_string (n));
    p->threshold[ct.first] = ct.second;
  }
  if (!c.object_classes.empty ()) {
    std::vector<float> kept (size_t (n), 2.f);
    for (int k : c.object_classes) {
      if (k >= n)
        return settings_error (
            c, "dlainfer-object-classes names class " + std::to_string (k) + " of " + std::to_string (n));
      kept[size_t (k)] = p->threshold[k];
    }
    std::copy (kept.begin (), kept.end (), p->threshold);
  }
  if (p->background >= 0)
    p->threshold[p->background] = 2.f;
  float lowest = 2.f;
  for (int i = 0; i < n; ++i)
    lowest = std::min (lowest, p->threshold[i]);
  if (lowest >= 1.f)
    return settings_error (c, "no class can be reported (dlainfer-object-classes, background)");
  p->min_logit = p->scores == Scores::kProbability ? lowest
                 : lowest <= 0.f                   ? -INFINITY
                                                   : std::log (lowest / (1.f - lowest));
  return Status::Ok ();
}

}  // namespace

Status finish (const Config &c, const ModelTensors &m, Plan *p)
{
  (void)m;
  const Status s = fill_thresholds (c, p);
  if (!s.ok ())
    return s;
  int64_t first = 0;
  for (int l = 0; l < p->levels; ++l) {
    p->level[l].first = int32_t (first);
    first += int64_t (p->level[l].anchors) * p->level[l].h * p->level[l].w;
    if (first > kMaxCandidateIndex)
      return model_error (c,
                          std::to_string (first) + "+ candidates; a frame decodes at most " +
                              std::to_string (kMaxCandidateIndex),
                          "a smaller input");
  }
  p->candidates = int32_t (first);
  p->iou = c.iou;
  p->class_agnostic = c.class_agnostic;
  p->max_candidates = c.max_candidates;
  p->max_detections = c.max_detections;
  return Status::Ok ();
}

}  // namespace plan_support
}  // namespace detect
