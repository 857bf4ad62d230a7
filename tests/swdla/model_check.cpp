/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla: shape inference and the checks of a model: the format's limits and the DLA's (FORMAT.md,
 * "DLA limits", from TensorRT's DLA restrictions and NvInfer.h). A refusal names the layer (index
 * and name), its kind and the rule. */
#include <algorithm>
#include <set>

#include "model.h"

namespace swdla {
namespace {

constexpr const char *kDla = " (TensorRT DLA restrictions)";

bool fail (std::string *why, const std::string &msg)
{
  if (why)
    *why = msg;
  return false;
}

std::string dims (const Shape &s)
{
  return std::to_string (s.c) + "x" + std::to_string (s.h) + "x" + std::to_string (s.w);
}

std::string pair (int32_t a, int32_t b)
{
  return std::to_string (a) + "x" + std::to_string (b);
}

bool within (int64_t v, int64_t lo, int64_t hi)
{
  return v >= lo && v <= hi;
}

bool check_tensor (const TensorSpec &t, const char *what, std::string *why)
{
  const std::string where = std::string (what) + " '" + t.name + "'";
  if (t.name.empty () || t.name.size () >= kNameBytes)
    return fail (why, where + ": name must have 1.." + std::to_string (kNameBytes - 1) + " characters");
  if (!within (t.n, 1, kMaxBatch) || !within (t.c, 1, kMaxDim) || !within (t.h, 1, kMaxDim) ||
      !within (t.w, 1, kMaxDim))
    return fail (why, where + ": dims out of range");
  tensor::View v;
  if (!t.view (&v))
    return fail (why, where + ": " + tensor::layout_name (t.layout) + " cannot hold " +
                          tensor::elem_type_name (t.type) + " with " + std::to_string (t.c) + " channels");
  if (t.type == tensor::ElemType::kInt8 && !(t.scale > 0.f && t.scale < 1e30f))
    return fail (why, where + ": INT8 needs a positive scale");
  return true;
}

/* One layer being checked: its inputs' shapes, and refusals that name it. */
struct Check {
  const Layer &l;
  std::vector<Shape> in;
  std::string where;
  std::string *why;

  bool no (const std::string &rule) const { return fail (why, where + ": " + rule); }
  bool dla (const std::string &rule) const { return no (rule + kDla); }
  const Shape &s () const { return in[0]; }
};

/* Kernel/window, stride, padding (and dilation) of conv and pools; the output's height and width. */
bool window (const Check &c, bool conv, Shape *o)
{
  const Layer &l = c.l;
  const int32_t kmax = conv ? 32 : 8, smax = conv ? 8 : 16, pmax = conv ? 31 : 7;
  const char *win = conv ? "kernel" : "window";
  const std::string pads = std::to_string (l.pt) + "," + std::to_string (l.pl) + "," + std::to_string (l.pb) +
                           "," + std::to_string (l.pr) + " (top, left, bottom, right)";
  if (!within (l.kh, 1, kmax) || !within (l.kw, 1, kmax))
    return c.dla (std::string (win) + " " + pair (l.kh, l.kw) + ": the DLA takes " + win + "s 1.." +
                  std::to_string (kmax));
  if (!within (l.sy, 1, smax) || !within (l.sx, 1, smax))
    return c.dla ("stride " + pair (l.sy, l.sx) + ": the DLA takes strides 1.." + std::to_string (smax));
  if (!within (l.pt, 0, pmax) || !within (l.pl, 0, pmax) || !within (l.pb, 0, pmax) ||
      !within (l.pr, 0, pmax))
    return c.dla ("padding " + pads + ": the DLA takes paddings 0.." + std::to_string (pmax));
  if (std::max (l.pt, l.pb) >= l.kh || std::max (l.pl, l.pr) >= l.kw)
    return conv ? c.dla ("padding " + pads + " with kernel " + pair (l.kh, l.kw) +
                         ": the DLA takes each padding smaller than its kernel")
                : c.no ("padding " + pads + " with window " + pair (l.kh, l.kw) +
                        ": each padding must be smaller than the window (no window of padding only)");
  if (!conv && (l.dy != 1 || l.dx != 1))
    return c.no ("dilation " + pair (l.dy, l.dx) + ": pools take none (1x1)");
  if (!within (l.dy, 1, 32) || !within (l.dx, 1, 32))
    return c.dla ("dilation " + pair (l.dy, l.dx) + ": the DLA takes dilations 1..32");
  const int64_t eh = int64_t (l.dy) * (l.kh - 1) + 1, ew = int64_t (l.dx) * (l.kw - 1) + 1;
  const int64_t ph = c.s ().h + l.pt + l.pb, pw = c.s ().w + l.pl + l.pr;
  if (ph < eh || pw < ew)
    return c.no (std::string (win) + " " + std::to_string (eh) + "x" + std::to_string (ew) +
                 " larger than the padded input " + std::to_string (ph) + "x" + std::to_string (pw));
  o->h = (ph - eh) / l.sy + 1;
  o->w = (pw - ew) / l.sx + 1;
  return true;
}

/* conv and fc: one bias per output channel, or none. */
bool bias_ok (const Check &c)
{
  const Layer &l = c.l;
  if (!l.bias.empty () && int64_t (l.bias.size ()) != l.out_c)
    return c.no ("bias needs " + std::to_string (l.out_c) + " values or none, has " +
                 std::to_string (l.bias.size ()));
  return true;
}

bool conv_shape (const Check &c, Shape *o)
{
  const Layer &l = c.l;
  if (!window (c, true, o))
    return false;
  if (!within (l.out_c, 1, 8192))
    return c.dla (std::to_string (l.out_c) + " output channels: the DLA takes 1..8192");
  if (!within (l.groups, 1, 8192))
    return c.dla ("groups " + std::to_string (l.groups) + ": the DLA takes groups 1..8192");
  if (c.s ().c % l.groups || l.out_c % l.groups)
    return c.dla ("groups " + std::to_string (l.groups) + " with " + std::to_string (c.s ().c) +
                  " input and " + std::to_string (l.out_c) +
                  " output channels: both must divide by the groups");
  o->c = l.out_c;
  const int64_t want = int64_t (l.out_c) * (c.s ().c / l.groups) * l.kh * l.kw;
  if (int64_t (l.weights.size ()) != want)
    return c.no ("conv needs out_c*(in_c/groups)*kh*kw = " + std::to_string (want) + " weights, has " +
                 std::to_string (l.weights.size ()));
  return bias_ok (c);
}

bool fc_shape (const Check &c, Shape *o)
{
  const Layer &l = c.l;
  if (!within (l.out_c, 1, 8192))
    return c.dla (std::to_string (l.out_c) + " outputs: the DLA takes 1..8192");
  const int64_t want = int64_t (l.out_c) * c.s ().count ();
  if (int64_t (l.weights.size ()) != want)
    return c.no ("fc needs out*in = " + std::to_string (want) + " weights, has " +
                 std::to_string (l.weights.size ()));
  *o = Shape{l.out_c, 1, 1};
  return bias_ok (c);
}

bool scale_shape (const Check &c, Shape *o)
{
  const int64_t ch = c.s ().c, nw = int64_t (c.l.weights.size ()), nb = int64_t (c.l.bias.size ());
  if (nw != ch && nw != 1)
    return c.no ("scale needs " + std::to_string (ch) + " weights (one per channel) or 1, has " +
                 std::to_string (nw));
  if (nb != ch && nb > 1)
    return c.no ("scale needs " + std::to_string (ch) + " biases, 1 or none, has " + std::to_string (nb));
  *o = c.s ();
  return true;
}

bool eltwise_shape (const Check &c, Shape *o)
{
  if (!eltwise_name (c.l.op))
    return c.dla ("op " + std::to_string (c.l.op) +
                  ": the DLA's element-wise ops here are 0 sum, 1 prod, "
                  "2 max, 3 min, 4 sub");
  const Shape &a = c.in[0], &b = c.in[1];
  const bool same = a.c == b.c && a.h == b.h && a.w == b.w, per_channel = a.c == b.c && b.h == 1 && b.w == 1;
  if (!same && !per_channel)
    return c.dla ("inputs " + dims (a) + " and " + dims (b) +
                  ": the DLA takes the same shape or the second C x 1 x 1 (per-channel broadcast)");
  *o = a;
  return true;
}

bool concat_shape (const Check &c, Shape *o)
{
  *o = c.s ();
  for (size_t k = 1; k < c.in.size (); ++k) {
    if (c.in[k].h != o->h || c.in[k].w != o->w)
      return c.dla ("input " + std::to_string (k) + " is " + dims (c.in[k]) + ", input 0 " + dims (c.s ()) +
                    ": the DLA concatenates along channels only, same height and width");
    o->c += c.in[k].c;
  }
  return true;
}

bool resize_shape (const Check &c, Shape *o)
{
  if (!within (c.l.sy, 1, 32) || !within (c.l.sx, 1, 32))
    return c.dla ("scale " + pair (c.l.sy, c.l.sx) + ": the DLA resizes (nearest) by integer scales 1..32");
  *o = Shape{c.s ().c, c.s ().h * c.l.sy, c.s ().w * c.l.sx};
  return true;
}

bool softmax_shape (const Check &c, Shape *o)
{
  const Shape &s = c.s ();
  if (s.c > (s.h == 1 && s.w == 1 ? 8192 : 1024))
    return c.dla (std::to_string (s.c) + " channels over " + std::to_string (s.h) + "x" +
                  std::to_string (s.w) + ": the DLA's softmax takes C <= 1024 (8192 when H = W = 1)");
  *o = s;
  return true;
}

bool adaptive_shape (const Check &c, Shape *o)
{
  const Layer &l = c.l;
  if (l.out_h < 1 || l.out_w < 1 || l.out_h > c.s ().h || l.out_w > c.s ().w)
    return c.no ("adaptive pool needs 1 <= out_h <= h and 1 <= out_w <= w");
  *o = Shape{c.s ().c, l.out_h, l.out_w};
  return true;
}

/* How many inputs a kind takes: [lo, hi]. */
void arity (LayerKind k, size_t *lo, size_t *hi)
{
  *lo = *hi = 1;
  if (k == LayerKind::kEltwise)
    *lo = *hi = 2;
  if (k == LayerKind::kConcat) {
    *lo = 2;
    *hi = kMaxLayerInputs;
  }
}

bool takes_weights (LayerKind k)
{
  return k == LayerKind::kConv || k == LayerKind::kFullyConnected || k == LayerKind::kScale;
}

bool kind_shape (const Check &c, Shape *o)
{
  switch (c.l.kind) {
    case LayerKind::kConv:
      return conv_shape (c, o);
    case LayerKind::kMaxPool:
    case LayerKind::kAvgPool:
      *o = c.s ();
      return window (c, false, o);
    case LayerKind::kRelu:
    case LayerKind::kLeakyRelu:
    case LayerKind::kSigmoid:
    case LayerKind::kTanh:
    case LayerKind::kClip:
      *o = c.s ();
      return true;
    case LayerKind::kSoftmax:
      return softmax_shape (c, o);
    case LayerKind::kGlobalAvgPool:
      *o = Shape{c.s ().c, 1, 1};
      return true;
    case LayerKind::kAdaptiveAvgPool:
      return adaptive_shape (c, o);
    case LayerKind::kFullyConnected:
      return fc_shape (c, o);
    case LayerKind::kEltwise:
      return eltwise_shape (c, o);
    case LayerKind::kConcat:
      return concat_shape (c, o);
    case LayerKind::kResize:
      return resize_shape (c, o);
    case LayerKind::kScale:
      return scale_shape (c, o);
  }
  return false;
}

/* The layer's inputs: how many, which ids, their shapes (batch-wise: input 0's batch). */
bool gather_inputs (const Model &m, size_t j, Check *c)
{
  size_t lo, hi;
  arity (c->l.kind, &lo, &hi);
  const size_t n = c->l.inputs.size ();
  if (n < lo || n > hi)
    return c->no ("takes " +
                  (lo == hi ? std::to_string (lo) : std::to_string (lo) + ".." + std::to_string (hi)) +
                  (hi == 1 ? " input" : " inputs") + ", has " + std::to_string (n) +
                  (c->l.kind == LayerKind::kConcat ? kDla : ""));
  for (int32_t id : c->l.inputs) {
    if (id < 0 || id >= m.result_id (j))
      return c->no ("input id " + std::to_string (id) +
                    ": a layer reads graph inputs or earlier results (ids 0.." +
                    std::to_string (m.result_id (j) - 1) + ")");
    if (size_t (id) < m.inputs.size () && m.inputs[size_t (id)].n != m.batch ())
      return c->no ("reads input '" + m.inputs[size_t (id)].name + "' of batch " +
                    std::to_string (m.inputs[size_t (id)].n) +
                    ": layers work per image, on input 0's batch " + std::to_string (m.batch ()));
    c->in.push_back (m.shapes[size_t (id)]);
  }
  return true;
}

bool check_layer (Model *m, size_t j, std::set<std::string> *names, std::string *why)
{
  const Layer &l = m->layers[j];
  Check c{l, {}, "layer " + std::to_string (j) + " '" + l.name + "' (" + kind_name (l.kind) + ")", why};
  if (l.name.empty () || l.name.size () >= kNameBytes)
    return c.no ("name must have 1.." + std::to_string (kNameBytes - 1) + " characters");
  if (!names->insert (l.name).second)
    return c.no ("name already used by another tensor: names must be unique");
  if (l.kind < LayerKind::kConv || l.kind > LayerKind::kScale)
    return c.no ("unknown layer kind " + std::to_string (uint32_t (l.kind)));
  if (!gather_inputs (*m, j, &c))
    return false;
  if (!takes_weights (l.kind) && (!l.weights.empty () || !l.bias.empty ()))
    return c.no ("this kind takes no weights");
  Shape o;
  if (!kind_shape (c, &o))
    return false;
  if (!within (o.c, 1, kMaxDim) || !within (o.h, 1, kMaxDim) || !within (o.w, 1, kMaxDim))
    return c.dla ("result " + dims (o) + ": the DLA takes dims 1.." + std::to_string (kMaxDim));
  if (o.count () * m->batch () > kMaxActivation)
    return c.no ("result " + dims (o) + " too large");
  m->shapes.push_back (o);
  return true;
}

bool check_output (const Model &m, const TensorSpec &out, std::set<std::string> *names, std::string *why)
{
  if (!check_tensor (out, "output", why))
    return false;
  const std::string where = "output '" + out.name + "'";
  if (out.source < 0 || size_t (out.source) >= m.tensor_count ())
    return fail (why, where + ": source id " + std::to_string (out.source) + " is not a tensor (ids 0.." +
                          std::to_string (m.tensor_count () - 1) + ")");
  const std::string &from = m.tensor_name (out.source);
  if (out.name != from && m.find_tensor (out.name) >= 0)
    return fail (why, where + ": the name of another tensor than its source '" + from + "'");
  if (!names->insert (out.name).second)
    return fail (why, where + ": two outputs have this name");
  if (size_t (out.source) < m.inputs.size () && m.inputs[size_t (out.source)].n != m.batch ())
    return fail (why, where + ": its source, input '" + from + "', has batch " +
                          std::to_string (m.inputs[size_t (out.source)].n) + ", not input 0's " +
                          std::to_string (m.batch ()));
  const Shape &s = m.shapes[size_t (out.source)];
  if (out.n != m.batch () || out.c != s.c || out.h != s.h || out.w != s.w)
    return fail (why, where + " is " + std::to_string (out.n) + "x" + std::to_string (out.c) + "x" +
                          std::to_string (out.h) + "x" + std::to_string (out.w) + " but its source '" + from +
                          "' is " + std::to_string (m.batch ()) + "x" + dims (s));
  return true;
}

}  // namespace

bool infer_layer_shapes (Model *model, std::string *why)
{
  if (model->inputs.empty () || model->inputs.size () > kMaxTensors)
    return fail (why, "a model needs 1.." + std::to_string (kMaxTensors) + " inputs");
  if (model->layers.size () > kMaxLayers)
    return fail (why, "more than " + std::to_string (kMaxLayers) + " layers");
  model->shapes.clear ();
  std::set<std::string> names;
  for (const TensorSpec &t : model->inputs) {
    if (!check_tensor (t, "input", why))
      return false;
    if (!names.insert (t.name).second)
      return fail (why, "input '" + t.name + "': two inputs have this name");
    model->shapes.push_back (Shape{t.c, t.h, t.w});
  }
  for (size_t j = 0; j < model->layers.size (); ++j)
    if (!check_layer (model, j, &names, why))
      return false;
  return true;
}

bool infer_shapes (Model *model, std::string *why)
{
  if (model->outputs.empty () || model->outputs.size () > kMaxTensors)
    return fail (why, "a model needs 1.." + std::to_string (kMaxTensors) + " outputs");
  if (!infer_layer_shapes (model, why))
    return false;
  std::set<std::string> names;
  for (const TensorSpec &t : model->outputs)
    if (!check_output (*model, t, &names, why))
      return false;
  return true;
}

}  // namespace swdla
