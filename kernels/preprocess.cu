/* The fused preprocessing kernel (conventions in preprocess.h; preprocess_ref.cpp is the definition
 * it must match). Templated on layout and element type only; format, siting, matrix, geometry,
 * antialias and order are runtime values.
 *
 * One block makes a tile of kTileW x tile_h output vectors of one ROI:
 *  1. the sample centres of the tile's columns and rows, luma and chroma, are computed once, one per
 *     lane of one warp per kind (tile_centres), into shared memory (not once per output pixel);
 *  2. bilinear launches (every support 1) run bilinear_kernel: the centres become 2-tap pairs with
 *     normalised weights, and each output thread issues the loads of every plane at once
 *     (sample_bilinear). A short kernel of its own: its code stays in the instruction cache.
 *     Antialias downscale (wide supports) runs filter_kernel: the filter is applied separably, the
 *     block's threads sharing the horizontal pass over every source row the tile needs (row sums per
 *     tile column into shared memory), then each output thread sums its rows vertically. The
 *     arithmetic is the direct loop's, in the same order (row sums, then weighted by the row
 *     weights), so both paths give the same floats. A tile whose rows do not fit in shared memory
 *     falls back to direct sampling.
 *  3. YUV -> RGB, normalisation (one FMA per channel), encoding and one whole-vector store per
 *     output.
 * Phases are written as each_thread (per-thread body) + block_sync () so that
 * tests/kernels/cuda_emulation.h can run them on the CPU one block at a time. */
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
  int rgb_byte[3]; /* packed formats: byte of R, G, B in a pixel */
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

/* Fetchers: one sample's channels as floats. */
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

__device__ __forceinline__ PackedAt packed_at (const Args &a, int y)
{
  return PackedAt{a.planes[0] + y * a.pitches[0], a.rgb_byte[0], a.rgb_byte[2]};
}
__device__ __forceinline__ LumaAt luma_at (const Args &a, int y)
{
  return LumaAt{a.planes[0] + y * a.pitches[0]};
}
__device__ __forceinline__ Nv12At nv12_at (const Args &a, int y)
{
  return Nv12At{a.planes[1] + y * a.pitches[1]};
}
__device__ __forceinline__ I420At i420_at (const Args &a, int y)
{
  return I420At{a.planes[1] + y * a.pitches[1], a.planes[2] + y * a.pitches[2]};
}

/* Chroma row sums (U, V) of source chroma row y. */
__device__ __forceinline__ void chroma_row_sum (const Args &a, const Taps &tx, int y, float uv[2])
{
  if (a.source == Source::kNV12)
    row_sum<2> (tx, nv12_at (a, y), uv);
  else
    row_sum<2> (tx, i420_at (a, y), uv);
}

__device__ __forceinline__ void yuv_to_rgb (const Colour &k, float y, const float uv[2], float rgb[3])
{
  const float yy = k.ys * (y - k.yoff), u = uv[0] - 128.f, v = uv[1] - 128.f;
  rgb[0] = fminf (fmaxf (yy + k.crv * v, 0.f), 255.f);
  rgb[1] = fminf (fmaxf (yy - k.cgu * u - k.cgv * v, 0.f), 255.f);
  rgb[2] = fminf (fmaxf (yy + k.cbu * u, 0.f), 255.f);
}

/* Direct sampling of one output from its taps. */
__device__ void sample_rgb (const Args &a, const Taps &lx, const Taps &ly, const Taps &cx, const Taps &cy,
                            float rgb[3])
{
  if (a.source == Source::kPacked) {
    resample<3> (
        lx, ly, [&] (int x, int y, float v[3]) { packed_at (a, y) (x, v); }, rgb);
    return;
  }
  float y, uv[2];
  resample<1> (
      lx, ly, [&] (int x, int yy, float v[1]) { luma_at (a, yy) (x, v); }, &y);
  if (a.source == Source::kNV12)
    resample<2> (
        cx, cy, [&] (int x, int yy, float v[2]) { nv12_at (a, yy) (x, v); }, uv);
  else
    resample<2> (
        cx, cy, [&] (int x, int yy, float v[2]) { i420_at (a, yy) (x, v); }, uv);
  yuv_to_rgb (a.colour, y, uv, rgb);
}

/* Bilinear sampling of one output (every support 1) from its pairs: the loads of every plane are
 * issued before any of them is used, so one trip to memory serves all. */
__device__ void sample_bilinear (const Args &a, const Pair &lx, const Pair &ly, const Pair &cx,
                                 const Pair &cy, float rgb[3])
{
  if (a.source == Source::kPacked) {
    float v[2][2][3];
    gather_pair<3> (
        lx, ly, [&] (int x, int y, float o[3]) { packed_at (a, y) (x, o); }, v);
    combine_pair<3> (lx, ly, v, rgb);
    return;
  }
  float vy[2][2][1], vc[2][2][2];
  gather_pair<1> (
      lx, ly, [&] (int x, int y, float o[1]) { luma_at (a, y) (x, o); }, vy);
  if (a.source == Source::kNV12)
    gather_pair<2> (
        cx, cy, [&] (int x, int y, float o[2]) { nv12_at (a, y) (x, o); }, vc);
  else
    gather_pair<2> (
        cx, cy, [&] (int x, int y, float o[2]) { i420_at (a, y) (x, o); }, vc);
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

/* Runs body (thread index) on every thread of the block (on the CPU: one after the other). The
 * code between phases runs on every thread alike and must not depend on the thread. */
template <typename Body>
__device__ __forceinline__ void each_thread (Body body)
{
#ifdef PREPROCESS_EMULATE
  for (threadIdx.y = 0; threadIdx.y < blockDim.y; ++threadIdx.y)
    for (threadIdx.x = 0; threadIdx.x < blockDim.x; ++threadIdx.x)
      body (int (threadIdx.y * blockDim.x + threadIdx.x));
#else
  body (int (threadIdx.y * blockDim.x + threadIdx.x));
#endif
}

__device__ __forceinline__ void block_sync ()
{
#ifndef PREPROCESS_EMULATE
  __syncthreads ();
#endif
}

/* Output (ox, oy): letterbox pad or sample (vx, vy, rgb), then normalise, encode and store the
 * whole vector (zeros in the row tail). */
template <tensor::Layout L, tensor::ElemType T, typename Sample>
__device__ __forceinline__ void write_output (const Args &a, const BlockRoi &b, int ox, int oy, Sample sample)
{
  const detail::RoiPlan &r = b.r;
  if (ox >= a.vectors_per_row || oy >= a.dst_h)
    return;
  uint32_t e[3] = {0u, 0u, 0u};
  if (ox < a.dst_w) {
    const int vx = ox + r.x.off, vy = oy + r.y.off;
    float rgb[3];
    if (vx < 0 || vx >= r.x.size || vy < 0 || vy >= r.y.size) {
      for (int c = 0; c < 3; ++c)
        rgb[c] = a.pad[c];
    } else {
      sample (vx, vy, rgb);
    }
    if (a.swap_rb) {
      const float r0 = rgb[0];
      rgb[0] = rgb[2];
      rgb[2] = r0;
    }
    for (int c = 0; c < 3; ++c)
      e[c] = encode<T> (fmaf (rgb[c], a.norm_scale[c], a.norm_bias[c]));
  }
  store<L, T> (a, b.dst, r.batch, ox, oy, e);
}

/* Phase 1 of both kernels: the sample centres of the tile's columns and rows. Warp k makes kind k
 * (luma x, chroma x, luma y, chroma y), one per lane, so the four run side by side through one copy
 * of the code; emit (kind, lane, in, centre, axis, chroma) stores what the kernel needs of it. */
template <typename Emit>
__device__ __forceinline__ void tile_centres (const Args &a, const BlockRoi &b, int ox0, int oy0, int th,
                                              Emit emit)
{
  const detail::RoiPlan &r = b.r;
  const bool yuv = a.source != Source::kPacked;
  each_thread ([&] (int t) {
    const int kind = t / kTileW, lane = t % kTileW;
    const bool vertical = kind >= 2, chroma = (kind & 1) != 0;
    if (kind > 3 || (vertical && lane >= th) || (chroma && !yuv))
      return;
    const detail::AxisPlan ax = vertical ? r.y : r.x;
    const int o = (vertical ? oy0 : ox0) + lane, v = o + ax.off;
    const bool in = o < (vertical ? a.dst_h : a.dst_w) && v >= 0 && v < ax.size;
    Centre c{};
    if (in) {
      const bool cosited = vertical ? a.cosited_v : a.cosited_h;
      c = b.narrow ? axis_centre<int> (ax, v, chroma, cosited)
                   : axis_centre<int64_t> (ax, v, chroma, cosited);
    }
    emit (kind, lane, in, c, ax, chroma);
  });
}

/* Phase 3 of both kernels: one output per thread, sampled by sample (tile column, tile row, rgb). */
template <tensor::Layout L, tensor::ElemType T, typename Sample>
__device__ __forceinline__ void tile_outputs (const Args &a, const BlockRoi &b, int ox0, int oy0, int th,
                                              Sample sample)
{
  each_thread ([&] (int t) {
    if (t >= kTileW * th)
      return;
    const int col = t % kTileW, j = t / kTileW;
    write_output<L, T> (a, b, ox0 + col, oy0 + j, [&] (int, int, float rgb[3]) { sample (col, j, rgb); });
  });
}

/* The bilinear kernel's block (every support 1: no antialias downscale in the launch). */
struct PairTable {
  Pair lx[kTileW], cx[kTileW], ly[kMaxTileH], cy[kMaxTileH];
};

template <tensor::Layout L, tensor::ElemType T>
__device__ void bilinear_block (const Args &a, PairTable &p)
{
  const BlockRoi b = block_roi (a); /* a copy: loaded once, before the barrier */
  if (!b.dst)
    return;                     /* a blank object entry: the whole block leaves */
  constexpr int th = kMaxTileH; /* launch () gives bilinear launches tiles of kMaxTileH rows */
  const int ox0 = int (blockIdx.x) * kTileW, oy0 = int (blockIdx.y) * th;
  tile_centres (a, b, ox0, oy0, th,
                [&] (int kind, int lane, bool in, const Centre &c, const detail::AxisPlan &, bool) {
                  Pair *row = kind == 0 ? p.lx : kind == 1 ? p.cx : kind == 2 ? p.ly : p.cy;
                  row[lane] = in ? bilinear_pair (c) : Pair{};
                });
  block_sync ();
  tile_outputs<L, T> (a, b, ox0, oy0, th, [&] (int col, int j, float rgb[3]) {
    sample_bilinear (a, p.lx[col], p.ly[j], p.cx[col], p.cy[j], rgb);
  });
}

/* The filtering kernel's block (antialias downscale on some axis of some ROI). */
template <tensor::Layout L, tensor::ElemType T>
__device__ void filter_block (const Args &a, Shared &s)
{
  const BlockRoi b = block_roi (a);
  if (!b.dst)
    return; /* a blank object entry: the whole block leaves */
  const detail::RoiPlan &r = b.r;
  const int th = a.tile_h;
  const int ox0 = int (blockIdx.x) * kTileW, oy0 = int (blockIdx.y) * th;
  const bool yuv = a.source != Source::kPacked;
  const int nthreads = int (blockDim.x * blockDim.y);

  /* 1. Taps of the tile's columns and rows. */
  tile_centres (a, b, ox0, oy0, th,
                [&] (int kind, int lane, bool in, const Centre &c, const detail::AxisPlan &ax, bool chroma) {
                  Taps *row = kind == 0 ? s.lx : kind == 1 ? s.cx : kind == 2 ? s.ly : s.cy;
                  const float scale = float (ax.len) / float ((chroma ? 2 : 1) * ax.size);
                  row[lane] = in ? make_taps (c, scale, a.antialias) : no_taps ();
                });
  block_sync ();

  /* 2. Antialias downscale: horizontal pass shared by the tile (when its rows fit). */
  bool separable = false;
  const int nl = yuv ? 1 : 3; /* channels of plane 0 */
  if (a.antialias && (r.x.len > r.x.size || r.y.len > r.y.size)) {
    each_thread ([&] (int t) {
      if (t == 0)
        s.ml = map_slots (s.ly, th);
      else if (t == 1 && yuv)
        s.mc = map_slots (s.cy, th);
      else if (t == 1)
        s.mc.n = 0;
    });
    block_sync ();
    separable = nl * s.ml.n + 2 * s.mc.n <= a.slot_rows;
  }
  if (separable) {
    const int nsl = s.ml.n, nsc = s.mc.n;
    const int items = (nsl + nsc) * kTileW;
    each_thread ([&] (int t) {
      for (int i = t; i < items; i += nthreads) {
        const int col = i % kTileW, slot = i / kTileW;
        if (slot < nsl) {
          const Taps &tx = s.lx[col];
          if (tx.first > tx.last)
            continue;
          const int y = s.ml.lo + slot;
          float v[3];
          if (yuv)
            row_sum<1> (tx, luma_at (a, y), v);
          else
            row_sum<3> (tx, packed_at (a, y), v);
          for (int c = 0; c < nl; ++c)
            s.h[(c * nsl + slot) * kTileW + col] = v[c];
        } else {
          const Taps &tx = s.cx[col];
          if (tx.first > tx.last)
            continue;
          const int cs = slot - nsl;
          float uv[2];
          chroma_row_sum (a, tx, s.mc.lo + cs, uv);
          s.h[(nsl + cs) * kTileW + col] = uv[0];
          s.h[(nsl + nsc + cs) * kTileW + col] = uv[1];
        }
      }
    });
    block_sync ();
  }

  /* 3. One output per thread: vertical pass (or direct sampling), colour, encode, store. */
  tile_outputs<L, T> (a, b, ox0, oy0, th, [&] (int col, int j, float rgb[3]) {
    if (!separable) {
      sample_rgb (a, s.lx[col], s.ly[j], s.cx[col], s.cy[j], rgb);
      return;
    }
    const Taps &lx = s.lx[col], &ly = s.ly[j];
    const int nsl = s.ml.n, bl = s.ml.base[j];
    if (!yuv) {
      for (int c = 0; c < 3; ++c)
        rgb[c] = column_sum (s.h + c * nsl * kTileW, bl, ly, lx, col);
      return;
    }
    const Taps &cx = s.cx[col], &cy = s.cy[j];
    const int nsc = s.mc.n, bc = s.mc.base[j];
    const float y = column_sum (s.h, bl, ly, lx, col);
    float uv[2];
    uv[0] = column_sum (s.h + nsl * kTileW, bc, cy, cx, col);
    uv[1] = column_sum (s.h + (nsl + nsc) * kTileW, bc, cy, cx, col);
    yuv_to_rgb (a.colour, y, uv, rgb);
  });
}

#ifndef PREPROCESS_EMULATE
/* Two kernels, both templated on layout and type only: bilinear launches run a short kernel of
 * their own (its code fits the instruction cache; the filtering paths would only be jumped over). */
template <tensor::Layout L, tensor::ElemType T>
__global__ void __launch_bounds__ (kThreads) bilinear_kernel (const __grid_constant__ Args a)
{
  __shared__ PairTable pairs;
  bilinear_block<L, T> (a, pairs);
}

template <tensor::Layout L, tensor::ElemType T>
__global__ void __launch_bounds__ (kWideThreads) filter_kernel (const __grid_constant__ Args a)
{
  extern __shared__ float4 smem[];
  filter_block<L, T> (a, *reinterpret_cast<Shared *> (smem));
}
#endif

/* The current device's SM count (0 when unknown), asked once per thread and device: launch() runs
 * every frame. */
int sm_count ()
{
  thread_local int device = -1, sms = 0;
  int current = 0;
  if (cudaGetDevice (&current) != cudaSuccess)
    return 0;
  if (current != device) {
    int n = 0;
    if (cudaDeviceGetAttribute (&n, cudaDevAttrMultiProcessorCount, current) != cudaSuccess)
      return 0;
    device = current;
    sms = n;
  }
  return sms;
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

/* The kernel instantiation of a launch's layout and type, passed to f as a Kind. */
template <tensor::Layout L, tensor::ElemType T>
struct Kind {
  static constexpr tensor::Layout layout = L;
  static constexpr tensor::ElemType type = T;
};

template <class F>
void with_kind (const tensor::View &dst, F &&f)
{
  using tensor::ElemType;
  using tensor::Layout;
  const bool fp16 = dst.type == ElemType::kFp16;
  switch (dst.layout) {
    case Layout::kChw16:
      f (Kind<Layout::kChw16, ElemType::kFp16> ());
      break;
    case Layout::kChw32:
      f (Kind<Layout::kChw32, ElemType::kInt8> ());
      break;
    case Layout::kDlaLinear:
      fp16 ? f (Kind<Layout::kDlaLinear, ElemType::kFp16> ())
           : f (Kind<Layout::kDlaLinear, ElemType::kInt8> ());
      break;
    case Layout::kDlaHwc4:
      fp16 ? f (Kind<Layout::kDlaHwc4, ElemType::kFp16> ()) : f (Kind<Layout::kDlaHwc4, ElemType::kInt8> ());
      break;
  }
}

/* What every launch's arguments hold but the ROIs: source, colour, tensor, normalisation. */
void fill_common (const SourceView &src, const tensor::View &dst, void *dst_ptr, const Params &p, Args &a)
{
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
  a.dst_w = int (dst.w); /* make_plan keeps tensor sizes within 2^16 */
  a.dst_h = int (dst.h);
  a.dst_ptr = static_cast<uint8_t *> (dst_ptr);
  a.vectors_per_row = int (dst.row_stride / dst.pixel_stride ());
  a.antialias = p.antialias;
  a.swap_rb = p.order != ChannelOrder::kRGB;
  a.narrow = true;
#ifdef PREPROCESS_EMULATE
  a.narrow = !emulate_wide_centres;
#endif
  for (int c = 0; c < 3; ++c) {
    const double q = dst.type == tensor::ElemType::kInt8 ? p.int8_scale : 1.0;
    a.norm_scale[c] = float (1.0 / (255.0 * p.std[c] * q));
    a.norm_bias[c] = float (-double (p.mean[c]) / (p.std[c] * q));
    a.pad[c] = float (p.pad_rgb[c]);
  }
}

/* Antialias tiles: 4 rows while the grid is a few waves of the GPU (the time is one block's
 * latency: more, smaller blocks), 8 once it is many (the time is throughput: taller tiles re-read
 * fewer rows where their supports overlap), as with many ROIs, or one frame on Orin's 16 SMs. */
bool many_tiles (const Args &a, int rois)
{
  const int tiles_x = (a.vectors_per_row + kTileW - 1) / kTileW;
  return int64_t (tiles_x) * ((a.dst_h + 3) / 4) * rois > 4 * int64_t (sm_count ());
}

/* Block, grid and shared memory once tile_h and slot_rows are set. A grid of few waves waits on its
 * slowest block's serial row sums: tiles of 4 rows share them among twice the threads. Many waves
 * keep every SM busy already. */
void finish_geometry (const Args &a, bool wide, int rois, dim3 *grid, dim3 *block, size_t *smem)
{
  const int tiles_x = (a.vectors_per_row + kTileW - 1) / kTileW;
  *smem = wide ? offsetof (Shared, h) + size_t (a.slot_rows) * kTileW * sizeof (float) : 0;
  *block = dim3 (kTileW, (wide && a.tile_h == 4 ? kWideThreads : kThreads) / kTileW);
  *grid = dim3 (unsigned (tiles_x), unsigned ((a.dst_h + a.tile_h - 1) / a.tile_h), unsigned (rois));
}

/* A launch's arguments (into `a`, value-initialised by the caller), grid and shared memory. */
Status prepare (const SourceView &src, const tensor::View &dst, void *dst_ptr, const Params &p,
                const Roi *rois, int n_rois, Args &a, dim3 *grid, dim3 *block, size_t *smem,
                std::string *error)
{
  const Status s = detail::make_plan (src, dst, dst_ptr, p, rois, n_rois, &a.plan, error);
  if (s != Status::kOk)
    return s;
  fill_common (src, dst, dst_ptr, p, a);
  for (int i = 0; i < a.plan.n_rois; ++i)
    a.narrow = a.narrow && detail::narrow_centres (a.plan.rois[i]);

  /* Antialias with a downscale on some axis: shared memory for the separable pass. Otherwise tiles
   * of 8 rows and only the taps in shared memory. */
  bool wide = false;
  for (int i = 0; i < a.plan.n_rois; ++i) {
    const detail::RoiPlan &r = a.plan.rois[i];
    wide = wide || (p.antialias && (r.x.len > r.x.size || r.y.len > r.y.size));
  }
  /* Horizontal-sum rows for the separable pass, sized from the ROIs' scales (a triangle of support
   * s over n outputs spans at most (n - 1) scale + 2 s + 2 samples): 4K sources need more than 1080p
   * ones, and a block that asks for less shared memory leaves more to its neighbours. Beyond
   * kSlotRows a tile falls back to direct sampling. */
  auto slot_rows_for = [&] (int tile_h) {
    auto span = [] (double scale, int outputs) {
      return int (std::ceil ((outputs - 1) * scale + 2 * std::max (scale, 1.0))) + 3;
    };
    int rows = 0;
    for (int i = 0; i < a.plan.n_rois; ++i) {
      const detail::RoiPlan &r = a.plan.rois[i];
      const bool yuv = a.source != Source::kPacked;
      const double sy = double (r.y.len) / r.y.size;
      rows = std::max (rows, (yuv ? 1 : 3) * span (sy, tile_h) + (yuv ? 2 * (span (sy / 2, tile_h) + 1) : 0));
    }
    return rows;
  };
  const bool many = wide && many_tiles (a, a.plan.n_rois);
  a.tile_h = !wide ? kMaxTileH : many && slot_rows_for (8) <= kSlotRows ? 8 : 4;
  a.slot_rows = wide ? std::min (kSlotRows, slot_rows_for (a.tile_h)) : 0;
  finish_geometry (a, wide, a.plan.n_rois, grid, block, smem);
  return Status::kOk;
}

/* An objects launch's arguments: nothing of the boxes (they are in the device array), so the
 * arguments repeat from frame to frame. With antialias every launch takes the filtering kernel with
 * the most shared memory (a crop may downscale by any factor; an upscaling one samples directly,
 * as the reference does); tiles too tall for it fall back to direct sampling. */
Status prepare_objects (const SourceView &src, const tensor::View &dst, const Params &p, const void *entries,
                        int n, Args &a, dim3 *grid, dim3 *block, size_t *smem, std::string *error)
{
  if (n < 1 || n > kMaxObjects || !entries) {
    if (error)
      *error = "objects launch: " + std::to_string (n) + " objects (1.." + std::to_string (kMaxObjects) +
               ") at " + (entries ? "an entry array" : "a null entry array");
    return Status::kInvalidArgument;
  }
  fill_common (src, dst, nullptr, p, a);
  a.objects = static_cast<const detail::ObjectEntry *> (entries);
  const int slots = object_slots (n);
  const bool wide = p.antialias;
  a.tile_h = !wide ? kMaxTileH : many_tiles (a, slots) ? 8 : 4;
  a.slot_rows = wide ? kSlotRows : 0;
  finish_geometry (a, wide, slots, grid, block, smem);
  return Status::kOk;
}

}  // namespace

#ifdef PREPROCESS_EMULATE
namespace {
void emulate (const Args &a, const tensor::View &dst, dim3 grid, dim3 block, size_t smem)
{
  struct alignas (16) Chunk {
    unsigned char bytes[16];
  };
  std::vector<Chunk> mem ((std::max (smem, sizeof (PairTable)) + sizeof (Chunk) - 1) / sizeof (Chunk));
  void *shared = mem.data ();
  with_kind (dst, [&] (auto kind) {
    constexpr tensor::Layout L = decltype (kind)::layout;
    constexpr tensor::ElemType T = decltype (kind)::type;
    if (a.slot_rows == 0)
      emulate_blocks (grid, block, [&] { bilinear_block<L, T> (a, *static_cast<PairTable *> (shared)); });
    else
      emulate_blocks (grid, block, [&] { filter_block<L, T> (a, *static_cast<Shared *> (shared)); });
  });
}
}  // namespace

Status launch (const SourceView &src, const tensor::View &dst, void *dst_ptr, const Params &p,
               const Roi *rois, int n_rois, void *, std::string *error)
{
  Args a{};
  dim3 grid, block;
  size_t smem = 0;
  const Status s = prepare (src, dst, dst_ptr, p, rois, n_rois, a, &grid, &block, &smem, error);
  if (s == Status::kOk)
    emulate (a, dst, grid, block, smem);
  return s;
}

Status launch_objects (const SourceView &src, const tensor::View &dst, const Params &p,
                       const void *device_entries, int n, void *, std::string *error)
{
  Args a{};
  dim3 grid, block;
  size_t smem = 0;
  const Status s = prepare_objects (src, dst, p, device_entries, n, a, &grid, &block, &smem, error);
  if (s == Status::kOk)
    emulate (a, dst, grid, block, smem);
  return s;
}
#else
namespace {
/* The kernel of a launch whose arguments are prepared: bilinear or filtering, by layout and type. */
void set_function (const tensor::View &dst, const Args &a, KernelLaunch *out)
{
  out->param_bytes = sizeof (Args);
  with_kind (dst, [&] (auto kind) {
    constexpr tensor::Layout L = decltype (kind)::layout;
    constexpr tensor::ElemType T = decltype (kind)::type;
    out->function = a.slot_rows == 0 ? reinterpret_cast<const void *> (bilinear_kernel<L, T>)
                                     : reinterpret_cast<const void *> (filter_kernel<L, T>);
  });
}

/* Zero bytes first, padding included: equal launches compare equal byte for byte (LaunchGraphs). */
Args &blank_args (KernelLaunch *out)
{
  static_assert (sizeof (Args) <= sizeof (out->param) && alignof (Args) <= alignof (KernelLaunch) &&
                 offsetof (KernelLaunch, param) % alignof (Args) == 0);
  std::memset (static_cast<void *> (out), 0, sizeof *out);
  return *new (out->param) Args{};
}

Status started (const KernelLaunch &k, void *stream, std::string *error)
{
  const cudaError_t e = start (k, static_cast<cudaStream_t> (stream));
  if (e == cudaSuccess)
    return Status::kOk;
  if (error)
    *error =
        std::string ("preprocess kernel launch: ") + cudaGetErrorName (e) + ": " + cudaGetErrorString (e);
  return Status::kCudaError;
}
}  // namespace

Status plan_launch (const SourceView &src, const tensor::View &dst, void *dst_ptr, const Params &p,
                    const Roi *rois, int n_rois, KernelLaunch *out, std::string *error)
{
  Args &a = blank_args (out);
  const Status s =
      prepare (src, dst, dst_ptr, p, rois, n_rois, a, &out->grid, &out->block, &out->shared_bytes, error);
  if (s == Status::kOk)
    set_function (dst, a, out);
  return s;
}

Status plan_objects_launch (const SourceView &src, const tensor::View &dst, const Params &p,
                            const void *device_entries, int n, KernelLaunch *out, std::string *error)
{
  Args &a = blank_args (out);
  const Status s =
      prepare_objects (src, dst, p, device_entries, n, a, &out->grid, &out->block, &out->shared_bytes, error);
  if (s == Status::kOk)
    set_function (dst, a, out);
  return s;
}

Status launch (const SourceView &src, const tensor::View &dst, void *dst_ptr, const Params &p,
               const Roi *rois, int n_rois, void *stream, std::string *error)
{
  KernelLaunch k;
  const Status s = plan_launch (src, dst, dst_ptr, p, rois, n_rois, &k, error);
  return s == Status::kOk ? started (k, stream, error) : s;
}

Status launch_objects (const SourceView &src, const tensor::View &dst, const Params &p,
                       const void *device_entries, int n, void *stream, std::string *error)
{
  KernelLaunch k;
  const Status s = plan_objects_launch (src, dst, p, device_entries, n, &k, error);
  return s == Status::kOk ? started (k, stream, error) : s;
}
#endif

}  // namespace preprocess
