/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "model.h"

#include <array>
#include <cstdio>
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

/* A record's name as a message quotes it: control bytes and bytes past ASCII as \xNN, so that a
 * damaged file's message stays one line. */
std::string quoted (const char *name)
{
  std::string out = "'";
  for (const char *p = name; *p; ++p) {
    const unsigned char c = static_cast<unsigned char> (*p);
    char hex[5];
    std::snprintf (hex, sizeof hex, "\\x%02x", c);
    out += c < 0x20 || c >= 0x7f ? std::string (hex) : std::string (1, char (c));
  }
  return out + "'";
}

/* Names are text: a control byte (a newline would split every message that names it) refuses the
 * record. */
bool check_name (const char *name, const std::string &where, std::string *why)
{
  for (const char *p = name; *p; ++p)
    if (static_cast<unsigned char> (*p) < 0x20 || *p == 0x7f)
      return fail (why, where + ": its name has a control byte at " + std::to_string (p - name) +
                            ": names are text (re-create the model)");
  return true;
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

/* The 16 int parameters of a layer record, in file order (FORMAT.md); the last is reserved. */
template <class L, class I>
std::array<I *, 16> int_params (L *l, I *reserved)
{
  return {&l->out_c, &l->kh, &l->kw, &l->sy,     &l->sx,    &l->pt,    &l->pl, &l->pb,
          &l->pr,    &l->dy, &l->dx, &l->groups, &l->out_h, &l->out_w, &l->op, reserved};
}

const char *const kKindNames[] = {
    "unknown", "conv",    "relu", "maxpool", "avgpool", "gap",    "fc",     "softmax", "adaptive_avgpool",
    "leaky",   "sigmoid", "tanh", "clip",    "eltwise", "concat", "resize", "scale"};
const char *const kEltwiseNames[] = {"sum", "prod", "max", "min", "sub"};

bool read_tensor (Reader &r, bool input, TensorSpec *t, std::string *why)
{
  char name[kNameBytes + 1] = {};
  uint32_t f[8] = {}, source = 0, reserved[3] = {};
  bool ok = r.bytes (name, kNameBytes);
  for (uint32_t &v : f)
    ok = ok && r.u32 (&v);
  ok = ok && r.u32 (&source);
  for (uint32_t &v : reserved)
    ok = ok && r.u32 (&v);
  if (!ok)
    return fail (why, "truncated tensor record");
  const std::string where = std::string (input ? "input " : "output ") + quoted (name);
  if (!check_name (name, where, why))
    return false;
  if (f[0] > 3 || f[1] > 1)
    return fail (why,
                 where + ": unknown layout " + std::to_string (f[0]) + " or type " + std::to_string (f[1]));
  if (reserved[0] || reserved[1] || reserved[2])
    return fail (why, where + ": reserved bytes 116..127 of its record are not zero");
  if (input && int32_t (source) != -1)
    return fail (why, where + ": an input's source must be -1");
  t->name = name;
  t->layout = tensor::Layout (f[0]);
  t->type = tensor::ElemType (f[1]);
  t->n = f[2];
  t->c = f[3];
  t->h = f[4];
  t->w = f[5];
  t->scale = as_float (f[6]);
  t->report_data_type = int32_t (f[7]);
  t->source = int32_t (source);
  return true;
}

/* The fixed part of a layer record (up to the weights); the weight and bias counts. */
bool read_layer_fixed (Reader &r, size_t i, Layer *l, uint32_t *bytes, uint32_t *nw, uint32_t *nb,
                       std::string *why)
{
  const std::string where = "layer " + std::to_string (i);
  char name[kNameBytes + 1] = {};
  uint32_t kind = 0, n_in = 0, ids[kMaxLayerInputs] = {}, params[16] = {}, wtype = 0, floats[4] = {};
  int32_t reserved = 0;
  bool ok = r.u32 (&kind) && r.u32 (bytes) && r.bytes (name, kNameBytes) && r.u32 (&n_in);
  for (uint32_t &v : ids)
    ok = ok && r.u32 (&v);
  for (uint32_t &v : params)
    ok = ok && r.u32 (&v);
  const auto fields = int_params (l, &reserved);
  for (size_t k = 0; k < fields.size (); ++k)
    *fields[k] = int32_t (params[k]);
  for (uint32_t &v : floats)
    ok = ok && r.u32 (&v);
  ok = ok && r.u32 (&wtype) && r.u32 (nw) && r.u32 (nb);
  if (!ok)
    return fail (why, "truncated layer record " + std::to_string (i));
  if (!check_name (name, where, why))
    return false;
  if (n_in < 1 || n_in > kMaxLayerInputs)
    return fail (why, where + " " + quoted (name) + ": input count " + std::to_string (n_in) +
                          ", a record holds 1.." + std::to_string (kMaxLayerInputs));
  for (uint32_t k = n_in; k < kMaxLayerInputs; ++k)
    if (int32_t (ids[k]) != -1)
      return fail (why, where + " " + quoted (name) + ": unused input ids must be -1");
  if (reserved || floats[2] || floats[3])
    return fail (why, where + " " + quoted (name) + ": reserved parameters must be zero");
  if (wtype > 1)
    return fail (why, where + " " + quoted (name) + ": unknown weight type " + std::to_string (wtype));
  l->kind = LayerKind (kind);
  l->name = name;
  l->inputs.assign (ids, ids + n_in);
  l->alpha = as_float (floats[0]);
  l->beta = as_float (floats[1]);
  l->weight_type = WeightType (wtype);
  return true;
}

bool read_layer (Reader &r, size_t i, size_t size, Layer *l, std::string *why)
{
  const size_t start = r.pos ();
  uint32_t bytes = 0, nw = 0, nb = 0;
  if (!read_layer_fixed (r, i, l, &bytes, &nw, &nb, why))
    return false;
  const size_t esz = l->weight_type == WeightType::kFp16 ? 2 : 4;
  const uint64_t data_bytes = (uint64_t (nw) + nb) * esz;
  if (bytes < kLayerFixedBytes || bytes % 4 || start + uint64_t (bytes) > size ||
      kLayerFixedBytes + data_bytes > bytes)
    return fail (why, "layer " + std::to_string (i) + ": record of " + std::to_string (bytes) +
                          " bytes does not fit the file or its " + std::to_string (uint64_t (nw) + nb) +
                          " values");
  for (uint64_t k = 0; k < uint64_t (nw) + nb; ++k) {
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
    (k < nw ? l->weights : l->bias).push_back (v);
  }
  r.seek (start + bytes);
  return true;
}

bool read_header (Reader &r, size_t size, uint32_t counts[3], std::string *why)
{
  uint32_t version = 0, header = 0, file_bytes = 0;
  r.seek (8);
  if (!r.u32 (&version) || !r.u32 (&header) || !r.u32 (&counts[0]) || !r.u32 (&counts[1]) ||
      !r.u32 (&counts[2]) || !r.u32 (&file_bytes))
    return fail (why, "truncated header (" + std::to_string (size) + " bytes)");
  if (version != kFormatVersion)
    return fail (why, "swdla model format version " + std::to_string (version) +
                          " is not read by this swdla (format " + std::to_string (kFormatVersion) +
                          "); rebuild the file with swdla-tool build or import");
  if (header != kHeaderBytes)
    return fail (why,
                 "header size " + std::to_string (header) + ", expected " + std::to_string (kHeaderBytes));
  if (file_bytes != size)
    return fail (why, "the header says " + std::to_string (file_bytes) + " bytes, the buffer has " +
                          std::to_string (size) + (size < file_bytes ? " (truncated)" : " (trailing bytes)"));
  if (counts[0] < 1 || counts[0] > kMaxTensors || counts[1] < 1 || counts[1] > kMaxTensors ||
      counts[2] > kMaxLayers)
    return fail (why, "implausible counts: " + std::to_string (counts[0]) + " inputs, " +
                          std::to_string (counts[1]) + " outputs, " + std::to_string (counts[2]) +
                          " layers (1.." + std::to_string (kMaxTensors) + ", 1.." +
                          std::to_string (kMaxTensors) + ", 0.." + std::to_string (kMaxLayers) + ")");
  return true;
}

void write_name (Writer &w, const std::string &name)
{
  char buf[kNameBytes] = {};
  std::strncpy (buf, name.c_str (), kNameBytes - 1);
  w.out.insert (w.out.end (), buf, buf + kNameBytes);
}

void write_tensor (Writer &w, const TensorSpec &t)
{
  write_name (w, t.name);
  for (int64_t v : {int64_t (t.layout), int64_t (t.type), t.n, t.c, t.h, t.w})
    w.u32 (uint32_t (v));
  w.f32 (t.scale);
  w.u32 (uint32_t (t.report_data_type));
  w.u32 (uint32_t (t.source));
  for (int i = 0; i < 3; ++i)
    w.u32 (0);
}

void write_layer (Writer &w, const Layer &l)
{
  const size_t start = w.out.size ();
  w.u32 (uint32_t (l.kind));
  w.u32 (0); /* record bytes, patched */
  write_name (w, l.name);
  w.u32 (uint32_t (l.inputs.size ()));
  for (size_t k = 0; k < kMaxLayerInputs; ++k)
    w.u32 (uint32_t (k < l.inputs.size () ? l.inputs[k] : -1));
  const int32_t reserved = 0;
  for (const int32_t *p : int_params (&l, &reserved))
    w.u32 (uint32_t (*p));
  for (float f : {l.alpha, l.beta, 0.f, 0.f})
    w.f32 (f);
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

}  // namespace

const char *kind_name (LayerKind k)
{
  const uint32_t i = uint32_t (k);
  return i < sizeof kKindNames / sizeof *kKindNames ? kKindNames[i] : kKindNames[0];
}

const char *eltwise_name (int32_t op)
{
  return op >= 0 && op < 5 ? kEltwiseNames[op] : nullptr;
}

bool TensorSpec::view (tensor::View *out) const
{
  return tensor::make_view (layout, type, n, c, h, w, out);
}

std::string Model::tensor_name (int32_t id) const
{
  if (id < 0 || size_t (id) >= tensor_count ())
    return "";
  return size_t (id) < inputs.size () ? inputs[size_t (id)].name : layers[size_t (id) - inputs.size ()].name;
}

int32_t Model::find_tensor (const std::string &name) const
{
  for (size_t id = 0; id < tensor_count (); ++id)
    if (tensor_name (int32_t (id)) == name)
      return int32_t (id);
  return -1;
}

void round_weights (Layer *layer)
{
  if (layer->weight_type != WeightType::kFp16)
    return;
  for (auto *vec : {&layer->weights, &layer->bias})
    for (float &f : *vec)
      f = tensor::half_to_float (tensor::float_to_half (f));
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
  uint32_t counts[3] = {};
  if (!read_header (r, size, counts, why))
    return false;
  Model m;
  for (uint32_t i = 0; i < counts[0] + counts[1]; ++i) {
    TensorSpec t;
    if (!read_tensor (r, i < counts[0], &t, why))
      return false;
    (i < counts[0] ? m.inputs : m.outputs).push_back (t);
  }
  for (uint32_t i = 0; i < counts[2]; ++i) {
    Layer l;
    if (!read_layer (r, i, size, &l, why))
      return false;
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
  for (size_t v : {size_t (kFormatVersion), kHeaderBytes, model.inputs.size (), model.outputs.size (),
                   model.layers.size (), size_t (0) /* file size, patched at the end */})
    w.u32 (uint32_t (v));
  for (const auto *list : {&model.inputs, &model.outputs})
    for (const TensorSpec &t : *list)
      write_tensor (w, t);
  for (const Layer &l : model.layers)
    write_layer (w, l);
  w.patch_u32 (28, uint32_t (w.out.size ()));
  return w.out;
}

}  // namespace swdla
