/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cpu_executor.h"

#include <cstring>

#include "common/numeric.h"

namespace swdla {

LayerParams layer_params (const Model &model, size_t i, const float *weights, const float *bias)
{
  const Layer &l = model.layers[i];
  const Shape &in = model.shapes[i], &out = model.shapes[i + 1];
  LayerParams p{};
  p.kind = uint32_t (l.kind);
  p.in_c = int32_t (in.c);
  p.in_h = int32_t (in.h);
  p.in_w = int32_t (in.w);
  p.out_c = int32_t (out.c);
  p.out_h = int32_t (out.h);
  p.out_w = int32_t (out.w);
  p.kh = l.kh;
  p.kw = l.kw;
  p.sy = l.sy;
  p.sx = l.sx;
  p.py = l.py;
  p.px = l.px;
  p.weights = weights;
  p.bias = l.bias.empty () ? nullptr : bias;
  return p;
}

std::vector<float> unpack_tensor (const TensorSpec &t, const uint8_t *bytes)
{
  tensor::View v;
  t.view (&v);
  std::vector<float> out (size_t (t.n * t.c * t.h * t.w));
  size_t i = 0;
  for (int64_t n = 0; n < t.n; ++n)
    for (int64_t c = 0; c < t.c; ++c)
      for (int64_t y = 0; y < t.h; ++y)
        for (int64_t x = 0; x < t.w; ++x) {
          const uint8_t *p = bytes + v.offset (n, c, y, x);
          if (t.type == tensor::ElemType::kFp16) {
            uint16_t h;
            std::memcpy (&h, p, 2);
            out[i++] = tensor::half_to_float (h);
          } else {
            out[i++] = tensor::dequantize_int8 (int8_t (*p), t.scale);
          }
        }
  return out;
}

void pack_tensor (const TensorSpec &t, const float *dense, uint8_t *bytes)
{
  tensor::View v;
  t.view (&v);
  std::memset (bytes, 0, size_t (v.size));
  size_t i = 0;
  for (int64_t n = 0; n < t.n; ++n)
    for (int64_t c = 0; c < t.c; ++c)
      for (int64_t y = 0; y < t.h; ++y)
        for (int64_t x = 0; x < t.w; ++x) {
          uint8_t *p = bytes + v.offset (n, c, y, x);
          if (t.type == tensor::ElemType::kFp16) {
            const uint16_t h = tensor::float_to_half (dense[i++]);
            std::memcpy (p, &h, 2);
          } else {
            *p = uint8_t (tensor::quantize_int8 (dense[i++], t.scale));
          }
        }
}

std::vector<float> run_layers_cpu (const Model &model, std::vector<float> act)
{
  const int64_t batch = model.batch ();
  for (size_t i = 0; i < model.layers.size (); ++i) {
    const LayerParams p =
        layer_params (model, i, model.layers[i].weights.data (), model.layers[i].bias.data ());
    const Shape &in = model.shapes[i], &out = model.shapes[i + 1];
    std::vector<float> next (size_t (batch * out.count ()));
    size_t k = 0;
    for (int64_t n = 0; n < batch; ++n) {
      const float *image = act.data () + n * in.count ();
      for (int c = 0; c < out.c; ++c)
        for (int y = 0; y < out.h; ++y)
          for (int x = 0; x < out.w; ++x)
            next[k++] = math::layer_output (p, image, c, y, x);
    }
    act.swap (next);
  }
  return act;
}

void run_cpu (const Model &model, const std::vector<const uint8_t *> &inputs, uint8_t *output)
{
  const std::vector<float> result = run_layers_cpu (model, unpack_tensor (model.inputs[0], inputs[0]));
  pack_tensor (model.outputs[0], result.data (), output);
}

}  // namespace swdla
