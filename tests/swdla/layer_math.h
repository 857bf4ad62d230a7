/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla: one output element of each layer, for the CPU executor and the CUDA kernels alike (FP32,
 * no FMA contraction: see meson.build). The CUDA executor sums averages and fully connected layers
 * in parallel (cuda_executor.cu), so those differ from the CPU's serial sums by rounding only. */
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define SWDLA_HD __host__ __device__ inline
#else
#define SWDLA_HD inline
#endif

#include <math.h>

namespace swdla {

constexpr int kMaxParamInputs = 8; /* = kMaxLayerInputs (model.h), without model.h in device code */

/* A layer with its input/output shapes, its input tensors and weights (host or device pointers),
 * POD for kernels. Input k of image n is in[k] + n * in_c[k] * in_plane[k], dense [C][H][W]. */
struct LayerParams {
  uint32_t kind;                  /* LayerKind */
  int32_t in_c, in_h, in_w;       /* input 0 */
  int32_t out_c, out_h, out_w;    /* the result */
  int32_t kh, kw, sy, sx, pt, pl; /* windows; resize: sy, sx are the scales */
  int32_t dy, dx, groups, op;
  float alpha, beta;
  int32_t n_in;
  const float *in[kMaxParamInputs];
  int32_t in_ch[kMaxParamInputs];    /* channels of each input (concat) */
  int32_t in_plane[kMaxParamInputs]; /* h * w of each input (1: eltwise per-channel broadcast) */
  const float *weights;
  const float *bias; /* nullptr: none */
  int32_t n_weights, n_bias;
};

namespace math {

/* Same values as LayerKind (model.h), without pulling std::string into device code. */
enum : uint32_t {
  kConv = 1,
  kRelu = 2,
  kMaxPool = 3,
  kAvgPool = 4,
  kGap = 5,
  kFc = 6,
  kSoftmax = 7,
  kAdaptive = 8,
  kLeaky = 9,
  kSigmoid = 10,
  kTanh = 11,
  kClip = 12,
  kEltwise = 13,
  kConcat = 14,
  kResize = 15,
  kScale = 16
};

/* Input k of image n. */
SWDLA_HD const float *image (const LayerParams &p, int k, int64_t n)
{
  return p.in[k] + n * p.in_ch[k] * int64_t (p.in_plane[k]);
}

/* Element (c, y, x) of input 0's image `in`. */
SWDLA_HD float at (const LayerParams &p, const float *in, int c, int y, int x)
{
  return in[(int64_t (c) * p.in_h + y) * p.in_w + x];
}

/* Rows [y0, y1) and columns [x0, x1) that a pooling output (oy, ox) reads. */
struct Window {
  int y0, y1, x0, x1;
};

/* Max and average pooling windows are clipped to the input: padding never wins a max and is not
 * counted in a mean. */
SWDLA_HD Window pool_window (const LayerParams &p, int oy, int ox)
{
  if (p.kind == kGap)
    return Window{0, p.in_h, 0, p.in_w};
  if (p.kind == kAdaptive) /* PyTorch's AdaptiveAvgPool2d windows: [floor(i*H/oh), ceil((i+1)*H/oh)). */
    return Window{oy * p.in_h / p.out_h, ((oy + 1) * p.in_h + p.out_h - 1) / p.out_h, ox * p.in_w / p.out_w,
                  ((ox + 1) * p.in_w + p.out_w - 1) / p.out_w};
  const int y0 = oy * p.sy - p.pt, x0 = ox * p.sx - p.pl;
  return Window{y0 < 0 ? 0 : y0, y0 + p.kh > p.in_h ? p.in_h : y0 + p.kh, x0 < 0 ? 0 : x0,
                x0 + p.kw > p.in_w ? p.in_w : x0 + p.kw};
}

/* Grouped, dilated convolution with zero padding: output channel oc reads the in_c/groups channels
 * of its group. */
SWDLA_HD float conv (const LayerParams &p, const float *in, int oc, int oy, int ox)
{
  const int group_in = p.in_c / p.groups, group = oc / (p.out_c / p.groups);
  float sum = p.bias ? p.bias[oc] : 0.f;
  const float *wk = p.weights + int64_t (oc) * group_in * p.kh * p.kw;
  for (int ic = 0; ic < group_in; ++ic)
    for (int ky = 0; ky < p.kh; ++ky) {
      const int y = oy * p.sy - p.pt + ky * p.dy;
      for (int kx = 0; kx < p.kw; ++kx) {
        const int x = ox * p.sx - p.pl + kx * p.dx;
        if (y >= 0 && y < p.in_h && x >= 0 && x < p.in_w) /* zero padding */
          sum += wk[(ic * p.kh + ky) * p.kw + kx] * at (p, in, group * group_in + ic, y, x);
      }
    }
  return sum;
}

/* One-input, element-wise kinds (relu, leaky, sigmoid, tanh, clip, scale) of value v in channel c. */
SWDLA_HD float pointwise (const LayerParams &p, float v, int c)
{
  switch (p.kind) {
    case kRelu:
      return v > 0.f ? v : 0.f;
    case kLeaky:
      return v > 0.f ? v : v * p.alpha;
    case kSigmoid:
      return 1.f / (1.f + expf (-v));
    case kTanh:
      return tanhf (v);
    case kClip:
      return fminf (fmaxf (v, p.alpha), p.beta);
    case kScale: {
      const float y = v * p.weights[p.n_weights == 1 ? 0 : c];
      return p.n_bias == 0 ? y : y + p.bias[p.n_bias == 1 ? 0 : c];
    }
  }
  return 0.f;
}

/* Two inputs, the second the same shape or one value per channel. */
SWDLA_HD float eltwise (const LayerParams &p, int64_t n, int c, int y, int x)
{
  const float a = at (p, image (p, 0, n), c, y, x);
  const float *in1 = image (p, 1, n) + int64_t (c) * p.in_plane[1];
  const float b = p.in_plane[1] == 1 ? in1[0] : in1[int64_t (y) * p.in_w + x];
  switch (p.op) {
    case 0:
      return a + b;
    case 1:
      return a * b;
    case 2:
      return fmaxf (a, b);
    case 3:
      return fminf (a, b);
  }
  return a - b;
}

/* Channel c of the inputs stacked in order (same height and width). */
SWDLA_HD float concat (const LayerParams &p, int64_t n, int c, int y, int x)
{
  int k = 0;
  while (k < p.n_in - 1 && c >= p.in_ch[k])
    c -= p.in_ch[k++];
  return image (p, k, n)[(int64_t (c) * p.in_h + y) * p.in_w + x];
}

SWDLA_HD float softmax (const LayerParams &p, const float *in, int oc, int oy, int ox)
{
  /* Over channels at each position. */
  float m = -INFINITY;
  for (int c = 0; c < p.in_c; ++c)
    m = fmaxf (m, at (p, in, c, oy, ox));
  float s = 0.f;
  for (int c = 0; c < p.in_c; ++c)
    s += expf (at (p, in, c, oy, ox) - m);
  return expf (at (p, in, oc, oy, ox) - m) / s;
}

/* Output element (oc, oy, ox) of image n. */
SWDLA_HD float layer_output (const LayerParams &p, int64_t n, int oc, int oy, int ox)
{
  const float *in = image (p, 0, n);
  switch (p.kind) {
    case kConv:
      return conv (p, in, oc, oy, ox);
    case kMaxPool: {
      const Window w = pool_window (p, oy, ox);
      float m = -INFINITY;
      for (int y = w.y0; y < w.y1; ++y)
        for (int x = w.x0; x < w.x1; ++x)
          m = fmaxf (m, at (p, in, oc, y, x));
      return m;
    }
    case kAvgPool:
    case kGap:
    case kAdaptive: {
      const Window w = pool_window (p, oy, ox);
      float sum = 0.f;
      for (int y = w.y0; y < w.y1; ++y)
        for (int x = w.x0; x < w.x1; ++x)
          sum += at (p, in, oc, y, x);
      return sum / float ((w.y1 - w.y0) * (w.x1 - w.x0));
    }
    case kFc: {
      float sum = p.bias ? p.bias[oc] : 0.f;
      const int64_t count = int64_t (p.in_c) * p.in_h * p.in_w;
      const float *wk = p.weights + oc * count;
      for (int64_t i = 0; i < count; ++i)
        sum += wk[i] * in[i];
      return sum;
    }
    case kSoftmax:
      return softmax (p, in, oc, oy, ox);
    case kEltwise:
      return eltwise (p, n, oc, oy, ox);
    case kConcat:
      return concat (p, n, oc, oy, ox);
    case kResize: /* nearest, integer scales (ONNX asymmetric + floor) */
      return at (p, in, oc, oy / p.sy, ox / p.sx);
  }
  return pointwise (p, at (p, in, oc, oy, ox), oc);
}

}  // namespace math
}  // namespace swdla
