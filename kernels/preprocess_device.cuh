/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fused preprocessing kernel's device helpers (kernels/preprocess.cu has the kernels and their
 * launch): the launch arguments, the sample centres and filter taps, the source fetches, YUV to RGB,
 * and the encoding and store of one output vector. Included by preprocess.cu alone (and by its CPU
 * emulation), so one translation unit holds the kernels and everything they inline. */
#pragma once

#ifndef PREPROCESS_EMULATE /* tests/kernels/cuda_emulation.h runs this file on the CPU for CI */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

#include "kernels/preprocess_plan.h"
#ifndef PREPROCESS_EMULATE
#include "kernels/kernel_launch.h"
#endif

#ifdef PREPROCESS_EMULATE
#define PREPROCESS_PRAGMA(x)
#else
#define PREPROCESS_PRAGMA(x) _Pragma (#x)
#endif

namespace preprocess {
namespace {

/* YUV code values to RGB 0..255: R = ys (Y - yoff) + crv (V - 128), G = ys (Y - yoff) - cgu (U -
 * 128) - cgv (V - 128), B = ys (Y - yoff) + cbu (U - 128). */
struct Colour {
  float ys, yoff, crv, cgu, cgv, cbu;
};

enum class Source : int { kNV12, kI420, kPacked };

constexpr int kTileW = 32;        /* output vectors per tile row: one warp */
constexpr int kMaxTileH = 8;      /* tile rows: 8 for bilinear, 4 or 8 for antialias (see launch) */
constexpr int kThreads = 256;     /* block (kTileW, 8) */
constexpr int kWideThreads = 512; /* block (kTileW, 16): antialias tiles of 4 rows */
constexpr int kSlotRows = 320;    /* rows of kTileW horizontal sums (all planes and channels) per block */

struct Args {
  /* What every block reads first (its tile's centres) sits together at the start: a new launch's
   * parameters miss the constant cache, and one line fetched beats several fetched in turn. */
  int dst_w, dst_h; /* dst.w, dst.h */
  Source source;
  bool cosited_h, cosited_v;
  bool antialias;
  bool narrow; /* every ROI's centre rationals fit 30 bits (axis_centre) */
  int tile_h;  /* output rows per block */
  const uint8_t *planes[3];
  int64_t pitches[3];
  unsigned long long textures[3]; /* SourceKind::kTexture: planes[] are null, these are read */
  int rgb_byte[3];                /* packed formats: byte of R, G, B in a pixel */
  Colour colour;
  tensor::View dst;
  uint8_t *dst_ptr;
  int vectors_per_row; /* row_stride / pixel_stride: tails are written as zero vectors */
  bool swap_rb;        /* BGR order: tensor channel 0 takes B, 2 takes R */
  /* (x / 255 - mean) / std, for INT8 then / scale, as one FMA x * norm_scale + norm_bias: within a
   * float rounding or two of the reference's divisions, inside the FP16 ulp / INT8 step that the
   * tests allow. */
  float norm_scale[3], norm_bias[3], pad[3];
  int slot_rows; /* horizontal-sum rows of shared memory (0: no separable pass in this launch) */
  /* Objects launches: block z draws entry z from this device array (plan unused); else null. */
  const detail::ObjectEntry *objects;
  detail::Plan plan;
};

/* What one block works on: its ROI, the tensor it writes (null: a blank object entry, nothing to
 * do) and whether its centres take the 32-bit path. */
struct BlockRoi {
  detail::RoiPlan r;
  uint8_t *dst;
  bool narrow;
};

__device__ __forceinline__ BlockRoi block_roi (const Args &a)
{
  if (!a.objects)
    return BlockRoi{a.plan.rois[blockIdx.z], a.dst_ptr, a.narrow};
  const detail::ObjectEntry &e = a.objects[blockIdx.z];
  return BlockRoi{e.plan, e.dst, a.narrow && e.narrow != 0};
}

/* The filter of one output sample along one axis: centre cint + cfrac (kept apart so the distance to
 * a tap is exact in float), taps [first, last], weights 1 - |x + 0.5 - c| / support over their sum.
 * first > last: no taps (letterbox padding or a row tail). */
struct Taps {
  int first, last, cint;
  float cfrac, inv_support, inv_sum;
};

__device__ __forceinline__ float weight (const Taps &t, int x)
{
  const float d = fabsf (float (x - t.cint) + 0.5f - t.cfrac) * t.inv_support;
  return fmaxf (1.f - d, 0.f);
}

__device__ __forceinline__ Taps no_taps ()
{
  Taps t;
  t.first = 0;
  t.last = -1;
  t.cint = 0;
  t.cfrac = t.inv_support = t.inv_sum = 0.f;
  return t;
}

/* The centre of one output sample along one axis, cint + cfrac (kept apart so the distance to a
 * tap is exact in float), and the samples [lo, hi) it may use. */
struct Centre {
  int cint;
  float cfrac;
  int lo, hi;
};

/* Centre of virtual pixel v: luma (or packed RGB) origin + (2v + 1) len / (2 size); chroma the luma
 * centre / 2, plus 1/4 when co-sited. The rational is exact; floor (num / den) comes from a float
 * estimate made exact by the remainder (the quotient, below 2^17, is off by at most one: float's
 * 2^-24 on num and __fdividef's 2 ulp leave it within 1/8 of the true one). I is int
 * when the launch's rationals fit 30 bits (Args::narrow: any video size), else int64_t; FP64 is slow
 * on Orin's GPU, and this runs in the serial part of every block. */
template <typename I>
__device__ __forceinline__ Centre axis_centre (const detail::AxisPlan &a, int v, bool chroma, bool cosited)
{
  const I den = 2 * (chroma ? 2 : 1) * I (a.size);
  const I num = (2 * I (v) + 1) * a.len + I (a.origin) * 2 * a.size + (chroma && cosited ? a.size : 0);
  I q = I (__fdividef (float (num), float (den)));
  I rem = num - q * den;
  if (rem < 0) {
    --q;
    rem += den;
  }
  if (rem >= den) {
    ++q;
    rem -= den;
  }
  Centre c;
  c.cint = int (q);
  c.cfrac = __fdividef (float (rem), float (den));
  c.lo = a.origin;
  c.hi = a.origin + a.len;
  if (chroma)
    detail::chroma_bounds (a.origin, a.len, &c.lo, &c.hi);
  return c;
}

/* The samples a triangle of `support` around a centre can reach, without the weights' sum. */
__device__ __forceinline__ Taps taps_around (const Centre &c, float support)
{
  Taps t;
  t.cint = c.cint;
  t.cfrac = c.cfrac;
  t.inv_support = 1.f / support;
  t.first = max (t.cint + int (floorf (t.cfrac - support - 0.5f)), c.lo);
  t.last = min (t.cint + int (ceilf (t.cfrac + support - 0.5f)), c.hi - 1);
  t.inv_sum = 0.f;
  return t;
}

/* The taps of a centre for a filter of `scale` (input samples per output sample). */
__device__ Taps make_taps (const Centre &c, float scale, bool antialias)
{
  Taps t = taps_around (c, antialias && scale > 1.f ? scale : 1.f);
  float sum = 0.f;
  for (int x = t.first; x <= t.last; ++x)
    sum += weight (t, x);
  t.inv_sum = 1.f / sum;
  return t;
}

/* K fixed taps per axis, absent ones with weight 0 at a clamped (valid) position: adding 0 * v
 * leaves the sums exactly as the loop over [first, last] makes them, and there is no branch
 * between the loads. Support 1 (bilinear): only floor (c - 0.5) and the next sample can have
 * weight, so K = 2 (not the 3 that [first, last] may span). Otherwise K = 3 from first. */
template <int K>
__device__ __forceinline__ void fixed_taps (const Taps &t, int pos[K], float w[K])
{
  const int x0 = K == 2 ? t.cint - (t.cfrac < 0.5f ? 1 : 0) : t.first;
  PREPROCESS_PRAGMA (unroll)
  for (int i = 0; i < K; ++i) {
    const int x = x0 + i;
    const bool in = x >= t.first && x <= t.last;
    pos[i] = min (max (x, t.first), t.last);
    w[i] = in ? weight (t, x) : 0.f;
  }
}

/* One axis of a bilinear sample, ready to use: two valid positions and their weights already
 * divided by the weights' sum. Made once per tile column and row. */
struct alignas (16) Pair {
  int p0, p1;
  float w0, w1;
};

/* make_taps with support 1, then fixed_taps<2>, without make_taps' loop: only floor (c - 0.5) and
 * the next sample can have weight, and the loop's sum over [first, last] adds only zeros to theirs. */
__device__ __forceinline__ Pair bilinear_pair (const Centre &c)
{
  int pos[2];
  float w[2];
  fixed_taps<2> (taps_around (c, 1.f), pos, w);
  const float inv_sum = __fdividef (1.f, w[0] + w[1]);
  return Pair{pos[0], pos[1], w[0] * inv_sum, w[1] * inv_sum};
}

/* The 2 x 2 samples of one plane (all loads issued before any is used), then their weighted sum. */
template <int N, typename Fetch>
__device__ __forceinline__ void gather_pair (const Pair &x, const Pair &y, Fetch fetch, float v[2][2][N])
{
  fetch (x.p0, y.p0, v[0][0]);
  fetch (x.p1, y.p0, v[0][1]);
  fetch (x.p0, y.p1, v[1][0]);
  fetch (x.p1, y.p1, v[1][1]);
}

template <int N>
__device__ __forceinline__ void combine_pair (const Pair &x, const Pair &y, const float v[2][2][N],
                                              float out[N])
{
  for (int n = 0; n < N; ++n)
    out[n] = y.w0 * (x.w0 * v[0][0][n] + x.w1 * v[0][1][n]) + y.w1 * (x.w0 * v[1][0][n] + x.w1 * v[1][1][n]);
}

/* K x K fixed taps of one plane, split into gather (all loads) and combine (row sums, then weighted
 * by the row weights) so that a caller can put the loads of several planes in flight together. */
template <int K, int N>
struct Gathered {
  float v[K][K][N];
  float wx[K], wy[K];
};

template <int K, int N, typename Fetch>
__device__ __forceinline__ void gather_fixed (const Taps &tx, const Taps &ty, Fetch fetch, Gathered<K, N> &g)
{
  int xs[K], ys[K];
  fixed_taps<K> (tx, xs, g.wx);
  fixed_taps<K> (ty, ys, g.wy);
  PREPROCESS_PRAGMA (unroll)
  for (int j = 0; j < K; ++j)
    PREPROCESS_PRAGMA (unroll)
  for (int i = 0; i < K; ++i)
    fetch (xs[i], ys[j], g.v[j][i]);
}

template <int K, int N>
__device__ __forceinline__ void combine_fixed (const Gathered<K, N> &g, float acc[N])
{
  PREPROCESS_PRAGMA (unroll)
  for (int j = 0; j < K; ++j) {
    float row[N] = {};
    PREPROCESS_PRAGMA (unroll)
    for (int i = 0; i < K; ++i)
      for (int n = 0; n < N; ++n)
        row[n] += g.wx[i] * g.v[j][i][n];
    for (int n = 0; n < N; ++n)
      acc[n] += g.wy[j] * row[n];
  }
}

template <int K, int N, typename Fetch>
__device__ __forceinline__ void resample_fixed (const Taps &tx, const Taps &ty, Fetch fetch, float acc[N])
{
  Gathered<K, N> g;
  gather_fixed<K, N> (tx, ty, fetch, g);
  combine_fixed<K, N> (g, acc);
}

/* Sum of weight * fetch over the taps, N channels at once: row sums, then weighted by the row
 * weights. Bilinear (2 x 2 taps) and up to 3 x 3 taps the loops are unrolled and the loads
 * predicated, so they are all in flight together. */
template <int N, typename Fetch>
__device__ __forceinline__ void resample (const Taps &tx, const Taps &ty, Fetch fetch, float out[N])
{
  float acc[N] = {};
  if (tx.inv_support == 1.f && ty.inv_support == 1.f) {
    resample_fixed<2, N> (tx, ty, fetch, acc);
  } else if (tx.last - tx.first < 3 && ty.last - ty.first < 3) {
    resample_fixed<3, N> (tx, ty, fetch, acc);
  } else {
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
  }
  for (int n = 0; n < N; ++n)
    out[n] = acc[n] * tx.inv_sum * ty.inv_sum;
}

/* Unnormalised row sum of weight * fetch over the taps of one column (the separable pass). */
template <int N, typename Fetch>
__device__ __forceinline__ void row_sum (const Taps &tx, Fetch fetch, float row[N])
{
  for (int n = 0; n < N; ++n)
    row[n] = 0.f;
  PREPROCESS_PRAGMA (unroll 8)
  for (int x = tx.first; x <= tx.last; ++x) {
    const float wx = weight (tx, x);
    float v[N];
    fetch (x, v);
    for (int n = 0; n < N; ++n)
      row[n] += wx * v[n];
  }
}

/* Fetchers: one sample's channels as floats, from one row of a pitched plane. */
struct PackedAt {
  const uint8_t *row;
  int b0, b2;
  __device__ __forceinline__ void operator() (int x, float v[3]) const
  {
    const uint32_t px = __ldg (reinterpret_cast<const uint32_t *> (row) + x);
    v[0] = float ((px >> (8 * b0)) & 0xffu);
    v[1] = float ((px >> 8) & 0xffu);
    v[2] = float ((px >> (8 * b2)) & 0xffu);
  }
};
struct LumaAt {
  const uint8_t *row;
  __device__ __forceinline__ void operator() (int x, float v[1]) const { v[0] = float (__ldg (row + x)); }
};
struct Nv12At {
  const uint8_t *row;
  __device__ __forceinline__ void operator() (int x, float v[2]) const
  {
    const uint32_t c = __ldg (reinterpret_cast<const uint16_t *> (row) + x); /* U in the low byte */
    v[0] = float (c & 0xffu);
    v[1] = float (c >> 8);
  }
};
struct I420At {
  const uint8_t *u, *v;
  __device__ __forceinline__ void operator() (int x, float out[2]) const
  {
    out[0] = float (__ldg (u + x));
    out[1] = float (__ldg (v + x));
  }
};

/* Texel (x, y) of a plane's texture: point sampling at its centre returns it unchanged. The CPU
 * emulation has no textures and only pitched sources. */
template <typename T>
__device__ __forceinline__ T texel (unsigned long long tex, int x, int y)
{
#ifdef PREPROCESS_EMULATE
  (void)tex, (void)x, (void)y;
  return T{};
#else
  return tex2D<T> (cudaTextureObject_t (tex), float (x) + 0.5f, float (y) + 0.5f);
#endif
}

/* The same fetchers on row y of a plane's texture (SourceKind::kTexture: NV12 or RGBA). */
struct PackedTexAt {
  unsigned long long tex;
  int y, b0, b2;
  __device__ __forceinline__ void operator() (int x, float v[3]) const
  {
    const uchar4 c = texel<uchar4> (tex, x, y);
    const uint32_t px =
        uint32_t (c.x) | (uint32_t (c.y) << 8) | (uint32_t (c.z) << 16) | (uint32_t (c.w) << 24);
    v[0] = float ((px >> (8 * b0)) & 0xffu);
    v[1] = float ((px >> 8) & 0xffu);
    v[2] = float ((px >> (8 * b2)) & 0xffu);
  }
};
struct LumaTexAt {
  unsigned long long tex;
  int y;
  __device__ __forceinline__ void operator() (int x, float v[1]) const
  {
    v[0] = float (texel<uchar1> (tex, x, y).x);
  }
};
struct Nv12TexAt {
  unsigned long long tex;
  int y;
  __device__ __forceinline__ void operator() (int x, float v[2]) const
  {
    const uchar2 c = texel<uchar2> (tex, x, y);
    v[0] = float (c.x);
    v[1] = float (c.y);
  }
};

/* Where the planes' rows come from: pitched memory, or textures. The sampling code is written
 * once over a Rows type and instantiated for both (with_rows), so the pitched path's inner loops
 * carry no texture test. */
struct PitchedRows {
  static __device__ __forceinline__ PackedAt packed (const Args &a, int y)
  {
    return PackedAt{a.planes[0] + y * a.pitches[0], a.rgb_byte[0], a.rgb_byte[2]};
  }
  static __device__ __forceinline__ LumaAt luma (const Args &a, int y)
  {
    return LumaAt{a.planes[0] + y * a.pitches[0]};
  }
  static __device__ __forceinline__ Nv12At nv12 (const Args &a, int y)
  {
    return Nv12At{a.planes[1] + y * a.pitches[1]};
  }
  static __device__ __forceinline__ I420At i420 (const Args &a, int y)
  {
    return I420At{a.planes[1] + y * a.pitches[1], a.planes[2] + y * a.pitches[2]};
  }
};
struct TextureRows : PitchedRows { /* i420: never a texture source (check_source) */
  static __device__ __forceinline__ PackedTexAt packed (const Args &a, int y)
  {
    return PackedTexAt{a.textures[0], y, a.rgb_byte[0], a.rgb_byte[2]};
  }
  static __device__ __forceinline__ LumaTexAt luma (const Args &a, int y)
  {
    return LumaTexAt{a.textures[0], y};
  }
  static __device__ __forceinline__ Nv12TexAt nv12 (const Args &a, int y)
  {
    return Nv12TexAt{a.textures[1], y};
  }
};

/* Calls f (rows) with the launch's Rows: the test is uniform over a launch. */
template <typename F>
__device__ __forceinline__ void with_rows (const Args &a, F &&f)
{
  if (a.textures[0])
    f (TextureRows ());
  else
    f (PitchedRows ());
}

/* Chroma row sums (U, V) of source chroma row y. */
template <typename Rows>
__device__ __forceinline__ void chroma_row_sum (const Args &a, const Taps &tx, int y, float uv[2])
{
  if (a.source == Source::kNV12)
    row_sum<2> (tx, Rows::nv12 (a, y), uv);
  else
    row_sum<2> (tx, Rows::i420 (a, y), uv);
}

__device__ __forceinline__ void yuv_to_rgb (const Colour &k, float y, const float uv[2], float rgb[3])
{
  const float yy = k.ys * (y - k.yoff), u = uv[0] - 128.f, v = uv[1] - 128.f;
  rgb[0] = fminf (fmaxf (yy + k.crv * v, 0.f), 255.f);
  rgb[1] = fminf (fmaxf (yy - k.cgu * u - k.cgv * v, 0.f), 255.f);
  rgb[2] = fminf (fmaxf (yy + k.cbu * u, 0.f), 255.f);
}

/* Direct sampling of one output from its taps. */
template <typename Rows>
__device__ void sample_rgb (const Args &a, const Taps &lx, const Taps &ly, const Taps &cx, const Taps &cy,
                            float rgb[3])
{
  if (a.source == Source::kPacked) {
    resample<3> (
        lx, ly, [&] (int x, int y, float v[3]) { Rows::packed (a, y) (x, v); }, rgb);
    return;
  }
  float y, uv[2];
  resample<1> (
      lx, ly, [&] (int x, int yy, float v[1]) { Rows::luma (a, yy) (x, v); }, &y);
  if (a.source == Source::kNV12)
    resample<2> (
        cx, cy, [&] (int x, int yy, float v[2]) { Rows::nv12 (a, yy) (x, v); }, uv);
  else
    resample<2> (
        cx, cy, [&] (int x, int yy, float v[2]) { Rows::i420 (a, yy) (x, v); }, uv);
  yuv_to_rgb (a.colour, y, uv, rgb);
}

/* Bilinear sampling of one output (every support 1) from its pairs: the loads of every plane are
 * issued before any of them is used, so one trip to memory serves all. */
template <typename Rows>
__device__ void sample_bilinear (const Args &a, const Pair &lx, const Pair &ly, const Pair &cx,
                                 const Pair &cy, float rgb[3])
{
  if (a.source == Source::kPacked) {
    float v[2][2][3];
    gather_pair<3> (
        lx, ly, [&] (int x, int y, float o[3]) { Rows::packed (a, y) (x, o); }, v);
    combine_pair<3> (lx, ly, v, rgb);
    return;
  }
  float vy[2][2][1], vc[2][2][2];
  gather_pair<1> (
      lx, ly, [&] (int x, int y, float o[1]) { Rows::luma (a, y) (x, o); }, vy);
  if (a.source == Source::kNV12)
    gather_pair<2> (
        cx, cy, [&] (int x, int y, float o[2]) { Rows::nv12 (a, y) (x, o); }, vc);
  else
    gather_pair<2> (
        cx, cy, [&] (int x, int y, float o[2]) { Rows::i420 (a, y) (x, o); }, vc);
  float y, uv[2];
  combine_pair<1> (lx, ly, vy, &y);
  combine_pair<2> (cx, cy, vc, uv);
  yuv_to_rgb (a.colour, y, uv, rgb);
}

/* Where the horizontal sums of one plane sit: slot s (a row of kTileW floats per channel) holds
 * source row lo + s, for the rows from the tile's first tap to its last (with antialias the supports
 * of neighbouring rows overlap, so nothing between is wasted). Tile row j's first tap is in slot
 * base[j]. */
struct SlotMap {
  int n, lo;
  int base[kMaxTileH];
};

__device__ SlotMap map_slots (const Taps *ty, int th)
{
  int lo = INT_MAX, hi = INT_MIN;
  for (int j = 0; j < th; ++j)
    if (ty[j].first <= ty[j].last) {
      lo = min (lo, ty[j].first);
      hi = max (hi, ty[j].last);
    }
  SlotMap m;
  m.n = hi >= lo ? hi - lo + 1 : 0;
  m.lo = lo;
  for (int j = 0; j < kMaxTileH; ++j)
    m.base[j] = j < th ? ty[j].first - lo : 0;
  return m;
}

/* Vertical pass of one output from the horizontal sums h (slots of kTileW floats). */
__device__ __forceinline__ float column_sum (const float *h, int base, const Taps &ty, const Taps &tx,
                                             int col)
{
  float acc = 0.f;
  const float *p = h + col;
  for (int y = ty.first; y <= ty.last; ++y)
    acc += weight (ty, y) * p[(base + y - ty.first) * kTileW];
  return acc * tx.inv_sum * ty.inv_sum;
}

struct Shared {
  Taps lx[kTileW], cx[kTileW], ly[kMaxTileH], cy[kMaxTileH];
  SlotMap ml, mc;
  float h[kSlotRows * kTileW]; /* only Args::slot_rows rows are allocated */
};

/* One element's bits: FP16 as __float2half_rn, INT8 as round-half-even saturated (value is
 * already divided by the INT8 scale), the same rounding as tensor::float_to_half / quantize_int8
 * on the host. */
template <tensor::ElemType T>
__device__ __forceinline__ uint32_t encode (float value)
{
  if (T == tensor::ElemType::kFp16)
    return __half_as_ushort (__float2half_rn (value));
  const int q = __float2int_rn (value);
  return uint32_t (uint8_t (int8_t (min (max (q, -128), 127))));
}

/* The whole vector of output (ox, oy) of batch slot `batch`: channels e, zero pads. */
template <tensor::Layout L, tensor::ElemType T>
__device__ __forceinline__ void store (const Args &a, uint8_t *tensor, int batch, int ox, int oy,
                                       const uint32_t e[3])
{
  constexpr int es = T == tensor::ElemType::kFp16 ? 2 : 1;
  constexpr int lanes = L == tensor::Layout::kChw16     ? 16
                        : L == tensor::Layout::kChw32   ? 32
                        : L == tensor::Layout::kDlaHwc4 ? 4
                                                        : 1;
  uint8_t *base = tensor + batch * a.dst.batch_stride + oy * a.dst.row_stride + int64_t (ox) * (lanes * es);
  if (L == tensor::Layout::kDlaLinear) {
    for (int c = 0; c < 3; ++c) {
      uint8_t *p = base + c * a.dst.plane_stride;
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
}  // namespace
}  // namespace preprocess
