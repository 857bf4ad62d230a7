/* The fused preprocessing kernel: one thread per output pixel vector (conventions in preprocess.h;
 * preprocess_ref.cpp is the definition it must match). Templated on layout and element type only;
 * format, siting, matrix, geometry, antialias and order are runtime values. */
#ifndef PREPROCESS_EMULATE /* tests/kernels/cuda_emulation.h runs this file on the CPU for CI */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#endif

#include <cstdint>

#include "preprocess_plan.h"

namespace preprocess {
namespace {

/* YUV code values to RGB 0..255: R = ys (Y - yoff) + crv (V - 128), G = ys (Y - yoff) - cgu (U -
 * 128) - cgv (V - 128), B = ys (Y - yoff) + cbu (U - 128). */
struct Colour {
  float ys, yoff, crv, cgu, cgv, cbu;
};

enum class Source : int { kNV12, kI420, kPacked };

struct Args {
  const uint8_t *planes[3];
  int64_t pitches[3];
  Source source;
  int rgb_byte[3]; /* packed formats: byte of R, G, B in a pixel */
  bool cosited_h, cosited_v;
  Colour colour;
  tensor::View dst;
  uint8_t *dst_ptr;
  int vectors_per_row; /* row_stride / pixel_stride: tails are written as zero vectors */
  bool antialias;
  int from[3]; /* tensor channel c takes RGB component from[c] */
  float mean[3], std[3], pad[3], int8_scale;
  detail::Plan plan;
};

/* The filter of one output sample along one axis: centre cint + cfrac (kept apart so the distance to
 * a tap is exact in float), taps [first, last], weights 1 - |x + 0.5 - c| / support over their sum. */
struct Taps {
  int first, last, cint;
  float cfrac, inv_support, inv_sum;
};

__device__ __forceinline__ float weight (const Taps &t, int x)
{
  const float d = fabsf (float (x - t.cint) + 0.5f - t.cfrac) * t.inv_support;
  return fmaxf (1.f - d, 0.f);
}

/* Centre num / den (a rational, exact for every crop and size), samples [lo, hi). */
__device__ Taps make_taps (int64_t num, int64_t den, float scale, bool antialias, int lo, int hi)
{
  Taps t;
  t.cint = int (num / den);
  t.cfrac = float (num - int64_t (t.cint) * den) / float (den);
  const float support = antialias && scale > 1.f ? scale : 1.f;
  t.inv_support = 1.f / support;
  t.first = max (t.cint + int (floorf (t.cfrac - support - 0.5f)), lo);
  t.last = min (t.cint + int (ceilf (t.cfrac + support - 0.5f)), hi - 1);
  float sum = 0.f;
  for (int x = t.first; x <= t.last; ++x)
    sum += weight (t, x);
  t.inv_sum = 1.f / sum;
  return t;
}

/* Luma (or packed RGB) taps of virtual pixel v: centre origin + (2v + 1) len / (2 size). */
__device__ Taps luma_taps (const detail::AxisPlan &a, int v, bool antialias)
{
  const int64_t den = 2 * int64_t (a.size);
  const int64_t num = (2 * int64_t (v) + 1) * a.len + int64_t (a.origin) * den;
  return make_taps (num, den, float (a.len) / float (a.size), antialias, a.origin, a.origin + a.len);
}

/* Chroma taps: luma centre / 2, plus 1/4 when co-sited. */
__device__ Taps chroma_taps (const detail::AxisPlan &a, int v, bool antialias, bool cosited)
{
  const int64_t den = 4 * int64_t (a.size);
  const int64_t num =
      (2 * int64_t (v) + 1) * a.len + int64_t (a.origin) * 2 * a.size + (cosited ? a.size : 0);
  int lo, hi;
  detail::chroma_bounds (a.origin, a.len, &lo, &hi);
  return make_taps (num, den, float (a.len) / float (2 * a.size), antialias, lo, hi);
}

/* Sum of weight * fetch over the taps, N channels at once. */
template <int N, typename Fetch>
__device__ __forceinline__ void resample (const Taps &tx, const Taps &ty, Fetch fetch, float out[N])
{
  float acc[N] = {};
  for (int y = ty.first; y <= ty.last; ++y) {
    float row[N] = {};
    for (int x = tx.first; x <= tx.last; ++x) {
      const float wx = weight (tx, x);
      float v[N];
      fetch (x, y, v);
      for (int n = 0; n < N; ++n)
        row[n] += wx * v[n];
    }
    const float wy = weight (ty, y);
    for (int n = 0; n < N; ++n)
      acc[n] += wy * row[n];
  }
  for (int n = 0; n < N; ++n)
    out[n] = acc[n] * tx.inv_sum * ty.inv_sum;
}

__device__ void sample_rgb (const Args &a, const detail::RoiPlan &r, int vx, int vy, float rgb[3])
{
  const Taps lx = luma_taps (r.x, vx, a.antialias), ly = luma_taps (r.y, vy, a.antialias);
  if (a.source == Source::kPacked) {
    const uint8_t *p = a.planes[0];
    const int64_t pitch = a.pitches[0];
    const int b0 = a.rgb_byte[0], b2 = a.rgb_byte[2];
    resample<3> (
        lx, ly,
        [&] (int x, int y, float v[3]) {
          const uint32_t px = __ldg (reinterpret_cast<const uint32_t *> (p + y * pitch) + x);
          v[0] = float ((px >> (8 * b0)) & 0xffu);
          v[1] = float ((px >> 8) & 0xffu);
          v[2] = float ((px >> (8 * b2)) & 0xffu);
        },
        rgb);
    return;
  }
  float y, uv[2];
  {
    const uint8_t *p = a.planes[0];
    const int64_t pitch = a.pitches[0];
    resample<1> (
        lx, ly, [&] (int x, int yy, float v[1]) { v[0] = float (__ldg (p + yy * pitch + x)); }, &y);
  }
  const Taps cx = chroma_taps (r.x, vx, a.antialias, a.cosited_h);
  const Taps cy = chroma_taps (r.y, vy, a.antialias, a.cosited_v);
  if (a.source == Source::kNV12) {
    const uint8_t *p = a.planes[1];
    const int64_t pitch = a.pitches[1];
    resample<2> (
        cx, cy,
        [&] (int x, int yy, float v[2]) {
          const uchar2 c = __ldg (reinterpret_cast<const uchar2 *> (p + yy * pitch) + x);
          v[0] = float (c.x);
          v[1] = float (c.y);
        },
        uv);
  } else {
    const uint8_t *pu = a.planes[1], *pv = a.planes[2];
    const int64_t su = a.pitches[1], sv = a.pitches[2];
    resample<2> (
        cx, cy,
        [&] (int x, int yy, float v[2]) {
          v[0] = float (__ldg (pu + yy * su + x));
          v[1] = float (__ldg (pv + yy * sv + x));
        },
        uv);
  }
  const Colour &k = a.colour;
  const float yy = k.ys * (y - k.yoff), u = uv[0] - 128.f, v = uv[1] - 128.f;
  rgb[0] = fminf (fmaxf (yy + k.crv * v, 0.f), 255.f);
  rgb[1] = fminf (fmaxf (yy - k.cgu * u - k.cgv * v, 0.f), 255.f);
  rgb[2] = fminf (fmaxf (yy + k.cbu * u, 0.f), 255.f);
}

/* One element's bits: FP16 as __float2half_rn, INT8 as round-half-even(value / scale) saturated,
 * the same rounding as tensor::float_to_half / quantize_int8 on the host. */
template <tensor::ElemType T>
__device__ __forceinline__ uint32_t encode (float value, float int8_scale)
{
  if (T == tensor::ElemType::kFp16)
    return __half_as_ushort (__float2half_rn (value));
  const int q = __float2int_rn (value / int8_scale);
  return uint32_t (uint8_t (int8_t (min (max (q, -128), 127))));
}

template <tensor::Layout L, tensor::ElemType T>
__global__ void __launch_bounds__ (256) preprocess_kernel (const __grid_constant__ Args a)
{
  const int ox = blockIdx.x * blockDim.x + threadIdx.x;
  const int oy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ox >= a.vectors_per_row || oy >= a.dst.h)
    return;
  const detail::RoiPlan &r = a.plan.rois[blockIdx.z];

  uint32_t e[3] = {0u, 0u, 0u}; /* encoded channels; stay zero in the row tail */
  if (ox < a.dst.w) {
    const int vx = ox + r.x.off, vy = oy + r.y.off;
    float rgb[3];
    if (vx < 0 || vx >= r.x.size || vy < 0 || vy >= r.y.size) {
      for (int c = 0; c < 3; ++c)
        rgb[c] = a.pad[c];
    } else {
      sample_rgb (a, r, vx, vy, rgb);
    }
    for (int c = 0; c < 3; ++c)
      e[c] = encode<T> ((rgb[a.from[c]] / 255.f - a.mean[c]) / a.std[c], a.int8_scale);
  }

  uint8_t *base = a.dst_ptr + a.dst.offset (r.batch, 0, oy, ox);
  if (L == tensor::Layout::kDlaLinear) {
    for (int c = 0; c < 3; ++c) {
      uint8_t *p = a.dst_ptr + a.dst.offset (r.batch, c, oy, ox);
      if (T == tensor::ElemType::kFp16)
        *reinterpret_cast<uint16_t *> (p) = uint16_t (e[c]);
      else
        *p = uint8_t (e[c]);
    }
  } else if (L == tensor::Layout::kDlaHwc4) {
    if (T == tensor::ElemType::kFp16)
      *reinterpret_cast<uint2 *> (base) = make_uint2 (e[0] | (e[1] << 16), e[2]);
    else
      *reinterpret_cast<uint32_t *> (base) = e[0] | (e[1] << 8) | (e[2] << 16);
  } else { /* chw16 FP16 or chw32 INT8: one 32-byte vector, 3 channels then zero lanes */
    const uint32_t w0 =
        T == tensor::ElemType::kFp16 ? (e[0] | (e[1] << 16)) : (e[0] | (e[1] << 8) | (e[2] << 16));
    const uint32_t w1 = T == tensor::ElemType::kFp16 ? e[2] : 0u;
    reinterpret_cast<uint4 *> (base)[0] = make_uint4 (w0, w1, 0u, 0u);
    reinterpret_cast<uint4 *> (base)[1] = make_uint4 (0u, 0u, 0u, 0u);
  }
}

Colour make_colour (Matrix m, Range range)
{
  const double kr = m == Matrix::kBT601 ? 0.299 : m == Matrix::kBT709 ? 0.2126 : 0.2627;
  const double kb = m == Matrix::kBT601 ? 0.114 : m == Matrix::kBT709 ? 0.0722 : 0.0593;
  const double kg = 1.0 - kr - kb;
  const bool full = range == Range::kFull;
  const double cs = full ? 1.0 : 255.0 / 224.0;
  Colour c;
  c.ys = float (full ? 1.0 : 255.0 / 219.0);
  c.yoff = full ? 0.f : 16.f;
  c.crv = float (2.0 * (1.0 - kr) * cs);
  c.cbu = float (2.0 * (1.0 - kb) * cs);
  c.cgu = float (2.0 * (1.0 - kb) * kb / kg * cs);
  c.cgv = float (2.0 * (1.0 - kr) * kr / kg * cs);
  return c;
}

template <tensor::Layout L, tensor::ElemType T>
void start (const Args &a, dim3 grid, dim3 block, cudaStream_t stream)
{
#ifdef PREPROCESS_EMULATE
  (void)stream;
  emulate_grid (grid, block, [&] { preprocess_kernel<L, T> (a); });
#else
  preprocess_kernel<L, T><<<grid, block, 0, stream>>> (a);
#endif
}

}  // namespace

Status launch (const SourceView &src, const tensor::View &dst, void *dst_ptr, const Params &p,
               const Roi *rois, int n_rois, void *stream, std::string *error)
{
  Args a{};
  const Status s = detail::make_plan (src, dst, dst_ptr, p, rois, n_rois, &a.plan, error);
  if (s != Status::kOk)
    return s;
  for (int i = 0; i < 3; ++i) {
    a.planes[i] = static_cast<const uint8_t *> (src.planes[i]);
    a.pitches[i] = src.pitches[i];
  }
  const bool bgr = src.format == PixelFormat::kBGRA || src.format == PixelFormat::kBGRx;
  a.source = src.format == PixelFormat::kNV12   ? Source::kNV12
             : src.format == PixelFormat::kI420 ? Source::kI420
                                                : Source::kPacked;
  a.rgb_byte[0] = bgr ? 2 : 0;
  a.rgb_byte[1] = 1;
  a.rgb_byte[2] = bgr ? 0 : 2;
  a.cosited_h = src.chroma_cosited_h;
  a.cosited_v = src.chroma_cosited_v;
  a.colour = make_colour (src.matrix, src.range);
  a.dst = dst;
  a.dst_ptr = static_cast<uint8_t *> (dst_ptr);
  a.vectors_per_row = int (dst.row_stride / dst.pixel_stride ());
  a.antialias = p.antialias;
  for (int c = 0; c < 3; ++c) {
    a.from[c] = p.order == ChannelOrder::kRGB ? c : 2 - c;
    a.mean[c] = p.mean[c];
    a.std[c] = p.std[c];
    a.pad[c] = float (p.pad_rgb[c]);
  }
  a.int8_scale = p.int8_scale;

  const dim3 block (32, 8);
  const dim3 grid (unsigned ((a.vectors_per_row + 31) / 32), unsigned ((dst.h + 7) / 8),
                   unsigned (a.plan.n_rois));
  cudaStream_t st = static_cast<cudaStream_t> (stream);
  using tensor::ElemType;
  using tensor::Layout;
  const bool fp16 = dst.type == ElemType::kFp16;
  switch (dst.layout) {
    case Layout::kChw16:
      start<Layout::kChw16, ElemType::kFp16> (a, grid, block, st);
      break;
    case Layout::kChw32:
      start<Layout::kChw32, ElemType::kInt8> (a, grid, block, st);
      break;
    case Layout::kDlaLinear:
      fp16 ? start<Layout::kDlaLinear, ElemType::kFp16> (a, grid, block, st)
           : start<Layout::kDlaLinear, ElemType::kInt8> (a, grid, block, st);
      break;
    case Layout::kDlaHwc4:
      fp16 ? start<Layout::kDlaHwc4, ElemType::kFp16> (a, grid, block, st)
           : start<Layout::kDlaHwc4, ElemType::kInt8> (a, grid, block, st);
      break;
  }
  const cudaError_t e = cudaGetLastError ();
  if (e != cudaSuccess) {
    if (error)
      *error =
          std::string ("preprocess kernel launch: ") + cudaGetErrorName (e) + ": " + cudaGetErrorString (e);
    return Status::kCudaError;
  }
  return Status::kOk;
}

}  // namespace preprocess
