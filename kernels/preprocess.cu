/* SPDX-License-Identifier: LGPL-2.1-or-later */
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
#include "kernels/preprocess_device.cuh"

namespace preprocess {
namespace {

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
    with_rows (a, [&] (auto rows) {
      sample_bilinear<decltype (rows)> (a, p.lx[col], p.ly[j], p.cx[col], p.cy[j], rgb);
    });
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
          with_rows (a, [&] (auto rows) {
            using Rows = decltype (rows);
            if (yuv)
              row_sum<1> (tx, Rows::luma (a, y), v);
            else
              row_sum<3> (tx, Rows::packed (a, y), v);
          });
          for (int c = 0; c < nl; ++c)
            s.h[(c * nsl + slot) * kTileW + col] = v[c];
        } else {
          const Taps &tx = s.cx[col];
          if (tx.first > tx.last)
            continue;
          const int cs = slot - nsl;
          float uv[2];
          with_rows (a, [&] (auto rows) { chroma_row_sum<decltype (rows)> (a, tx, s.mc.lo + cs, uv); });
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
      with_rows (a, [&] (auto rows) {
        sample_rgb<decltype (rows)> (a, s.lx[col], s.ly[j], s.cx[col], s.cy[j], rgb);
      });
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
    const bool texture = src.kind == SourceKind::kTexture;
    a.planes[i] = texture ? nullptr : static_cast<const uint8_t *> (src.planes[i]);
    a.pitches[i] = texture ? 0 : src.pitches[i];
    a.textures[i] = texture ? src.textures[i] : 0;
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
    *error = std::string ("preprocess kernel launch: ") + cudaGetErrorName (e) + " (" +
             std::to_string (int (e)) + "): " + cudaGetErrorString (e);
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
