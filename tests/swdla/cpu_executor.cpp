/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cpu_executor.h"

#include <algorithm>
#include <cstring>

#include "buffer_plan.h"
#include "common/numeric.h"

namespace swdla {

LayerParams layer_params (const Model &model, size_t j, const float *const *tensors, const float *weights,
                          const float *bias)
{
  const Layer &l = model.layers[j];
  const Shape &in = model.shapes[size_t (l.inputs[0])], &out = model.shapes[size_t (model.result_id (j))];
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
  p.pt = l.pt;
  p.pl = l.pl;
  p.dy = l.dy;
  p.dx = l.dx;
  p.groups = l.groups;
  p.op = l.op;
  p.alpha = l.alpha;
  p.beta = l.beta;
  p.n_in = int32_t (l.inputs.size ());
  for (size_t k = 0; k < l.inputs.size (); ++k) {
    const Shape &s = model.shapes[size_t (l.inputs[k])];
    p.in[k] = tensors[l.inputs[k]];
    p.in_ch[k] = int32_t (s.c);
    p.in_plane[k] = int32_t (s.h * s.w);
  }
  p.weights = weights;
  p.bias = l.bias.empty () ? nullptr : bias;
  p.n_weights = int32_t (l.weights.size ());
  p.n_bias = int32_t (l.bias.size ());
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

namespace {

/* Layer j over the whole batch into `out`. */
void run_layer (const Model &m, size_t j, const std::vector<const float *> &tensors, float *out)
{
  const Layer &l = m.layers[j];
  const LayerParams p = layer_params (m, j, tensors.data (), l.weights.data (), l.bias.data ());
  for (int64_t n = 0; n < m.batch (); ++n)
    for (int c = 0; c < p.out_c; ++c)
      for (int y = 0; y < p.out_h; ++y)
        for (int x = 0; x < p.out_w; ++x)
          *out++ = math::layer_output (p, n, c, y, x);
}

}  // namespace

std::vector<std::vector<float>> run_dense_cpu (const Model &model,
                                               const std::vector<std::vector<float>> &inputs)
{
  const BufferPlan plan = plan_buffers (model);
  std::vector<std::vector<float>> buffers;
  for (int64_t floats : plan.floats)
    buffers.emplace_back (size_t (floats));
  std::vector<const float *> tensors (model.tensor_count (), nullptr);
  for (size_t id = 0; id < model.tensor_count (); ++id)
    if (plan.slot[id] >= 0)
      tensors[id] = buffers[size_t (plan.slot[id])].data ();
  for (size_t k = 0; k < model.inputs.size (); ++k)
    if (plan.slot[k] >= 0)
      std::copy (inputs[k].begin (), inputs[k].end (), buffers[size_t (plan.slot[k])].begin ());
  for (size_t j = 0; j < model.layers.size (); ++j)
    run_layer (model, j, tensors, buffers[size_t (plan.slot[size_t (model.result_id (j))])].data ());
  std::vector<std::vector<float>> out;
  for (const TensorSpec &o : model.outputs) {
    const float *src = tensors[size_t (o.source)];
    out.emplace_back (src, src + o.n * o.c * o.h * o.w);
  }
  return out;
}

void run_cpu (const Model &model, const std::vector<const uint8_t *> &inputs,
              const std::vector<uint8_t *> &outputs)
{
  const BufferPlan plan = plan_buffers (model);
  std::vector<std::vector<float>> dense (model.inputs.size ());
  for (size_t k = 0; k < model.inputs.size (); ++k)
    if (plan.slot[k] >= 0)
      dense[k] = unpack_tensor (model.inputs[k], inputs[k]);
  const std::vector<std::vector<float>> results = run_dense_cpu (model, dense);
  for (size_t k = 0; k < model.outputs.size (); ++k)
    pack_tensor (model.outputs[k], results[k].data (), outputs[k]);
}

std::vector<float> run_layers_cpu (const Model &model, std::vector<float> activation)
{
  return run_dense_cpu (model, {std::move (activation)})[0];
}

}  // namespace swdla
