/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "model.h"

#include <algorithm>
#include <cstring>

#include "common/numeric.h"

namespace swdla {
namespace {

bool fail (std::string *why, const std::string &msg)
{
  if (why)
    *why = msg;
  return false;
}

/* Little-endian cursor over the file; every read checks the bounds (truncated files). */
class Reader {
 public:
  Reader (const uint8_t *data, size_t size) : data_ (data), size_ (size) {}
  bool u32 (uint32_t *v)
  {
    if (pos_ + 4 > size_)
      return false;
    *v = uint32_t (data_[pos_]) | uint32_t (data_[pos_ + 1]) << 8 | uint32_t (data_[pos_ + 2]) << 16 |
         uint32_t (data_[pos_ + 3]) << 24;
    pos_ += 4;
    return true;
  }
  bool u16 (uint16_t *v)
  {
    if (pos_ + 2 > size_)
      return false;
    *v = uint16_t (data_[pos_] | data_[pos_ + 1] << 8);
    pos_ += 2;
    return true;
  }
  bool bytes (void *dst, size_t n)
  {
    if (pos_ + n > size_)
      return false;
    std::memcpy (dst, data_ + pos_, n);
    pos_ += n;
    return true;
  }
  bool seek (size_t pos)
  {
    if (pos > size_)
      return false;
    pos_ = pos;
    return true;
  }
  size_t pos () const { return pos_; }

 private:
  const uint8_t *data_;
  size_t size_;
  size_t pos_ = 0;
};

class Writer {
 public:
  void u32 (uint32_t v)
  {
    for (int i = 0; i < 4; ++i)
      out.push_back (uint8_t (v >> (8 * i)));
  }
  void u16 (uint16_t v)
  {
    out.push_back (uint8_t (v));
    out.push_back (uint8_t (v >> 8));
  }
  void f32 (float f)
  {
    uint32_t v;
    std::memcpy (&v, &f, 4);
    u32 (v);
  }
  void pad4 ()
  {
    while (out.size () % 4)
      out.push_back (0);
  }
  void patch_u32 (size_t at, uint32_t v)
  {
    for (int i = 0; i < 4; ++i)
      out[at + i] = uint8_t (v >> (8 * i));
  }
  std::vector<uint8_t> out;
};

float as_float (uint32_t v)
{
  float f;
  std::memcpy (&f, &v, 4);
  return f;
}

std::string dims (const Shape &s)
{
  return std::to_string (s.c) + "x" + std::to_string (s.h) + "x" + std::to_string (s.w);
}

bool check_tensor (const TensorSpec &t, const char *what, std::string *why)
{
  const std::string where = std::string (what) + " '" + t.name + "'";
  if (t.name.empty () || t.name.size () >= kNameBytes)
    return fail (why, where + ": name must have 1.." + std::to_string (kNameBytes - 1) + " characters");
  if (t.n < 1 || t.n > kMaxBatch || t.c < 1 || t.c > kMaxDim || t.h < 1 || t.h > kMaxDim || t.w < 1 ||
      t.w > kMaxDim)
    return fail (why, where + ": dims out of range");
  tensor::View v;
  if (!t.view (&v))
    return fail (why, where + ": " + tensor::layout_name (t.layout) + " cannot hold " +
                          tensor::elem_type_name (t.type) + " with " + std::to_string (t.c) + " channels");
  if (t.type == tensor::ElemType::kInt8 && !(t.scale > 0.f && t.scale < 1e30f))
    return fail (why, where + ": INT8 needs a positive scale");
  return true;
}

}  // namespace

const char *layer_name (LayerKind k)
{
  switch (k) {
    case LayerKind::kConv:
      return "conv";
    case LayerKind::kRelu:
      return "relu";
    case LayerKind::kMaxPool:
      return "maxpool";
    case LayerKind::kAvgPool:
      return "avgpool";
    case LayerKind::kGlobalAvgPool:
      return "gap";
    case LayerKind::kFullyConnected:
      return "fc";
    case LayerKind::kSoftmax:
      return "softmax";
    case LayerKind::kAdaptiveAvgPool:
      return "adaptive_avgpool";
  }
  return "unknown";
}

bool TensorSpec::view (tensor::View *out) const
{
  return tensor::make_view (layout, type, n, c, h, w, out);
}

int64_t Model::max_activation () const
{
  int64_t m = 0;
  for (const Shape &s : shapes)
    m = std::max (m, s.count ());
  return m * batch ();
}

void round_weights (Layer *layer)
{
  if (layer->weight_type != WeightType::kFp16)
    return;
  for (auto *vec : {&layer->weights, &layer->bias})
    for (float &f : *vec)
      f = tensor::half_to_float (tensor::float_to_half (f));
}

bool infer_shapes (Model *model, std::string *why)
{
  if (model->inputs.empty () || model->inputs.size () > kMaxTensors)
    return fail (why, "a model needs 1.." + std::to_string (kMaxTensors) + " inputs");
  if (model->outputs.size () != 1)
    return fail (why, "a model needs exactly one output (format version 1)");
  if (model->layers.size () > kMaxLayers)
    return fail (why, "more than " + std::to_string (kMaxLayers) + " layers");
  for (const TensorSpec &t : model->inputs)
    if (!check_tensor (t, "input", why))
      return false;
  if (!check_tensor (model->outputs[0], "output", why))
    return false;
  const TensorSpec &in = model->inputs[0];
  model->shapes.assign (1, Shape{in.c, in.h, in.w});
  for (size_t i = 0; i < model->layers.size (); ++i) {
    const Layer &l = model->layers[i];
    const Shape s = model->shapes.back ();
    const std::string where =
        "layer " + std::to_string (i) + " (" + layer_name (l.kind) + ", input " + dims (s) + ")";
    Shape o = s;
    switch (l.kind) {
      case LayerKind::kConv:
      case LayerKind::kMaxPool:
      case LayerKind::kAvgPool: {
        if (l.kh < 1 || l.kw < 1 || l.sy < 1 || l.sx < 1 || l.py < 0 || l.px < 0 || l.py >= l.kh ||
            l.px >= l.kw)
          return fail (why, where + ": kernel >= 1, stride >= 1, 0 <= padding < kernel");
        const int64_t oh = (s.h + 2 * l.py - l.kh) / l.sy + 1, ow = (s.w + 2 * l.px - l.kw) / l.sx + 1;
        if (s.h + 2 * l.py < l.kh || s.w + 2 * l.px < l.kw)
          return fail (why, where + ": kernel larger than the padded input");
        o = Shape{s.c, oh, ow};
        if (l.kind == LayerKind::kConv) {
          if (l.out_c < 1 || l.out_c > kMaxDim)
            return fail (why, where + ": conv needs 1.." + std::to_string (kMaxDim) + " output channels");
          o.c = l.out_c;
          if (int64_t (l.weights.size ()) != int64_t (l.out_c) * s.c * l.kh * l.kw)
            return fail (why, where + ": conv needs out_c*in_c*kh*kw = " +
                                  std::to_string (int64_t (l.out_c) * s.c * l.kh * l.kw) + " weights, has " +
                                  std::to_string (l.weights.size ()));
        }
        break;
      }
      case LayerKind::kRelu:
      case LayerKind::kSoftmax:
        break;
      case LayerKind::kGlobalAvgPool:
        o = Shape{s.c, 1, 1};
        break;
      case LayerKind::kAdaptiveAvgPool:
        if (l.out_h < 1 || l.out_w < 1 || l.out_h > s.h || l.out_w > s.w)
          return fail (why, where + ": adaptive pool needs 1 <= out_h <= h and 1 <= out_w <= w");
        o = Shape{s.c, l.out_h, l.out_w};
        break;
      case LayerKind::kFullyConnected:
        if (l.out_c < 1 || l.out_c > kMaxDim)
          return fail (why, where + ": fc needs 1.." + std::to_string (kMaxDim) + " outputs");
        if (int64_t (l.weights.size ()) != int64_t (l.out_c) * s.count ())
          return fail (why, where + ": fc needs out*in = " + std::to_string (int64_t (l.out_c) * s.count ()) +
                                " weights, has " + std::to_string (l.weights.size ()));
        o = Shape{l.out_c, 1, 1};
        break;
      default:
        return fail (why, where + ": unknown layer kind " + std::to_string (uint32_t (l.kind)));
    }
    if ((l.kind == LayerKind::kConv || l.kind == LayerKind::kFullyConnected) && !l.bias.empty () &&
        int64_t (l.bias.size ()) != l.out_c)
      return fail (why, where + ": bias needs " + std::to_string (l.out_c) + " values");
    if (l.kind != LayerKind::kConv && l.kind != LayerKind::kFullyConnected &&
        (!l.weights.empty () || !l.bias.empty ()))
      return fail (why, where + ": this layer takes no weights");
    if (o.count () * in.n > kMaxActivation)
      return fail (why, where + ": activation too large");
    model->shapes.push_back (o);
  }
  const TensorSpec &out = model->outputs[0];
  const Shape &last = model->shapes.back ();
  if (out.n != in.n || out.c != last.c || out.h != last.h || out.w != last.w)
    return fail (why, "output '" + out.name + "' is " + std::to_string (out.n) + "x" +
                          std::to_string (out.c) + "x" + std::to_string (out.h) + "x" +
                          std::to_string (out.w) + " but the layers produce " + std::to_string (in.n) + "x" +
                          dims (last));
  return true;
}

bool parse_model (const uint8_t *data, size_t size, Model *out, std::string *why)
{
  if (!data || size == 0)
    return fail (why, "empty model (0 bytes)");
  if (size >= 8 && std::memcmp (data + 4, "NVDA", 4) == 0)
    return fail (why, "this is an NVIDIA DLA loadable (NVDA at bytes 4..7); swdla runs only its own models");
  if (size < 8 || std::memcmp (data, kMagic, 8) != 0)
    return fail (why, "not a swdla model: it does not begin with SWDLAMDL");
  Reader r (data, size);
  r.seek (8);
  uint32_t version = 0, header = 0, n_in = 0, n_out = 0, n_layers = 0, file_bytes = 0;
  if (!r.u32 (&version) || !r.u32 (&header) || !r.u32 (&n_in) || !r.u32 (&n_out) || !r.u32 (&n_layers) ||
      !r.u32 (&file_bytes))
    return fail (why, "truncated header (" + std::to_string (size) + " bytes)");
  if (version != kFormatVersion)
    return fail (why, "format version " + std::to_string (version) + ", this swdla reads version " +
                          std::to_string (kFormatVersion));
  if (header != kHeaderBytes)
    return fail (why,
                 "header size " + std::to_string (header) + ", expected " + std::to_string (kHeaderBytes));
  if (file_bytes != size)
    return fail (why, "the header says " + std::to_string (file_bytes) + " bytes, the buffer has " +
                          std::to_string (size) + (size < file_bytes ? " (truncated)" : " (trailing bytes)"));
  if (n_in < 1 || n_in > kMaxTensors || n_out < 1 || n_out > kMaxTensors || n_layers > kMaxLayers)
    return fail (why, "implausible counts: " + std::to_string (n_in) + " inputs, " + std::to_string (n_out) +
                          " outputs, " + std::to_string (n_layers) + " layers");
  Model m;
  for (uint32_t i = 0; i < n_in + n_out; ++i) {
    char name[kNameBytes + 1] = {};
    uint32_t f[8] = {};
    uint32_t reserved[4];
    if (!r.bytes (name, kNameBytes))
      return fail (why, "truncated tensor record");
    for (uint32_t &v : f)
      if (!r.u32 (&v))
        return fail (why, "truncated tensor record");
    for (uint32_t &v : reserved)
      if (!r.u32 (&v))
        return fail (why, "truncated tensor record");
    if (f[0] > 3 || f[1] > 1)
      return fail (why, "tensor '" + std::string (name) + "': unknown layout " + std::to_string (f[0]) +
                            " or type " + std::to_string (f[1]));
    TensorSpec t;
    t.name = name;
    t.layout = tensor::Layout (f[0]);
    t.type = tensor::ElemType (f[1]);
    t.n = f[2];
    t.c = f[3];
    t.h = f[4];
    t.w = f[5];
    t.scale = as_float (f[6]);
    t.report_data_type = int32_t (f[7]);
    (i < n_in ? m.inputs : m.outputs).push_back (t);
  }
  for (uint32_t i = 0; i < n_layers; ++i) {
    const size_t start = r.pos ();
    uint32_t kind = 0, bytes = 0, p[10] = {}, nw = 0, nb = 0;
    bool ok = r.u32 (&kind) && r.u32 (&bytes);
    for (uint32_t &v : p)
      ok = ok && r.u32 (&v);
    ok = ok && r.u32 (&nw) && r.u32 (&nb);
    if (!ok)
      return fail (why, "truncated layer record " + std::to_string (i));
    if (p[9] > 1)
      return fail (why, "layer " + std::to_string (i) + ": unknown weight type " + std::to_string (p[9]));
    const size_t esz = p[9] == 1 ? 2 : 4;
    const uint64_t data_bytes = (uint64_t (nw) + nb) * esz;
    if (bytes < kLayerFixedBytes || start + uint64_t (bytes) > size || kLayerFixedBytes + data_bytes > bytes)
      return fail (why, "layer " + std::to_string (i) + ": record of " + std::to_string (bytes) +
                            " bytes does not fit the file or its " + std::to_string (nw + nb) + " values");
    Layer l;
    l.kind = LayerKind (kind);
    l.out_c = int32_t (p[0]);
    l.kh = int32_t (p[1]);
    l.kw = int32_t (p[2]);
    l.sy = int32_t (p[3]);
    l.sx = int32_t (p[4]);
    l.py = int32_t (p[5]);
    l.px = int32_t (p[6]);
    l.out_h = int32_t (p[7]);
    l.out_w = int32_t (p[8]);
    l.weight_type = WeightType (p[9]);
    for (uint32_t k = 0; k < nw + nb; ++k) {
      float v;
      if (esz == 2) {
        uint16_t h = 0;
        r.u16 (&h);
        v = tensor::half_to_float (h);
      } else {
        uint32_t u = 0;
        r.u32 (&u);
        v = as_float (u);
      }
      (k < nw ? l.weights : l.bias).push_back (v);
    }
    r.seek (start + bytes);
    m.layers.push_back (std::move (l));
  }
  if (r.pos () != size)
    return fail (why, std::to_string (size - r.pos ()) + " unexplained bytes after the last layer");
  if (!infer_shapes (&m, why))
    return false;
  *out = std::move (m);
  return true;
}

std::vector<uint8_t> serialize_model (const Model &model)
{
  Writer w;
  w.out.insert (w.out.end (), kMagic, kMagic + 8);
  w.u32 (kFormatVersion);
  w.u32 (kHeaderBytes);
  w.u32 (uint32_t (model.inputs.size ()));
  w.u32 (uint32_t (model.outputs.size ()));
  w.u32 (uint32_t (model.layers.size ()));
  w.u32 (0); /* file size, patched at the end */
  std::vector<const TensorSpec *> tensors;
  for (const auto &t : model.inputs)
    tensors.push_back (&t);
  for (const auto &t : model.outputs)
    tensors.push_back (&t);
  for (const TensorSpec *t : tensors) {
    char name[kNameBytes] = {};
    std::strncpy (name, t->name.c_str (), kNameBytes - 1);
    w.out.insert (w.out.end (), name, name + kNameBytes);
    w.u32 (uint32_t (t->layout));
    w.u32 (uint32_t (t->type));
    w.u32 (uint32_t (t->n));
    w.u32 (uint32_t (t->c));
    w.u32 (uint32_t (t->h));
    w.u32 (uint32_t (t->w));
    w.f32 (t->scale);
    w.u32 (uint32_t (t->report_data_type));
    for (int i = 0; i < 4; ++i)
      w.u32 (0);
  }
  for (const Layer &l : model.layers) {
    const size_t start = w.out.size ();
    w.u32 (uint32_t (l.kind));
    w.u32 (0); /* record bytes, patched */
    for (int32_t v : {l.out_c, l.kh, l.kw, l.sy, l.sx, l.py, l.px, l.out_h, l.out_w})
      w.u32 (uint32_t (v));
    w.u32 (uint32_t (l.weight_type));
    w.u32 (uint32_t (l.weights.size ()));
    w.u32 (uint32_t (l.bias.size ()));
    for (const auto *vec : {&l.weights, &l.bias})
      for (float f : *vec) {
        if (l.weight_type == WeightType::kFp16)
          w.u16 (tensor::float_to_half (f));
        else
          w.f32 (f);
      }
    w.pad4 ();
    w.patch_u32 (start + 4, uint32_t (w.out.size () - start));
  }
  w.patch_u32 (28, uint32_t (w.out.size ()));
  return w.out;
}

}  // namespace swdla
