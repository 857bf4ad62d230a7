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

/* A layer with its input/output shapes and weight pointers (host or device), POD for kernels. */
struct LayerParams {
  uint32_t kind; /* LayerKind */
  int32_t in_c, in_h, in_w, out_c, out_h, out_w;
  int32_t kh, kw, sy, sx, py, px;
  const float *weights;
  const float *bias; /* nullptr: none */
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
  kAdaptive = 8
};

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
  const int y0 = oy * p.sy - p.py, x0 = ox * p.sx - p.px;
  return Window{y0 < 0 ? 0 : y0, y0 + p.kh > p.in_h ? p.in_h : y0 + p.kh, x0 < 0 ? 0 : x0,
                x0 + p.kw > p.in_w ? p.in_w : x0 + p.kw};
}

/* Output element (oc, oy, ox) of one image; `in` is that image's dense [C][H][W] FP32 input. */
SWDLA_HD float layer_output (const LayerParams &p, const float *in, int oc, int oy, int ox)
{
  switch (p.kind) {
    case kConv: {
      float sum = p.bias ? p.bias[oc] : 0.f;
      const float *wk = p.weights + int64_t (oc) * p.in_c * p.kh * p.kw;
      for (int ic = 0; ic < p.in_c; ++ic)
        for (int ky = 0; ky < p.kh; ++ky) {
          const int y = oy * p.sy - p.py + ky;
          for (int kx = 0; kx < p.kw; ++kx) {
            const int x = ox * p.sx - p.px + kx;
            if (y >= 0 && y < p.in_h && x >= 0 && x < p.in_w) /* zero padding */
              sum += wk[(ic * p.kh + ky) * p.kw + kx] * at (p, in, ic, y, x);
          }
        }
      return sum;
    }
    case kRelu: {
      const float v = at (p, in, oc, oy, ox);
      return v > 0.f ? v : 0.f;
    }
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
      const int64_t n = int64_t (p.in_c) * p.in_h * p.in_w;
      const float *wk = p.weights + oc * n;
      for (int64_t i = 0; i < n; ++i)
        sum += wk[i] * in[i];
      return sum;
    }
    case kSoftmax: {
      /* Over channels at each position. */
      float m = -INFINITY;
      for (int c = 0; c < p.in_c; ++c)
        m = fmaxf (m, at (p, in, c, oy, ox));
      float s = 0.f;
      for (int c = 0; c < p.in_c; ++c)
        s += expf (at (p, in, c, oy, ox) - m);
      return expf (at (p, in, oc, oy, ox) - m) / s;
    }
  }
  return 0.f;
}

}  // namespace math
}  // namespace swdla
