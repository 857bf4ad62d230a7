/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/detect/plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include "host/detect/plan_support.h"

namespace detect {

using host::Code;
using host::Status;
using plan_support::describe;
using plan_support::fits_channels;
using plan_support::model_error;

namespace {

/* Level l's stride along one axis: given (YOLO: the grid must be input / stride exactly), or the
 * input over the grid. */
Status level_stride (const Config &c, const ModelTensors &m, int l, const host::TensorDesc &d, Level *lv)
{
  const bool exact = c.family != Family::kSsd;
  if (l < int (c.strides.size ())) {
    const int s = c.strides[size_t (l)];
    lv->stride_x = lv->stride_y = float (s);
    if (exact && (int64_t (m.input_width) != d.view.w * s || int64_t (m.input_height) != d.view.h * s))
      return model_error (c,
                          "level " + std::to_string (l) + " (stride " + std::to_string (s) + ") expects a " +
                              std::to_string (m.input_height / s) + "x" + std::to_string (m.input_width / s) +
                              " grid for the " + std::to_string (m.input_height) + "x" +
                              std::to_string (m.input_width) + " input, but output " + describe (d) + " is " +
                              std::to_string (d.view.h) + "x" + std::to_string (d.view.w),
                          "dlainfer-strides");
    return Status::Ok ();
  }
  lv->stride_x = float (m.input_width) / float (d.view.w);
  lv->stride_y = float (m.input_height) / float (d.view.h);
  if (exact && (m.input_width % d.view.w || m.input_height % d.view.h || lv->stride_x != lv->stride_y))
    return model_error (c,
                        "level " + std::to_string (l) + ": output " + describe (d) +
                            " is no whole stride of the " + std::to_string (m.input_height) + "x" +
                            std::to_string (m.input_width) + " input",
                        "dlainfer-strides");
  return Status::Ok ();
}

/* A level's classes from an output's channels (per anchor), agreeing with the other levels'. */
Status resolve_classes (const Config &c, const host::TensorDesc &d, int64_t per_anchor_total, int64_t fixed,
                        int anchors, int *classes)
{
  if (*classes >= 0)
    return Status::Ok ();
  if (per_anchor_total % anchors != 0 || per_anchor_total / anchors < fixed)
    return model_error (c,
                        "cannot tell the class count from output " + describe (d) + " with " +
                            std::to_string (anchors) + " anchors (a padded descriptor?)",
                        "dlainfer-classes");
  *classes = int (per_anchor_total / anchors - fixed);
  return Status::Ok ();
}

Status plan_yolo_anchors (const Config &c, const ModelTensors &m, const std::vector<std::vector<int>> &lv,
                          Plan *p)
{
  int classes = c.classes;
  for (size_t l = 0; l < lv.size (); ++l) {
    if (lv[l].size () != 1)
      return model_error (c, "level " + std::to_string (l) + " needs one output per level",
                          "dlainfer-outputs");
    const host::TensorDesc &d = m.outputs[size_t (lv[l][0])];
    Level &L = p->level[l];
    L.anchors = int (c.anchors[l].size ());
    Status s = resolve_classes (c, d, d.view.c, 5, L.anchors, &classes);
    if (s.ok ())
      s = level_stride (c, m, int (l), d, &L);
    if (!s.ok ())
      return s;
    const int64_t want = int64_t (L.anchors) * (5 + classes);
    if (!fits_channels (d.view, want))
      return model_error (c,
                          "level " + std::to_string (l) + " expects " + std::to_string (want) +
                              " channels (" + std::to_string (L.anchors) + " anchors x (5 + " +
                              std::to_string (classes) + " classes)), but output " + describe (d) + " has " +
                              std::to_string (d.view.c),
                          "dlainfer-anchors or dlainfer-classes");
    p->output[lv[l][0]].c = want;
    for (int a = 0; a < L.anchors; ++a) {
      const float unit = c.anchors_in_cells ? L.stride_x : 1.f,
                  unit_y = c.anchors_in_cells ? L.stride_y : 1.f;
      L.anchor_w[a] = c.anchors[l][size_t (a)].first * unit;
      L.anchor_h[a] = c.anchors[l][size_t (a)].second * unit_y;
    }
    L.offset = 0.f;
    L.box = Field{lv[l][0], 0, 5 + classes};
    L.obj = Field{lv[l][0], 4, 5 + classes};
    L.cls = Field{lv[l][0], 5, 5 + classes};
  }
  p->classes = classes;
  p->box = c.yolov5_box ? Box::kYoloV5 : Box::kYoloV2;
  p->scores = c.softmax ? Scores::kObjSoftmax : Scores::kObjSigmoid;
  return Status::Ok ();
}

/* Splits a level's one or two outputs into (box, class) given the box channel count. */
Status split_pair (const Config &c, const ModelTensors &m, const std::vector<int> &outs, int l,
                   int64_t box_ch, int *box, int *cls)
{
  if (outs.size () == 1) {
    *box = *cls = outs[0];
    return Status::Ok ();
  }
  if (outs.size () != 2)
    return model_error (c,
                        "level " + std::to_string (l) + " has " + std::to_string (outs.size ()) +
                            " outputs; it takes one (box and class channels) or two (box, class)",
                        "dlainfer-outputs");
  const tensor::View &a = m.outputs[size_t (outs[0])].view, &b = m.outputs[size_t (outs[1])].view;
  const bool named = !c.outputs.empty ();
  const bool a_box = fits_channels (a, box_ch), b_box = fits_channels (b, box_ch);
  if (named || (a_box && !b_box)) {
    *box = outs[0];
    *cls = outs[1];
  } else if (b_box && !a_box) {
    *box = outs[1];
    *cls = outs[0];
  } else {
    return model_error (c,
                        "level " + std::to_string (l) + ": cannot tell the box output (" +
                            std::to_string (box_ch) + " channels) between " +
                            describe (m.outputs[size_t (outs[0])]) + " and " +
                            describe (m.outputs[size_t (outs[1])]),
                        "dlainfer-outputs (box before class)");
  }
  return Status::Ok ();
}

/* Checks a level's box and class channels (fused: box then class in one output). */
Status check_pair (const Config &c, const ModelTensors &m, Plan *p, int l, int box, int cls, int64_t box_ch,
                   int64_t cls_ch)
{
  const host::TensorDesc &db = m.outputs[size_t (box)], &dc = m.outputs[size_t (cls)];
  const std::string what = "level " + std::to_string (l) + " expects ";
  if (box == cls) {
    if (!fits_channels (db.view, box_ch + cls_ch))
      return model_error (c,
                          what + std::to_string (box_ch) + " box + " + std::to_string (cls_ch) +
                              " class channels, but output " + describe (db) + " has " +
                              std::to_string (db.view.c),
                          "dlainfer-classes");
    p->output[box].c = box_ch + cls_ch;
    return Status::Ok ();
  }
  if (!fits_channels (db.view, box_ch))
    return model_error (c,
                        what + std::to_string (box_ch) + " box channels, but output " + describe (db) +
                            " has " + std::to_string (db.view.c),
                        "dlainfer-reg-max or dlainfer-anchors");
  if (!fits_channels (dc.view, cls_ch))
    return model_error (c,
                        what + std::to_string (cls_ch) + " class channels, but output " + describe (dc) +
                            " has " + std::to_string (dc.view.c),
                        "dlainfer-classes");
  if (db.view.h != dc.view.h || db.view.w != dc.view.w)
    return model_error (c,
                        "level " + std::to_string (l) + ": box output " + describe (db) +
                            " and class output " + describe (dc) + " differ in grid",
                        "dlainfer-outputs");
  p->output[box].c = box_ch;
  p->output[cls].c = cls_ch;
  return Status::Ok ();
}

Status plan_yolov8 (const Config &c, const ModelTensors &m, const std::vector<std::vector<int>> &lv, Plan *p)
{
  int classes = c.classes;
  const int64_t box_ch = 4 * int64_t (c.reg_max);
  for (size_t l = 0; l < lv.size (); ++l) {
    int box = 0, cls = 0;
    Status s = split_pair (c, m, lv[l], int (l), box_ch, &box, &cls);
    const host::TensorDesc &dc = m.outputs[size_t (cls)];
    if (s.ok ())
      s = resolve_classes (c, dc, box == cls ? dc.view.c : dc.view.c + box_ch, box_ch, 1, &classes);
    Level &L = p->level[l];
    if (s.ok ())
      s = level_stride (c, m, int (l), m.outputs[size_t (box)], &L);
    if (s.ok ())
      s = check_pair (c, m, p, int (l), box, cls, box_ch, classes);
    if (!s.ok ())
      return s;
    L.anchors = 1;
    L.offset = 0.5f;
    L.box = Field{box, 0, 0};
    L.obj = Field{-1, 0, 0};
    L.cls = Field{cls, box == cls ? int32_t (box_ch) : 0, 0};
  }
  p->classes = classes;
  p->reg_max = c.reg_max;
  p->box = Box::kDfl;
  p->scores = Scores::kSigmoid;
  return Status::Ok ();
}

Status plan_decoded (const Config &c, const ModelTensors &m, Plan *p)
{
  if (m.outputs.size () != 1)
    return model_error (c,
                        "the post-DFL tensor [1, 4 + C, N] is one output, but the model has " +
                            plan_support::list_outputs (m),
                        "dlainfer-decoded=false for the raw heads");
  const host::TensorDesc &d = m.outputs[0];
  int classes = c.classes;
  Status s = resolve_classes (c, d, d.view.c, 4, 1, &classes);
  if (s.ok () && !fits_channels (d.view, 4 + int64_t (classes)))
    s = model_error (c,
                     "expects 4 + " + std::to_string (classes) + " channels, but output " + describe (d) +
                         " has " + std::to_string (d.view.c),
                     "dlainfer-classes");
  if (!s.ok ())
    return s;
  p->output[0].c = 4 + classes;
  Level &L = p->level[0];
  L.h = int32_t (d.view.h);
  L.w = int32_t (d.view.w);
  L.stride_x = L.stride_y = 1.f;
  L.anchors = 1;
  L.box = Field{0, 0, 0};
  L.obj = Field{-1, 0, 0};
  L.cls = Field{0, 4, 0};
  p->levels = 1;
  p->classes = classes;
  p->box = Box::kDecoded;
  p->scores = Scores::kProbability;
  return Status::Ok ();
}

Status plan_ssd (const Config &c, const ModelTensors &m, const std::vector<std::vector<int>> &lv, Plan *p)
{
  int classes = c.classes;
  for (size_t l = 0; l < lv.size (); ++l) {
    Level &L = p->level[l];
    const auto priors =
        c.anchors.empty ()
            ? ssd_priors (c.min_sizes[l], c.max_sizes.empty () ? 0.f : c.max_sizes[l],
                          l < c.aspect_ratios.size () ? c.aspect_ratios[l] : std::vector<float>{}, c.flip)
            : c.anchors[l];
    if (priors.size () > size_t (kMaxAnchors))
      return plan_support::settings_error (c, "level " + std::to_string (l) + " has " +
                                                  std::to_string (priors.size ()) + " priors; at most " +
                                                  std::to_string (kMaxAnchors));
    L.anchors = int (priors.size ());
    for (int a = 0; a < L.anchors; ++a) {
      L.anchor_w[a] = priors[size_t (a)].first;
      L.anchor_h[a] = priors[size_t (a)].second;
    }
    const int64_t box_ch = 4 * int64_t (L.anchors);
    int box = 0, cls = 0;
    Status s = split_pair (c, m, lv[l], int (l), box_ch, &box, &cls);
    const host::TensorDesc &dc = m.outputs[size_t (cls)];
    if (s.ok ())
      s = resolve_classes (c, dc, box == cls ? dc.view.c - box_ch : dc.view.c, 0, L.anchors, &classes);
    if (s.ok ())
      s = level_stride (c, m, int (l), m.outputs[size_t (box)], &L);
    if (s.ok ())
      s = check_pair (c, m, p, int (l), box, cls, box_ch, int64_t (L.anchors) * classes);
    if (!s.ok ())
      return s;
    L.offset = c.prior_offset;
    L.box = Field{box, 0, 4};
    L.obj = Field{-1, 0, 0};
    L.cls = Field{cls, box == cls ? int32_t (box_ch) : 0, classes};
  }
  p->classes = classes;
  p->background = c.background;
  p->yxhw = c.yxhw;
  for (int i = 0; i < 4; ++i)
    p->variance[i] = c.variances[i];
  p->box = Box::kSsd;
  p->scores = c.softmax ? Scores::kSoftmax : Scores::kSigmoid;
  return Status::Ok ();
}

/* The family's levels over the model's outputs. */
Status plan_levels (const Config &c, const ModelTensors &m, Plan *p)
{
  if (c.family == Family::kYolov8 && c.decoded)
    return plan_decoded (c, m, p);
  std::vector<std::vector<int>> lv;
  Status s = plan_support::level_count_ok (c);
  if (s.ok ())
    s = plan_support::assign_outputs (c, m, plan_support::level_count (c, m), &lv);
  if (!s.ok ())
    return s;
  p->levels = int (lv.size ());
  for (size_t l = 0; l < lv.size (); ++l) {
    p->level[l].h = int32_t (m.outputs[size_t (lv[l][0])].view.h);
    p->level[l].w = int32_t (m.outputs[size_t (lv[l][0])].view.w);
  }
  switch (c.family) {
    case Family::kYoloAnchors:
      return plan_yolo_anchors (c, m, lv, p);
    case Family::kYolov8:
      return plan_yolov8 (c, m, lv, p);
    case Family::kSsd:
      return plan_ssd (c, m, lv, p);
  }
  return Status::Ok ();
}

}  // namespace

std::vector<std::pair<float, float>> ssd_priors (float min_size, float max_size,
                                                 const std::vector<float> &ratios, bool flip)
{
  std::vector<std::pair<float, float>> out{{min_size, min_size}};
  if (max_size > 0.f) {
    const float s = std::sqrt (min_size * max_size);
    out.emplace_back (s, s);
  }
  for (float r : ratios) {
    if (std::fabs (r - 1.f) < 1e-6f)
      continue;
    const float q = std::sqrt (r);
    out.emplace_back (min_size * q, min_size / q);
    if (flip)
      out.emplace_back (min_size / q, min_size * q);
  }
  return out;
}

Status build_plan (const Config &config, const ModelTensors &model, Plan *out)
{
  Status s = plan_support::check_model (config, model);
  if (!s.ok ())
    return s;
  auto p = std::make_unique<Plan> ();
  *p = Plan{};
  p->background = -1;
  p->outputs = int32_t (model.outputs.size ());
  for (size_t o = 0; o < model.outputs.size (); ++o) {
    p->output[o] = model.outputs[o].view;
    p->output_scale[o] = o < model.output_scales.size () ? model.output_scales[o] : 0.f;
  }
  s = plan_levels (config, model, p.get ());
  if (s.ok ())
    s = plan_support::finish (config, model, p.get ());
  if (s.ok ())
    *out = *p;
  return s;
}

}  // namespace detect
