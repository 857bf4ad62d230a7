/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Detection heads for the GPU decode's test and benchmark: a plan from `dlainfer-*` keys and
 * descriptors, and host tensors in their DLA layout filled from the plan's fields: random box
 * channels (pad lanes too), deciding logits far below the threshold except at `hits` random
 * candidates, which get one high class (and objectness). Header-only, for GPU test programs. */
#pragma once

#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/numeric.h"
#include "host/detect/plan.h"

namespace detect_cases {

struct Head {
  std::unique_ptr<detect::Plan> plan = std::make_unique<detect::Plan> ();
  std::vector<std::vector<uint8_t>> data; /* per output, view.size bytes */
  std::string error;
};

inline void put (const detect::Plan &p, Head *h, int o, int ch, int y, int x, float v)
{
  const tensor::View &view = p.output[o];
  uint8_t *b = h->data[size_t (o)].data () + view.offset (0, ch, y, x);
  if (view.type == tensor::ElemType::kInt8) {
    *reinterpret_cast<int8_t *> (b) = tensor::quantize_int8 (v, p.output_scale[o]);
  } else {
    const uint16_t bits = tensor::float_to_half (v);
    b[0] = uint8_t (bits & 0xff);
    b[1] = uint8_t (bits >> 8);
  }
}

/* Sets the score channels of candidate (level l, anchor a, y, x): low, or high for class `hit`. */
inline void set_scores (const detect::Plan &p, Head *h, int l, int a, int y, int x, int hit,
                        std::mt19937 &rng)
{
  const detect::Level &L = p.level[l];
  std::uniform_real_distribution<float> low (-9.f, -6.f), high (1.f, 5.f);
  if (L.obj.output >= 0)
    put (p, h, L.obj.output, L.obj.channel0 + a * L.obj.anchor_stride, y, x,
         hit >= 0 ? high (rng) : low (rng));
  for (int c = 0; c < p.classes; ++c) {
    float v = c == hit ? high (rng) : low (rng);
    if (c == p.background)
      v = hit >= 0 ? -3.f : 6.f;
    put (p, h, L.cls.output, L.cls.channel0 + a * L.cls.anchor_stride + c, y, x, v);
  }
}

/* The plan for `keys` over `outputs` (input w x h) and the filled tensors; h->error when refused. */
inline void make_head (const std::map<std::string, std::string> &keys, int w, int h_in,
                       const std::vector<host::TensorDesc> &outputs, const std::vector<float> &scales,
                       int hits, uint32_t seed, Head *h)
{
  detect::Config c;
  detect::ModelTensors m;
  m.input_width = w;
  m.input_height = h_in;
  m.outputs = outputs;
  m.output_scales = scales;
  host::Status s = detect::parse_config (keys, &c);
  if (s.ok ())
    s = detect::build_plan (c, m, h->plan.get ());
  if (!s.ok ()) {
    h->error = s.message;
    return;
  }
  const detect::Plan &p = *h->plan;
  std::mt19937 rng (seed);
  std::uniform_real_distribution<float> any (-2.f, 2.f);
  for (int o = 0; o < p.outputs; ++o) {
    h->data.emplace_back (size_t (p.output[o].size));
    for (auto &b : h->data.back ())
      b = p.output[o].type == tensor::ElemType::kInt8 ? uint8_t (int8_t (any (rng) * 10.f)) : 0;
    for (int64_t g = 0; g < p.output[o].padded_channels (); ++g)
      for (int64_t y = 0; y < p.output[o].h; ++y)
        for (int64_t x = 0; x < p.output[o].w; ++x)
          if (p.output[o].type == tensor::ElemType::kFp16)
            put (p, h, o, int (g), int (y), int (x), any (rng));
  }
  std::uniform_int_distribution<int> pick (0, p.candidates - 1);
  std::vector<int> hit (size_t (p.candidates), -1);
  for (int k = 0; k < hits; ++k)
    hit[size_t (pick (rng))] = int (rng () % uint32_t (p.classes > 1 ? p.classes : 1));
  for (int i = 0; i < p.candidates; ++i) {
    int l = 0;
    while (l + 1 < p.levels && i >= p.level[l + 1].first)
      ++l;
    const detect::Level &L = p.level[l];
    const int r = i - L.first, x = r % L.w, y = (r / L.w) % L.h, a = r / (L.w * L.h);
    int cls = hit[size_t (i)];
    if (cls >= 0 && cls == p.background)
      cls = (cls + 1) % p.classes;
    set_scores (p, h, l, a, y, x, cls, rng);
  }
}

inline host::TensorDesc out (const char *name, tensor::Layout l, tensor::ElemType t, int64_t c, int64_t hh,
                             int64_t w)
{
  host::TensorDesc d;
  d.name = name;
  tensor::make_view (l, t, 1, c, hh, w, &d.view);
  return d;
}

/* A YOLOv5s-640 head as cuDLA-samples' loadable ends: three FP16 chw16 outputs of 255 channels. */
inline void yolov5s_head (int hits, uint32_t seed, Head *h, tensor::Layout l = tensor::Layout::kChw16,
                          tensor::ElemType t = tensor::ElemType::kFp16)
{
  const std::map<std::string, std::string> keys = {
      {"dlainfer-decoder", "yolo-anchors"},
      {"dlainfer-classes", "80"},
      {"dlainfer-strides", "8,16,32"},
      {"dlainfer-anchors", "10,13,16,30,33,23;30,61,62,45,59,119;116,90,156,198,373,326"},
      {"dlainfer-threshold", "0.25"},
      {"dlainfer-nms-iou-threshold", "0.45"}};
  make_head (keys, 640, 640,
             {out ("s8", l, t, 255, 80, 80), out ("s16", l, t, 255, 40, 40), out ("s32", l, t, 255, 20, 20)},
             {0.05f, 0.05f, 0.05f}, hits, seed, h);
}

/* Copies the head's tensors to device memory: f->outputs point there, *dev owns them (cudaFree). */
inline cudaError_t upload (const Head &h, detect::Frame *f, std::vector<void *> *dev)
{
  for (size_t o = 0; o < h.data.size (); ++o) {
    void *d = nullptr;
    cudaError_t e = cudaMalloc (&d, h.data[o].size ());
    if (e == cudaSuccess)
      e = cudaMemcpy (d, h.data[o].data (), h.data[o].size (), cudaMemcpyHostToDevice);
    if (e != cudaSuccess)
      return e;
    f->outputs[o] = d;
    dev->push_back (d);
  }
  return cudaSuccess;
}

}  // namespace detect_cases
