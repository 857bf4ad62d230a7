/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla: the model held in memory, and its file format (FORMAT.md, version 2) read and written.
 *
 * A model is a graph of named tensors: the I/O tensors (layout, type, dims, INT8 scale), and layers
 * in topological order, each reading up to 8 earlier tensors by id and giving one result, computed
 * in FP32. Tensor ids: 0 .. inputs-1 are the graph inputs, inputs + j the result of layer j; every
 * output is written from one tensor (its `source`). Host-only; shared by the library, the CPU
 * executor, the model tool and the tests. */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/tensor_layout.h"

namespace swdla {

constexpr char kMagic[8] = {'S', 'W', 'D', 'L', 'A', 'M', 'D', 'L'};
constexpr uint32_t kFormatVersion = 2;
constexpr size_t kHeaderBytes = 32;
constexpr size_t kTensorRecordBytes = 128;
constexpr size_t kLayerFixedBytes = 216; /* up to the weights (FORMAT.md) */
constexpr size_t kNameBytes = 80;        /* names up to 79 characters, NUL-padded */
constexpr size_t kMaxLayerInputs = 8;

/* Limits that keep a corrupt file from asking for absurd allocations (DLA limits dims to 8192). */
constexpr int64_t kMaxDim = 8192;
constexpr int64_t kMaxBatch = 64;
constexpr size_t kMaxLayers = 1024;
constexpr size_t kMaxTensors = 16;                    /* inputs, and outputs */
constexpr int64_t kMaxActivation = int64_t (1) << 28; /* floats per activation */

enum class LayerKind : uint32_t {
  kConv = 1,
  kRelu = 2,
  kMaxPool = 3,
  kAvgPool = 4,
  kGlobalAvgPool = 5,
  kFullyConnected = 6,
  kSoftmax = 7,
  kAdaptiveAvgPool = 8,
  kLeakyRelu = 9,
  kSigmoid = 10,
  kTanh = 11,
  kClip = 12,
  kEltwise = 13,
  kConcat = 14,
  kResize = 15,
  kScale = 16,
};

/* Eltwise ops (Layer::op). */
enum class EltwiseOp : int32_t { kSum = 0, kProd = 1, kMax = 2, kMin = 3, kSub = 4 };

enum class WeightType : uint32_t { kFp32 = 0, kFp16 = 1 };

/* "conv", "eltwise", ...; "unknown" for other values. */
const char *kind_name (LayerKind k);
/* "sum", "prod", "max", "min", "sub"; nullptr for other values. */
const char *eltwise_name (int32_t op);

struct Shape {
  int64_t c = 0, h = 0, w = 0;
  int64_t count () const { return c * h * w; }
};

struct Layer {
  LayerKind kind = LayerKind::kRelu;
  std::string name;            /* the result's name, unique among tensors */
  std::vector<int32_t> inputs; /* tensor ids, each smaller than this layer's result id */
  /* The record's 16 int parameters (FORMAT.md says which kind uses which); sy, sx, dy, dx, groups
   * are 1 when unused, the rest 0. */
  int32_t out_c = 0, kh = 0, kw = 0, sy = 1, sx = 1;
  int32_t pt = 0, pl = 0, pb = 0, pr = 0; /* padding top, left, bottom, right */
  int32_t dy = 1, dx = 1, groups = 1, out_h = 0, out_w = 0, op = 0;
  float alpha = 0.f, beta = 0.f; /* leaky: slope; clip: min, max */
  WeightType weight_type = WeightType::kFp32;
  /* Held as FP32; FP16 weights are exactly their widened FP16 values. conv: [out_c][in_c/groups][kh][kw],
   * fc: [out_c][in_c*in_h*in_w] (input flattened in CHW order), scale: C or 1. Empty bias = none. */
  std::vector<float> weights;
  std::vector<float> bias;
};

struct TensorSpec {
  std::string name;
  tensor::Layout layout = tensor::Layout::kChw16;
  tensor::ElemType type = tensor::ElemType::kFp16;
  int64_t n = 1, c = 1, h = 1, w = 1;
  float scale = 1.f;             /* INT8: real value = q * scale */
  int32_t report_data_type = -1; /* >= 0: the descriptor's dataType says this instead (tests) */
  int32_t source = -1;           /* outputs: the tensor id written out; inputs: -1 */

  /* The layout header's view of this tensor; false for an impossible layout/type/dims. */
  bool view (tensor::View *out) const;
};

struct Model {
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<Layer> layers;
  /* Filled by infer_shapes: the shape of every tensor id (one image). */
  std::vector<Shape> shapes;

  int64_t batch () const { return inputs.empty () ? 0 : inputs[0].n; }
  size_t tensor_count () const { return inputs.size () + layers.size (); }
  int32_t result_id (size_t layer) const { return int32_t (inputs.size () + layer); }
  /* An input's or a layer's name; "" for an unknown id. */
  std::string tensor_name (int32_t id) const;
  /* The id of the tensor called `name`, -1 if none. */
  int32_t find_tensor (const std::string &name) const;
};

/* Checks every input and layer against the format's and the DLA's limits and fills model->shapes
 * (outputs not looked at: the spec reader shapes unfinished models with it). */
bool infer_layer_shapes (Model *model, std::string *why);

/* infer_layer_shapes, then every output: its source, its dims (source shape, input 0's batch). */
bool infer_shapes (Model *model, std::string *why);

/* Parses a whole file (FORMAT.md) and infers the shapes; a one-line reason on failure. */
bool parse_model (const uint8_t *data, size_t size, Model *out, std::string *why);

/* Writes the file (version 2); FP16 weights are rounded to FP16 (the in-memory copy should hold
 * them already). Writes what it is given: checking is parse_model's. */
std::vector<uint8_t> serialize_model (const Model &model);

/* Rounds a layer's weights and bias to what its weight type stores (FP16 or unchanged). */
void round_weights (Layer *layer);

}  // namespace swdla
