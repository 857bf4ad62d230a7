/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "spec.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

namespace swdla {
namespace {

using Keys = std::map<std::string, std::string>;

/* A layer as written: the tensors it reads by name, resolved to ids when the model is built (a
 * derived model may add inputs, which moves the ids of every layer result). */
struct LayerDraft {
  Layer layer;
  std::vector<std::string> in; /* empty: the previous layer's result (input 0 for the first layer) */
};

/* A model as written: I/O keys kept raw so derived models can change them before building. */
struct Draft {
  std::vector<Keys> inputs;
  std::vector<Keys> outputs;
  std::vector<LayerDraft> layers;
  std::vector<std::string> labels;
  std::string broken;
};

struct ParseError {
  std::string msg;
};

[[noreturn]] void error (const std::string &msg)
{
  throw ParseError{msg};
}

/* splitmix64: the same numbers on every platform. */
struct Rng {
  uint64_t s;
  double uniform ()
  {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return double (z >> 11) / double (1ull << 53);
  }
};

Keys parse_keys (std::istringstream &in)
{
  Keys k;
  std::string tok;
  while (in >> tok) {
    const size_t eq = tok.find ('=');
    if (eq == std::string::npos || eq == 0)
      error ("expected key=value, got '" + tok + "'");
    k[tok.substr (0, eq)] = tok.substr (eq + 1);
  }
  return k;
}

std::string take (Keys &k, const std::string &key, const std::string &def = "")
{
  auto it = k.find (key);
  if (it == k.end ()) {
    if (def.empty ())
      error ("missing " + key + "=");
    return def;
  }
  std::string v = it->second;
  k.erase (it);
  return v;
}

std::vector<std::string> names (const std::string &s)
{
  std::vector<std::string> v;
  std::stringstream ss (s);
  std::string item;
  while (std::getline (ss, item, ','))
    v.push_back (item);
  return v;
}

double number (const std::string &s)
{
  /* Also "a/b", for values such as 1/127. */
  const size_t slash = s.find ('/');
  if (slash != std::string::npos)
    return number (s.substr (0, slash)) / number (s.substr (slash + 1));
  char *end = nullptr;
  const double v = std::strtod (s.c_str (), &end);
  if (s.empty () || *end)
    error ("not a number: '" + s + "'");
  return v;
}

int32_t integer (const std::string &s)
{
  const double v = number (s);
  if (v != std::floor (v) || std::fabs (v) > 1e9)
    error ("not an integer: '" + s + "'");
  return int32_t (v);
}

std::vector<float> list (const std::string &s)
{
  std::vector<float> v;
  for (const std::string &item : names (s))
    v.push_back (float (number (item)));
  return v;
}

/* An integer key, or `def` when absent. */
int32_t int_key (Keys &k, const std::string &key, int32_t def)
{
  return k.count (key) ? integer (take (k, key)) : def;
}

void no_leftovers (const Keys &k)
{
  if (!k.empty ())
    error ("unknown key '" + k.begin ()->first + "'");
}

tensor::Layout layout_of (const std::string &s)
{
  for (auto l :
       {tensor::Layout::kChw16, tensor::Layout::kChw32, tensor::Layout::kDlaLinear, tensor::Layout::kDlaHwc4})
    if (s == tensor::layout_name (l))
      return l;
  error ("unknown layout '" + s + "' (chw16, chw32, dla_linear, dla_hwc4)");
}

tensor::ElemType type_of (const std::string &s)
{
  if (s == "fp16")
    return tensor::ElemType::kFp16;
  if (s == "int8")
    return tensor::ElemType::kInt8;
  error ("unknown type '" + s + "' (fp16, int8)");
}

/* Weights and bias of a conv, fc or scale layer (`outputs` x `fan_in` weights, `outputs` biases):
 * explicit lists, identity, or seeded random. */
void init_weights (Layer *l, int64_t outputs, int64_t fan_in, Keys &k)
{
  const std::string init = take (k, "init", "list");
  const int64_t count = outputs * fan_in;
  if (init == "list") {
    l->weights = list (take (k, "weights"));
    const std::string b = take (k, "bias", "none");
    if (b != "none")
      l->bias = list (b);
  } else if (init == "identity") {
    if (l->kind != LayerKind::kFullyConnected || outputs != fan_in)
      error ("init=identity needs an fc layer with out = its input size (" + std::to_string (fan_in) + ")");
    l->weights.assign (size_t (count), 0.f);
    for (int64_t i = 0; i < fan_in; ++i)
      l->weights[size_t (i * fan_in + i)] = 1.f;
  } else if (init == "random") {
    Rng rng{uint64_t (integer (take (k, "seed")))};
    /* Default range keeps the output variance near the input's (uniform, fan-in scaled). */
    const double a = k.count ("range") ? number (take (k, "range")) : std::sqrt (3.0 / double (fan_in));
    l->weights.resize (size_t (count));
    for (float &w : l->weights)
      w = float ((rng.uniform () * 2 - 1) * a);
    if (take (k, "bias", "random") == "random") {
      l->bias.resize (size_t (outputs));
      for (float &b : l->bias)
        b = float ((rng.uniform () * 2 - 1) * 0.1);
    }
  } else {
    error ("unknown init '" + init + "' (list, identity, random)");
  }
}

/* Kernel or window, stride and the four paddings (p= both axes, py=/px= one axis, pt= pl= pb= pr=
 * one side each). */
void parse_window (Layer *l, Keys &k)
{
  l->kh = l->kw = integer (take (k, "k", "1"));
  l->kh = int_key (k, "kh", l->kh);
  l->kw = int_key (k, "kw", l->kw);
  l->sy = l->sx = integer (take (k, "s", "1"));
  l->sy = int_key (k, "sy", l->sy);
  l->sx = int_key (k, "sx", l->sx);
  const int32_t p = int_key (k, "p", 0), py = int_key (k, "py", p), px = int_key (k, "px", p);
  l->pt = int_key (k, "pt", py);
  l->pb = int_key (k, "pb", py);
  l->pl = int_key (k, "pl", px);
  l->pr = int_key (k, "pr", px);
}

void parse_wtype (Layer *l, Keys &k)
{
  const std::string t = take (k, "wtype", "fp32");
  if (t != "fp32" && t != "fp16")
    error ("wtype is fp32 or fp16");
  l->weight_type = t == "fp16" ? WeightType::kFp16 : WeightType::kFp32;
}

void parse_conv (Layer *l, Keys &k, const Shape &in)
{
  l->out_c = integer (take (k, "out"));
  parse_window (l, k);
  l->groups = int_key (k, "g", 1);
  l->dy = l->dx = int_key (k, "d", 1);
  l->dy = int_key (k, "dy", l->dy);
  l->dx = int_key (k, "dx", l->dx);
  parse_wtype (l, k);
  init_weights (l, l->out_c, in.c / std::max (l->groups, 1) * l->kh * l->kw, k);
}

int32_t eltwise_op (const std::string &s)
{
  for (int32_t op = 0; eltwise_name (op); ++op)
    if (s == eltwise_name (op))
      return op;
  error ("unknown op '" + s + "' (sum, prod, max, min, sub)");
}

/* The kinds without parameters, by statement. */
const std::map<std::string, LayerKind> kPlainKinds = {
    {"relu", LayerKind::kRelu},       {"gap", LayerKind::kGlobalAvgPool}, {"softmax", LayerKind::kSoftmax},
    {"sigmoid", LayerKind::kSigmoid}, {"tanh", LayerKind::kTanh},         {"concat", LayerKind::kConcat}};

/* One layer statement; `in` is the shape of the tensor it reads first. */
void parse_kind (const std::string &word, Keys &k, const Shape &in, Layer *l)
{
  if (kPlainKinds.count (word)) {
    l->kind = kPlainKinds.at (word);
  } else if (word == "conv") {
    l->kind = LayerKind::kConv;
    parse_conv (l, k, in);
  } else if (word == "fc") {
    l->kind = LayerKind::kFullyConnected;
    l->out_c = integer (take (k, "out"));
    parse_wtype (l, k);
    init_weights (l, l->out_c, in.count (), k);
  } else if (word == "scale") {
    l->kind = LayerKind::kScale;
    parse_wtype (l, k);
    init_weights (l, in.c, 1, k);
  } else if (word == "maxpool" || word == "avgpool") {
    l->kind = word == "maxpool" ? LayerKind::kMaxPool : LayerKind::kAvgPool;
    parse_window (l, k);
  } else if (word == "adaptive_avgpool") {
    l->kind = LayerKind::kAdaptiveAvgPool;
    l->out_h = integer (take (k, "h"));
    l->out_w = integer (take (k, "w"));
  } else if (word == "leaky") {
    l->kind = LayerKind::kLeakyRelu;
    l->alpha = float (number (take (k, "alpha")));
  } else if (word == "clip") {
    l->kind = LayerKind::kClip;
    l->alpha = float (number (take (k, "min")));
    l->beta = float (number (take (k, "max")));
  } else if (word == "eltwise") {
    l->kind = LayerKind::kEltwise;
    l->op = eltwise_op (take (k, "op"));
  } else if (word == "resize") {
    l->kind = LayerKind::kResize;
    l->sy = l->sx = int_key (k, "s", 1);
    l->sy = int_key (k, "sy", l->sy);
    l->sx = int_key (k, "sx", l->sx);
  } else {
    error ("unknown statement '" + word + "'");
  }
}

TensorSpec tensor_of (Keys k, bool is_output, const Shape &shape, int64_t batch)
{
  TensorSpec t;
  t.name = take (k, "name");
  t.layout = layout_of (take (k, "layout", "chw16"));
  t.type = type_of (take (k, "type", "fp16"));
  if (is_output) {
    t.n = batch;
    t.c = shape.c;
    t.h = shape.h;
    t.w = shape.w;
  } else {
    t.n = integer (take (k, "n", "1"));
    t.c = integer (take (k, "c"));
    t.h = integer (take (k, "h"));
    t.w = integer (take (k, "w"));
  }
  if (k.count ("scale"))
    t.scale = float (number (take (k, "scale")));
  else if (t.type == tensor::ElemType::kInt8)
    error ("an int8 tensor needs scale=");
  t.report_data_type = integer (take (k, "report_type", "-1"));
  no_leftovers (k);
  return t;
}

/* The name of the tensor a layer (or output) reads by default: the last layer's result, or input 0. */
std::string last_tensor (const Model &m)
{
  return m.layers.empty () ? m.inputs[0].name : m.layers.back ().name;
}

int32_t tensor_id (const Model &m, const std::string &name, const std::string &reader)
{
  const int32_t id = m.find_tensor (name);
  if (id < 0)
    error (reader + ": no tensor '" + name + "' before it");
  return id;
}

/* The inputs and layers of a draft, tensor names resolved to ids, shapes inferred. */
Model shaped (const Draft &d)
{
  Model m;
  for (const Keys &k : d.inputs)
    m.inputs.push_back (tensor_of (k, false, {}, 0));
  for (const LayerDraft &ld : d.layers) {
    Layer l = ld.layer;
    const std::vector<std::string> in = ld.in.empty () ? std::vector<std::string>{last_tensor (m)} : ld.in;
    for (const std::string &name : in)
      l.inputs.push_back (tensor_id (m, name, "layer '" + l.name + "'"));
    m.layers.push_back (std::move (l));
  }
  std::string why;
  if (!infer_layer_shapes (&m, &why))
    error (why);
  return m;
}

/* Builds a draft; a derived model with another input size gets the layers re-shaped (pools adapt,
 * weights stay; a layer that no longer fits is an error). */
Model build (const Draft &d)
{
  Model m = shaped (d);
  for (Keys k : d.outputs) {
    const std::string from = take (k, "from", last_tensor (m));
    const int32_t id = tensor_id (m, from, "output");
    m.outputs.push_back (tensor_of (k, true, m.shapes[size_t (id)], m.batch ()));
    m.outputs.back ().source = id;
  }
  std::string why;
  if (!infer_shapes (&m, &why))
    error (why);
  return m;
}

/* A layer statement of the draft being written. */
LayerDraft parse_layer (const std::string &word, Keys k, const Draft &cur)
{
  LayerDraft d;
  const std::string name = k.count ("name") ? take (k, "name") : "";
  if (k.count ("in"))
    d.in = names (take (k, "in"));
  const Model m = shaped (cur);
  const int32_t first = d.in.empty () ? m.find_tensor (last_tensor (m)) : tensor_id (m, d.in[0], word);
  parse_kind (word, k, m.shapes[size_t (first)], &d.layer);
  no_leftovers (k);
  round_weights (&d.layer);
  d.layer.name = name.empty ()
                     ? std::string (kind_name (d.layer.kind)) + "_" + std::to_string (cur.layers.size ())
                     : name;
  return d;
}

/* The I/O keys `set` changes: input, input1, ..., output, output1, ... */
Keys *set_target (Draft *d, const std::string &t)
{
  for (auto *list : {&d->inputs, &d->outputs}) {
    const std::string stem = list == &d->inputs ? "input" : "output";
    if (t.rfind (stem, 0) != 0)
      continue;
    const size_t idx = t.size () > stem.size () ? size_t (integer (t.substr (stem.size ()))) : 0;
    if (idx >= list->size ())
      error ("set: no " + t);
    return &(*list)[idx];
  }
  error ("set: unknown tensor '" + t + "'");
}

void apply_damage (const std::string &kind, std::vector<uint8_t> *bytes)
{
  if (kind == "truncate")
    bytes->resize (bytes->size () / 2);
  else if (kind == "magic")
    std::memcpy (bytes->data (), "NOTAMODL", 8);
  else if (kind == "nvda")
    std::memcpy (bytes->data (), "\x01\x00\x00\x00NVDA", 8); /* what an NVIDIA loadable looks like */
  else if (kind == "version")
    (*bytes)[8] = 99;
  else if (kind == "zero")
    bytes->clear ();
  else
    error ("unknown damage '" + kind + "' (truncate, magic, nvda, version, zero)");
}

}  // namespace

bool build_spec (const std::string &text, std::vector<SpecOutput> *out, std::string *why)
{
  std::map<std::string, Draft> drafts;
  std::istringstream lines (text);
  std::string line, name;
  Draft cur;
  bool open = false;
  int lineno = 0;
  try {
    while (std::getline (lines, line)) {
      ++lineno;
      const size_t hash = line.find ('#');
      if (hash != std::string::npos)
        line.resize (hash);
      std::istringstream in (line);
      std::string word;
      if (!(in >> word))
        continue;
      if (word == "model") {
        if (open)
          error ("'model' inside model " + name + " (missing 'end')");
        if (!(in >> name))
          error ("model needs a name");
        Keys k = parse_keys (in);
        cur = Draft{};
        if (k.count ("base")) {
          const std::string base = take (k, "base");
          if (!drafts.count (base))
            error ("unknown base model '" + base + "'");
          cur = drafts[base];
        }
        no_leftovers (k);
        open = true;
        continue;
      }
      if (!open)
        error ("'" + word + "' outside a model");
      if (word == "end") {
        SpecOutput o;
        o.name = name;
        o.labels = cur.labels;
        if (cur.outputs.empty ())
          error ("model " + name + " has no output");
        o.bytes = serialize_model (build (cur));
        if (!cur.broken.empty ()) {
          apply_damage (cur.broken, &o.bytes);
          o.labels.clear ();
          cur.broken.clear ();
        }
        drafts[name] = cur;
        out->push_back (std::move (o));
        open = false;
      } else if (word == "input" || word == "addinput") {
        if (word == "input" && !cur.inputs.empty ())
          error ("a second 'input': use addinput for more inputs");
        cur.inputs.push_back (parse_keys (in));
      } else if (word == "output") {
        cur.outputs.push_back (parse_keys (in));
      } else if (word == "labels") {
        std::string all;
        in >> all;
        std::stringstream ss (all);
        std::string item;
        cur.labels.clear ();
        while (std::getline (ss, item, ','))
          cur.labels.push_back (item);
      } else if (word == "set") {
        /* set input.layout=dla_linear output.type=int8 input1.c=3 */
        for (auto &kv : parse_keys (in)) {
          const size_t dot = kv.first.find ('.');
          if (dot == std::string::npos)
            error ("set needs tensor.key=value");
          const std::string t = kv.first.substr (0, dot), key = kv.first.substr (dot + 1);
          Keys *const target = set_target (&cur, t);
          if (kv.second == "none")
            target->erase (key);
          else
            (*target)[key] = kv.second;
        }
      } else if (word == "broken") {
        Keys k = parse_keys (in);
        cur.broken = take (k, "kind");
        no_leftovers (k);
      } else {
        if (cur.inputs.empty ())
          error ("layers need an input first");
        cur.layers.push_back (parse_layer (word, parse_keys (in), cur));
      }
    }
    if (open)
      error ("model " + name + " has no 'end'");
  } catch (const ParseError &e) {
    if (why)
      *why = "spec line " + std::to_string (lineno) + ": " + e.msg;
    return false;
  }
  return true;
}

}  // namespace swdla
