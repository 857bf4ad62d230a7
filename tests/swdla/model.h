/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla: the model held in memory, and its file format (FORMAT.md) read and written.
 *
 * A model is a list of I/O tensors (layout, type, dims, INT8 scale) and a chain of layers from
 * input 0 to output 0, computed in FP32. Host-only; shared by the library, the CPU executor, the
 * model tool and the tests. */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/tensor_layout.h"

namespace swdla {

constexpr char kMagic[8] = {'S', 'W', 'D', 'L', 'A', 'M', 'D', 'L'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderBytes = 32;
constexpr size_t kTensorRecordBytes = 128;
constexpr size_t kLayerFixedBytes = 56; /* kind, record bytes, 10 params, 2 counts */
constexpr size_t kNameBytes = 80;       /* names up to 79 characters, NUL-padded */

/* Limits that keep a corrupt file from asking for absurd allocations (DLA limits dims to 8192). */
constexpr int64_t kMaxDim = 8192;
constexpr int64_t kMaxBatch = 64;
constexpr size_t kMaxLayers = 64;
constexpr size_t kMaxTensors = 8;
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
};

enum class WeightType : uint32_t { kFp32 = 0, kFp16 = 1 };

const char *layer_name (LayerKind k);

struct Shape {
  int64_t c = 0, h = 0, w = 0;
  int64_t count () const { return c * h * w; }
};

struct Layer {
  LayerKind kind = LayerKind::kRelu;
  /* conv/fc: out_c; conv/pools: kernel, stride, padding; adaptive pool: out_h, out_w */
  int32_t out_c = 0, kh = 0, kw = 0, sy = 1, sx = 1, py = 0, px = 0, out_h = 0, out_w = 0;
  WeightType weight_type = WeightType::kFp32;
  /* Held as FP32; FP16 weights are exactly their widened FP16 values. conv: [out_c][in_c][kh][kw],
   * fc: [out_c][in_c*in_h*in_w] (input flattened in CHW order). Empty bias = none. */
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

  /* The layout header's view of this tensor; false for an impossible layout/type/dims. */
  bool view (tensor::View *out) const;
};

struct Model {
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<Layer> layers;
  /* Filled by infer_shapes: shapes[0] is input 0, shapes[i + 1] the result of layers[i]. */
  std::vector<Shape> shapes;

  int64_t batch () const { return inputs.empty () ? 0 : inputs[0].n; }
  /* Largest activation (floats, whole batch), for scratch buffers. */
  int64_t max_activation () const;
};

/* Checks every tensor and layer and fills model->shapes; output 0 must have the last shape. */
bool infer_shapes (Model *model, std::string *why);

/* Parses a whole file (FORMAT.md) and infers the shapes; a reason on failure. */
bool parse_model (const uint8_t *data, size_t size, Model *out, std::string *why);

/* Writes the file; FP16 weights are rounded to FP16 (the in-memory copy should hold them already). */
std::vector<uint8_t> serialize_model (const Model &model);

/* Rounds a layer's weights and bias to what its weight type stores (FP16 or unchanged). */
void round_weights (Layer *layer);

}  // namespace swdla
