/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: one detection candidate, from its channels in the outputs' DLA layout to a scored
 * box in tensor pixels, for host and device (docs/detection.md has the formulas and their sources).
 * The CPU reference and the GPU kernel differ in how candidates are gathered, ordered and
 * suppressed, not in this arithmetic; the independent check of it is the NumPy decoder
 * (tests/host/detect_oracle.py).
 *
 * Rejection happens on the deciding logit before any exp: with t the lowest class threshold,
 * s(obj) * p <= s(obj), s(obj) * s(c) <= min (s(obj), s(c)) and softmax(l)[c] <= s(l_c - l_bg), so a
 * logit <= logit (t) cannot pass.
 */
#pragma once

#include <cmath>

#include "common/detect_plan.h"
#include "common/numeric.h"

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#endif

namespace detect {

/* A candidate before suppression: box in tensor pixels (unclipped), canonical index for ties. */
struct Candidate {
  float x0, y0, x1, y1;
  float score;
  int32_t cls;
  int32_t index;
  int32_t reserved;
};

TENSOR_HD float exp_f (float v)
{
#if defined(__CUDA_ARCH__)
  return expf (v);
#else
  return std::exp (v);
#endif
}

TENSOR_HD float sigmoid (float v)
{
  return 1.f / (1.f + exp_f (-v));
}

/* Where channel ch at (y, x) of output o is: tensor::View::offset with the channel split in 32 bits
 * (a 64-bit division is a long subroutine on the GPU). */
TENSOR_HD const uint8_t *channel_address (const Plan &p, const Frame &f, int o, int ch, int y, int x)
{
  const tensor::View &v = p.output[o];
  const int32_t g = ch / v.lanes, in_group = ch - g * v.lanes;
  const int64_t off = int64_t (f.batch) * v.batch_stride + int64_t (g) * v.plane_stride +
                      int64_t (y) * v.row_stride + int64_t (x) * v.pixel_stride () +
                      int64_t (in_group) * tensor::elem_size (v.type);
  return static_cast<const uint8_t *> (f.outputs[o]) + off;
}

/* Channel ch at (y, x) of output o as float: FP16 widened, INT8 times its scale. */
TENSOR_HD float value_at (const Plan &p, const Frame &f, int o, int ch, int y, int x)
{
  const uint8_t *b = channel_address (p, f, o, ch, y, x);
  if (p.output[o].type == tensor::ElemType::kInt8)
    return float (int8_t (*b)) * p.output_scale[o];
#if defined(__CUDA_ARCH__)
  return __half2float (__ushort_as_half (*reinterpret_cast<const unsigned short *> (b)));
#else
  return tensor::half_to_float (*reinterpret_cast<const uint16_t *> (b));
#endif
}

/* Field k of anchor a at (y, x). */
TENSOR_HD float field_at (const Plan &p, const Frame &f, const Field &fd, int a, int k, int y, int x)
{
  return value_at (p, f, fd.output, fd.channel0 + a * fd.anchor_stride + k, y, x);
}

/* The best class channel (the first of equal maxima), skipping the background, over any source of
 * class values. */
template <class Src>
TENSOR_HD int best_class_in (const Plan &p, const Src &s, float *best)
{
  int cls = -1;
  float m = 0.f;
  for (int c = 0; c < p.classes; ++c) {
    if (c == p.background)
      continue;
    const float v = s.cls (c);
    if (cls < 0 || v > m) {
      m = v;
      cls = c;
    }
  }
  *best = m;
  return cls;
}

/* One candidate's channels read from the outputs in their DLA layout. The math below reads a
 * candidate through such a source: the GPU also gives it channels staged in shared memory (with the
 * best class found by a warp), so both run the same arithmetic in the same order. */
struct TensorSource {
  const Plan &p;
  const Frame &f;
  const Level &l;
  int a, y, x;
  TENSOR_HD float obj () const { return field_at (p, f, l.obj, a, 0, y, x); }
  TENSOR_HD float cls (int c) const { return field_at (p, f, l.cls, a, c, y, x); }
  /* Box field k (DFL: bin k of the 4 * reg_max; anchor-free levels have a = 0). */
  TENSOR_HD float box (int k) const { return field_at (p, f, l.box, a, k, y, x); }
  TENSOR_HD int best_class (float *best) const { return best_class_in (p, *this, best); }
};

/* softmax (class channels)[cls] given their maximum m (max over all, background included). */
template <class Src>
TENSOR_HD float softmax_at (const Plan &p, const Src &s, float top, float m)
{
  float sum = 0.f;
  for (int c = 0; c < p.classes; ++c)
    sum += exp_f (s.cls (c) - m);
  return exp_f (top - m) / sum;
}

/* The score and class of a candidate, or false when it is rejected. */
template <class Src>
TENSOR_HD bool score_of (const Plan &p, const Src &s, float *score, int *cls)
{
  float obj = 1.f, top = 0.f;
  if (p.scores == Scores::kObjSigmoid || p.scores == Scores::kObjSoftmax) {
    const float lo = s.obj ();
    if (lo <= p.min_logit)
      return false;
    obj = sigmoid (lo);
    if (p.classes == 0) {
      *cls = 0;
      *score = obj;
      return obj > p.threshold[0];
    }
  }
  *cls = s.best_class (&top);
  switch (p.scores) {
    case Scores::kObjSigmoid:
    case Scores::kSigmoid:
      if (top <= p.min_logit)
        return false;
      *score = obj * sigmoid (top);
      break;
    case Scores::kObjSoftmax:
      *score = obj * softmax_at (p, s, top, top);
      break;
    case Scores::kSoftmax: {
      float m = top;
      if (p.background >= 0) {
        const float bg = s.cls (p.background);
        if (top - bg <= p.min_logit)
          return false;
        m = bg > top ? bg : top;
      }
      *score = softmax_at (p, s, top, m);
      break;
    }
    case Scores::kProbability:
      if (top <= p.min_logit)
        return false;
      *score = top;
      break;
  }
  return *score > p.threshold[*cls];
}

/* Box channels a candidate reads: 4 * reg_max DFL bins, else 4 values. */
TENSOR_HD int box_fields (const Plan &p)
{
  return p.box == Box::kDfl ? 4 * p.reg_max : 4;
}

/* DFL: the expectation of bin index under a softmax over reg_max bins of side `side`. */
template <class Src>
TENSOR_HD float dfl_side (const Plan &p, const Src &s, int side)
{
  float m = s.box (side * p.reg_max);
  for (int b = 1; b < p.reg_max; ++b) {
    const float v = s.box (side * p.reg_max + b);
    m = v > m ? v : m;
  }
  float sum = 0.f, acc = 0.f;
  for (int b = 0; b < p.reg_max; ++b) {
    const float e = exp_f (s.box (side * p.reg_max + b) - m);
    sum += e;
    acc += e * float (b);
  }
  return acc / sum;
}

/* The box of an accepted candidate (anchor a at cell (y, x) of level l) in tensor pixels. */
template <class Src>
TENSOR_HD void box_of (const Plan &p, const Level &l, const Src &s, int a, int y, int x, Candidate *c)
{
  float cx, cy, w, h;
  if (p.box == Box::kDfl) {
    const float ax = float (x) + l.offset, ay = float (y) + l.offset;
    c->x0 = (ax - dfl_side (p, s, 0)) * l.stride_x;
    c->y0 = (ay - dfl_side (p, s, 1)) * l.stride_y;
    c->x1 = (ax + dfl_side (p, s, 2)) * l.stride_x;
    c->y1 = (ay + dfl_side (p, s, 3)) * l.stride_y;
    return;
  }
  float t[4];
  for (int k = 0; k < 4; ++k)
    t[k] = s.box (k);
  switch (p.box) {
    case Box::kYoloV2:
      cx = (float (x) + sigmoid (t[0])) * l.stride_x;
      cy = (float (y) + sigmoid (t[1])) * l.stride_y;
      w = exp_f (t[2]) * l.anchor_w[a];
      h = exp_f (t[3]) * l.anchor_h[a];
      break;
    case Box::kYoloV5: {
      cx = (float (x) + 2.f * sigmoid (t[0]) - 0.5f) * l.stride_x;
      cy = (float (y) + 2.f * sigmoid (t[1]) - 0.5f) * l.stride_y;
      const float sw = 2.f * sigmoid (t[2]), sh = 2.f * sigmoid (t[3]);
      w = sw * sw * l.anchor_w[a];
      h = sh * sh * l.anchor_h[a];
      break;
    }
    case Box::kSsd: {
      const int ix = p.yxhw ? 1 : 0, iy = 1 - ix, iw = p.yxhw ? 3 : 2, ih = 5 - iw;
      const float pw = l.anchor_w[a], ph = l.anchor_h[a];
      cx = (float (x) + l.offset) * l.stride_x + t[ix] * p.variance[0] * pw;
      cy = (float (y) + l.offset) * l.stride_y + t[iy] * p.variance[1] * ph;
      w = pw * exp_f (t[iw] * p.variance[2]);
      h = ph * exp_f (t[ih] * p.variance[3]);
      break;
    }
    default: /* kDecoded */
      cx = t[0];
      cy = t[1];
      w = t[2];
      h = t[3];
      break;
  }
  c->x0 = cx - 0.5f * w;
  c->y0 = cy - 0.5f * h;
  c->x1 = cx + 0.5f * w;
  c->y1 = cy + 0.5f * h;
}

/* Where candidate i (0 <= i < p.candidates) is: its level (levels are few: a scan), anchor, cell. */
struct Where {
  int level, a, y, x;
};

TENSOR_HD Where where_of (const Plan &p, int32_t i)
{
  Where w{0, 0, 0, 0};
  while (w.level + 1 < p.levels && i >= p.level[w.level + 1].first)
    ++w.level;
  const Level &l = p.level[w.level];
  int32_t r = i - l.first;
  w.x = int (r % l.w);
  r /= l.w;
  w.y = int (r % l.h);
  w.a = int (r / l.h);
  return w;
}

/* Candidate i at `w`, its channels from `s`: true and *c filled when it passes its threshold. */
template <class Src>
TENSOR_HD bool decode_from (const Plan &p, const Src &s, int32_t i, const Where &w, Candidate *c)
{
  if (!score_of (p, s, &c->score, &c->cls))
    return false;
  box_of (p, p.level[w.level], s, w.a, w.y, w.x, c);
  c->index = i;
  return true;
}

/* Candidate i (0 <= i < p.candidates): true and *c filled when it passes its class threshold. */
TENSOR_HD bool decode_candidate (const Plan &p, const Frame &f, int32_t i, Candidate *c)
{
  const Where w = where_of (p, i);
  const TensorSource s{p, f, p.level[w.level], w.a, w.y, w.x};
  return decode_from (p, s, i, w, c);
}

/* Intersection over union of two boxes (continuous coordinates; 0 for empty boxes). */
TENSOR_HD float iou (const Candidate &a, const Candidate &b)
{
  const float iw = fminf (a.x1, b.x1) - fmaxf (a.x0, b.x0), ih = fminf (a.y1, b.y1) - fmaxf (a.y0, b.y0);
  if (iw <= 0.f || ih <= 0.f)
    return 0.f;
  const float inter = iw * ih;
  const float uni = (a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0) - inter;
  return uni > 0.f ? inter / uni : 0.f;
}

/* Whether `later` (lower in score order) is suppressed by kept box `kept`. */
TENSOR_HD bool suppresses (const Plan &p, const Candidate &kept, const Candidate &later)
{
  return (p.class_agnostic || kept.cls == later.cls) && iou (kept, later) > p.iou;
}

/* A kept candidate in frame pixels, clipped to the crop. */
TENSOR_HD Detection to_detection (const Frame &f, const Candidate &c)
{
  Detection d;
  d.x0 = geometry::to_frame_clipped (f.x, c.x0);
  d.y0 = geometry::to_frame_clipped (f.y, c.y0);
  d.x1 = geometry::to_frame_clipped (f.x, c.x1);
  d.y1 = geometry::to_frame_clipped (f.y, c.y1);
  d.score = c.score;
  d.cls = c.cls;
  return d;
}

}  // namespace detect
