/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark of the fused preprocessing kernel against a floor kernel that only writes
 * the same output bytes, and a three-pass baseline in the style of DeepStream's GPU path
 * (NV12 -> RGBA at network size -> FP32 planar normalised with a mean image -> FP16 chw16).
 * 64 distinct frames rotate so they do not sit in L2; CUDA events; median per frame over
 * repeated rotations, eager and replayed from a CUDA graph. The NV12 FP16 scenarios also read the
 * same frames from CUDA arrays through textures, as a Jetson block-linear (NVMM ARRAY) surface is
 * read (target: <= 1.2x the pitched kernel's time), and time what reading the frame alone costs
 * each way: the pitched loads, a texture fetch a texel, and 2 x 2 gathers. One table to stdout.
 * PyTorch's figure comes from preprocess_torch_bench.py on the same host. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "kernels/preprocess.h"

namespace {

constexpr int kFrames = 64;
constexpr int kReps = 25;
constexpr double kOrinBytesPerUs = 204.8e3; /* 204.8 GB/s */

#define CK(call) ASSERT_EQ ((call), cudaSuccess) << #call << ": " << cudaGetErrorString (cudaGetLastError ())

__global__ void fill_frame (uint8_t *p, size_t n, uint32_t seed)
{
  for (size_t i = blockIdx.x * size_t (blockDim.x) + threadIdx.x; i < n; i += size_t (gridDim.x) * blockDim.x)
    p[i] = uint8_t ((i * 2654435761u + seed * 40503u) >> 11);
}

/* Floor: writes each output vector (the fused kernel's store pattern) from nothing. */
__global__ void floor_kernel (tensor::View v, uint8_t *dst, int vectors_per_row, int n)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= vectors_per_row || y >= v.h || int (blockIdx.z) >= n)
    return;
  uint8_t *p = dst + v.offset (blockIdx.z, 0, y, x);
  const unsigned k = unsigned (x ^ y);
  if (v.pixel_stride () == 32) {
    reinterpret_cast<uint4 *> (p)[0] = make_uint4 (k, k, 0u, 0u);
    reinterpret_cast<uint4 *> (p)[1] = make_uint4 (0u, 0u, 0u, 0u);
  } else if (v.pixel_stride () == 8) {
    *reinterpret_cast<uint2 *> (p) = make_uint2 (k, k);
  } else if (v.pixel_stride () == 4) {
    *reinterpret_cast<unsigned *> (p) = k;
  }
}

/* Baseline pass 1: NV12 -> RGBA u8 at network size, bilinear (BT.601 limited). */
__global__ void pass_nv12_to_rgba (const uint8_t *y, const uint8_t *uv, int w, int h, int64_t pitch,
                                   uchar4 *rgba, int tw, int th)
{
  const int ox = blockIdx.x * blockDim.x + threadIdx.x, oy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ox >= tw || oy >= th)
    return;
  auto bil = [] (const uint8_t *p, int64_t pitch, int stride, int off, int W, int H, float fx, float fy) {
    fx = fmaxf (fx, 0.f);
    fy = fmaxf (fy, 0.f);
    const int x0 = min (int (fx), W - 1), y0 = min (int (fy), H - 1);
    const int x1 = min (x0 + 1, W - 1), y1 = min (y0 + 1, H - 1);
    const float ax = fx - x0, ay = fy - y0;
    auto at = [&] (int xx, int yy) { return float (p[yy * pitch + xx * stride + off]); };
    return (1 - ay) * ((1 - ax) * at (x0, y0) + ax * at (x1, y0)) +
           ay * ((1 - ax) * at (x0, y1) + ax * at (x1, y1));
  };
  const float sx = float (w) / tw, sy = float (h) / th;
  const float fx = (ox + 0.5f) * sx - 0.5f, fy = (oy + 0.5f) * sy - 0.5f;
  const float Y = bil (y, pitch, 1, 0, w, h, fx, fy);
  const float U = bil (uv, pitch, 2, 0, (w + 1) / 2, (h + 1) / 2, fx * 0.5f, fy * 0.5f) - 128.f;
  const float V = bil (uv, pitch, 2, 1, (w + 1) / 2, (h + 1) / 2, fx * 0.5f, fy * 0.5f) - 128.f;
  const float yy = 1.164f * (Y - 16.f);
  auto sat = [] (float v) { return (unsigned char)(fminf (fmaxf (v + 0.5f, 0.f), 255.f)); };
  rgba[oy * tw + ox] =
      make_uchar4 (sat (yy + 1.596f * V), sat (yy - 0.392f * U - 0.813f * V), sat (yy + 2.017f * U), 255);
}

/* Pass 2: RGBA u8 -> FP32 planar, (x - mean_image) * net_scale (nvinfer's conversion). */
__global__ void pass_rgba_to_planar (const uchar4 *rgba, const float *mean_image, float *planar, int n,
                                     float scale)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const uchar4 p = rgba[i];
  planar[i] = (p.x - mean_image[i]) * scale;
  planar[n + i] = (p.y - mean_image[n + i]) * scale;
  planar[2 * n + i] = (p.z - mean_image[2 * n + i]) * scale;
}

/* Pass 3: FP32 planar -> FP16 chw16 (TensorRT's reformat to the DLA layout). */
__global__ void pass_planar_to_chw16 (const float *planar, tensor::View v, uint8_t *dst)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= v.w || y >= v.h)
    return;
  const int64_t n = v.w * v.h, i = y * v.w + x;
  __half h[16];
  for (int c = 0; c < 16; ++c)
    h[c] = __float2half_rn (c < 3 ? planar[c * n + i] : 0.f);
  uint4 *p = reinterpret_cast<uint4 *> (dst + v.offset (0, 0, y, x));
  p[0] = *reinterpret_cast<uint4 *> (&h[0]);
  p[1] = *reinterpret_cast<uint4 *> (&h[8]);
}

/* An NV12 frame's planes copied into CUDA arrays (Y uchar1, UV uchar2) with texture objects made as
 * nvmm/import.cpp makes them: point sampling, element reads, unnormalised coordinates. */
struct TextureFrame {
  cudaArray_t y = nullptr, uv = nullptr;
  cudaTextureObject_t ty = 0, tuv = 0;
};

cudaError_t make_texture (cudaArray_t array, cudaTextureObject_t *out)
{
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc td{};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  return cudaCreateTextureObject (out, &res, &td, nullptr);
}

cudaError_t texture_frame (const uint8_t *frame, int64_t pitch, int w, int h, TextureFrame *t,
                           unsigned flags = cudaArrayDefault)
{
  const cudaChannelFormatDesc one = cudaCreateChannelDesc<uchar1> (), two = cudaCreateChannelDesc<uchar2> ();
  cudaError_t err = cudaMallocArray (&t->y, &one, size_t (w), size_t (h), flags);
  if (err == cudaSuccess)
    err = cudaMallocArray (&t->uv, &two, size_t (w / 2), size_t (h / 2), flags);
  if (err == cudaSuccess)
    err = cudaMemcpy2DToArray (t->y, 0, 0, frame, size_t (pitch), size_t (w), size_t (h),
                               cudaMemcpyDeviceToDevice);
  if (err == cudaSuccess)
    err = cudaMemcpy2DToArray (t->uv, 0, 0, frame + pitch * h, size_t (pitch), size_t (w), size_t (h / 2),
                               cudaMemcpyDeviceToDevice);
  if (err == cudaSuccess)
    err = make_texture (t->y, &t->ty);
  if (err == cudaSuccess)
    err = make_texture (t->uv, &t->tuv);
  return err;
}

void free_texture_frame (TextureFrame &t)
{
  cudaDestroyTextureObject (t.ty);
  cudaDestroyTextureObject (t.tuv);
  cudaFreeArray (t.y);
  cudaFreeArray (t.uv);
}

struct Timing {
  double eager_us, graph_us;
};

/* The read floor of a frame's two planes: every texel read once and summed, one word written per
 * thread (4 x 4 luma texels and their 2 x 2 chroma texels), so that nothing is optimised away.
 * Pitched: the fused kernel's loads (a byte of luma, two bytes of chroma each); textures: one point
 * fetch a texel, as the fused kernel's texture path; gather: tex2Dgather, the four texels of a 2 x 2
 * footprint (one component) in one fetch, on arrays made with cudaArrayTextureGather. */
enum class Read { kPitched, kTexture, kGather };

template <Read R>
__global__ void read_floor (const uint8_t *y, const uint8_t *uv, int64_t pitch, cudaTextureObject_t ty,
                            cudaTextureObject_t tuv, int w, int h, uint32_t *out)
{
  const int bx = blockIdx.x * blockDim.x + threadIdx.x, by = blockIdx.y * blockDim.y + threadIdx.y;
  if (4 * bx + 3 >= w || 4 * by + 3 >= h)
    return;
  uint32_t sum = 0;
  if (R == Read::kPitched) {
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i)
        sum += __ldg (y + (4 * by + j) * pitch + 4 * bx + i);
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) {
        const uint32_t c =
            __ldg (reinterpret_cast<const uint16_t *> (uv + (2 * by + j) * pitch) + 2 * bx + i);
        sum += (c & 0xffu) + (c >> 8);
      }
  } else if (R == Read::kTexture) {
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i)
        sum += tex2D<uchar1> (ty, 4 * bx + i + 0.5f, 4 * by + j + 0.5f).x;
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) {
        const uchar2 c = tex2D<uchar2> (tuv, 2 * bx + i + 0.5f, 2 * by + j + 0.5f);
        sum += c.x + c.y;
      }
  } else {
    /* A footprint's top-left texel is floor (x - 0.5): sample at its bottom-right corner. */
    for (int j = 0; j < 4; j += 2)
      for (int i = 0; i < 4; i += 2) {
        const uchar4 q = tex2Dgather<uchar4> (ty, 4 * bx + i + 1.f, 4 * by + j + 1.f, 0);
        sum += q.x + q.y + q.z + q.w;
      }
    for (int comp = 0; comp < 2; ++comp) {
      const uchar4 q = tex2Dgather<uchar4> (tuv, 2 * bx + 1.f, 2 * by + 1.f, comp);
      sum += q.x + q.y + q.z + q.w;
    }
  }
  out[by * (w / 4) + bx] = sum;
}

double median (std::vector<double> v)
{
  std::sort (v.begin (), v.end ());
  return v[v.size () / 2];
}

/* Median µs per frame of `frame(i, stream)` over kReps rotations of kFrames frames, eager and
 * from a graph of one rotation. */
Timing time_it (const std::function<void (int, cudaStream_t)> &frame)
{
  cudaStream_t s;
  cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking);
  cudaEvent_t a, b;
  cudaEventCreate (&a);
  cudaEventCreate (&b);
  for (int i = 0; i < kFrames; ++i) /* warm-up */
    frame (i, s);
  std::vector<double> eager, graph;
  for (int r = 0; r < kReps; ++r) {
    cudaEventRecord (a, s);
    for (int i = 0; i < kFrames; ++i)
      frame (i, s);
    cudaEventRecord (b, s);
    cudaEventSynchronize (b);
    float ms;
    cudaEventElapsedTime (&ms, a, b);
    eager.push_back (ms * 1000.0 / kFrames);
  }
  cudaGraph_t g;
  cudaGraphExec_t ge;
  cudaStreamBeginCapture (s, cudaStreamCaptureModeThreadLocal);
  for (int i = 0; i < kFrames; ++i)
    frame (i, s);
  cudaStreamEndCapture (s, &g);
  cudaGraphInstantiate (&ge, g, 0);
  cudaGraphLaunch (ge, s);
  for (int r = 0; r < kReps; ++r) {
    cudaEventRecord (a, s);
    cudaGraphLaunch (ge, s);
    cudaEventRecord (b, s);
    cudaEventSynchronize (b);
    float ms;
    cudaEventElapsedTime (&ms, a, b);
    graph.push_back (ms * 1000.0 / kFrames);
  }
  cudaGraphExecDestroy (ge);
  cudaGraphDestroy (g);
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  cudaStreamDestroy (s);
  return {median (eager), median (graph)};
}

void row (const std::string &scenario, const char *variant, Timing t, double bytes, double ref_graph_us,
          const char *ratio_name)
{
  std::printf ("| %-34s | %-22s | %9.2f | %9.2f | %9.3f | %8.1f | %8.2f | %6.2fx %s\n", scenario.c_str (),
               variant, t.eager_us, t.graph_us, bytes / 1e6, bytes / (t.graph_us * 1e3),
               bytes / kOrinBytesPerUs, ref_graph_us > 0 ? t.graph_us / ref_graph_us : 1.0, ratio_name);
}

struct Scenario {
  const char *name;
  int w, h;
  tensor::Layout layout;
  tensor::ElemType type;
  int rois;
  bool baseline;
};

/* The three reads (read_floor) of the same frames, timed; and their sums on the first frame, each
 * against the pitched read's (a gather that fetched another footprint fails here). */
void read_floors (const std::string &scen, const std::vector<uint8_t *> &frames, int64_t pitch, int w, int h)
{
  std::vector<TextureFrame> tex (frames.size ());
  for (size_t i = 0; i < frames.size (); ++i)
    CK (texture_frame (frames[i], pitch, w, h, &tex[i], cudaArrayTextureGather));
  const size_t n = size_t (w / 4) * size_t (h / 4);
  uint32_t *out;
  CK (cudaMalloc (&out, 3 * n * sizeof (uint32_t)));
  const dim3 block (32, 8), grid (unsigned (w / 4 + 31) / 32, unsigned (h / 4 + 7) / 8);
  auto launch = [&] (Read r, int i, cudaStream_t s) {
    const uint8_t *y = frames[size_t (i)], *uv = y + pitch * h;
    const TextureFrame &t = tex[size_t (i)];
    uint32_t *o = out + size_t (r) * n;
    if (r == Read::kPitched)
      read_floor<Read::kPitched><<<grid, block, 0, s>>> (y, uv, pitch, t.ty, t.tuv, w, h, o);
    else if (r == Read::kTexture)
      read_floor<Read::kTexture><<<grid, block, 0, s>>> (y, uv, pitch, t.ty, t.tuv, w, h, o);
    else
      read_floor<Read::kGather><<<grid, block, 0, s>>> (y, uv, pitch, t.ty, t.tuv, w, h, o);
  };
  const Read reads[3] = {Read::kPitched, Read::kTexture, Read::kGather};
  Timing t[3];
  for (const Read r : reads) {
    t[int (r)] = time_it ([&] (int i, cudaStream_t s) { launch (r, i, s); });
    launch (r, 0, nullptr);
  }
  std::vector<uint32_t> sums (3 * n);
  CK (cudaMemcpy (sums.data (), out, sums.size () * sizeof (uint32_t), cudaMemcpyDeviceToHost));
  for (const Read r : {Read::kTexture, Read::kGather})
    EXPECT_TRUE (std::equal (sums.begin (), sums.begin () + long (n), sums.begin () + long (size_t (r) * n)))
        << scen << ": read " << int (r) << " sums other texels than the pitched read";
  const double bytes = double (w) * h * 1.5;
  row (scen, "read floor, pitched", t[0], bytes, 0, "");
  row (scen, "read floor, textures", t[1], bytes, t[0].graph_us, "of the pitched read");
  row (scen, "read floor, gather", t[2], bytes, t[0].graph_us, "of the pitched read");
  cudaFree (out);
  for (TextureFrame &f : tex)
    free_texture_frame (f);
}

TEST (PreprocessBench, Table)
{
  const Scenario scenarios[] = {
      {"1080p NV12 -> 224 fp16 chw16", 1920, 1080, tensor::Layout::kChw16, tensor::ElemType::kFp16, 0, true},
      {"4K NV12 -> 224 fp16 chw16", 3840, 2160, tensor::Layout::kChw16, tensor::ElemType::kFp16, 0, true},
      {"640x480 NV12 -> 224 fp16 chw16", 640, 480, tensor::Layout::kChw16, tensor::ElemType::kFp16, 0, true},
      {"1080p NV12 -> 224 int8 hwc4", 1920, 1080, tensor::Layout::kDlaHwc4, tensor::ElemType::kInt8, 0,
       false},
      {"1080p NV12 16 ROIs -> 16x224 chw16", 1920, 1080, tensor::Layout::kChw16, tensor::ElemType::kFp16, 16,
       false},
  };
  std::printf ("\n| %-34s | %-22s | %9s | %9s | %9s | %8s | %8s | ratio\n", "scenario", "variant", "eager us",
               "graph us", "MB moved", "GB/s", "Orin us");
  std::printf ("|%s|\n", std::string (150, '-').c_str ());
  double one_frame_us = 0;
  for (const Scenario &sc : scenarios) {
    const int n = sc.rois ? sc.rois : 1;
    const int64_t pitch = (sc.w + 255) / 256 * 256;
    const size_t frame_bytes = size_t (pitch) * (sc.h + (sc.h + 1) / 2);
    std::vector<uint8_t *> frames (kFrames);
    for (int i = 0; i < kFrames; ++i) {
      CK (cudaMalloc (&frames[i], frame_bytes));
      fill_frame<<<256, 256>>> (frames[i], frame_bytes, uint32_t (i));
    }
    tensor::View v{};
    ASSERT_TRUE (tensor::make_view (sc.layout, sc.type, n, 3, 224, 224, &v));
    std::vector<uint8_t *> outs (kFrames);
    for (auto &o : outs)
      CK (cudaMalloc (&o, size_t (v.size)));
    CK (cudaDeviceSynchronize ());

    std::vector<preprocess::Roi> rois;
    for (int i = 0; i < sc.rois; ++i)
      rois.push_back (preprocess::Roi{{(i % 4) * 480, (i / 4) * 270, 480, 270}, i});
    auto src_of = [&] (int i) {
      preprocess::SourceView s{};
      s.format = preprocess::PixelFormat::kNV12;
      s.width = sc.w;
      s.height = sc.h;
      s.planes[0] = frames[i];
      s.planes[1] = frames[i] + pitch * sc.h;
      s.pitches[0] = s.pitches[1] = pitch;
      s.matrix = preprocess::Matrix::kBT601;
      s.range = preprocess::Range::kLimited;
      return s;
    };
    /* Bytes: sectors of the source rows a 2-tap filter touches (the whole frame once antialias
     * support covers every row), plus the tensor written. */
    const double out_bytes = double (v.size);
    const double rows_2tap = std::min (2.0 * 224 * n, double (sc.h)) + std::min (2.0 * 224 * n, sc.h / 2.0);
    const double read_2tap = rows_2tap * sc.w, read_full = double (sc.w) * sc.h * 1.5;
    const bool downscale = sc.w > 2 * 224 || sc.rois;

    std::string scen = sc.name;
    const int vpr = int (v.row_stride / v.pixel_stride ());
    const Timing floor_t = time_it ([&] (int i, cudaStream_t s) {
      floor_kernel<<<dim3 ((vpr + 31) / 32, (224 + 7) / 8, n), dim3 (32, 8), 0, s>>> (v, outs[i], vpr, n);
    });
    row (scen, "floor (writes only)", floor_t, out_bytes, 0, "");
    Timing fused_aa{}, fused_bilinear{};
    for (const bool aa : {true, false}) {
      preprocess::Params p = preprocess::default_params ();
      p.antialias = aa;
      p.int8_scale = 1.f / 127.f;
      bool ok = true;
      const Timing t = time_it ([&] (int i, cudaStream_t s) {
        std::string err;
        ok = ok && preprocess::launch (src_of (i), v, outs[i], p, rois.empty () ? nullptr : rois.data (),
                                       sc.rois, s, &err) == preprocess::Status::kOk;
      });
      ASSERT_TRUE (ok) << scen;
      row (scen, aa ? "fused, antialias" : "fused, bilinear", t,
           out_bytes + (aa && downscale ? read_full : read_2tap), floor_t.graph_us, "of floor");
      (aa ? fused_aa : fused_bilinear) = t;
      if (!aa)
        std::printf ("| %-34s | antialias adds %.2f us/frame (graph) over bilinear\n", scen.c_str (),
                     fused_aa.graph_us - t.graph_us);
      if (aa && sc.rois == 0 && sc.w == 1920 && sc.layout == tensor::Layout::kChw16)
        one_frame_us = t.graph_us;
      if (aa && sc.rois)
        std::printf ("| %-34s | 16 ROIs cost %.2fx one 1080p frame (target <= 4x): %s\n", scen.c_str (),
                     t.graph_us / one_frame_us, t.graph_us <= 4 * one_frame_us ? "MET" : "MISSED");
    }
    if (sc.baseline && sc.type == tensor::ElemType::kFp16 && sc.w >= 1920) {
      std::vector<TextureFrame> tex (kFrames);
      for (int i = 0; i < kFrames; ++i)
        CK (texture_frame (frames[i], pitch, sc.w, sc.h, &tex[size_t (i)]));
      for (const bool aa : {true, false}) {
        preprocess::Params p = preprocess::default_params ();
        p.antialias = aa;
        bool ok = true;
        const Timing t = time_it ([&] (int i, cudaStream_t s) {
          preprocess::SourceView src = src_of (i);
          src.kind = preprocess::SourceKind::kTexture;
          src.planes[0] = src.planes[1] = nullptr;
          src.textures[0] = tex[size_t (i)].ty;
          src.textures[1] = tex[size_t (i)].tuv;
          std::string err;
          ok = ok && preprocess::launch (src, v, outs[i], p, nullptr, 0, s, &err) == preprocess::Status::kOk;
        });
        ASSERT_TRUE (ok) << scen;
        const Timing &pitched = aa ? fused_aa : fused_bilinear;
        row (scen, aa ? "NVMM ARRAY, antialias" : "NVMM ARRAY, bilinear", t,
             out_bytes + (aa && downscale ? read_full : read_2tap), pitched.graph_us,
             "of pitched (target <= 1.2x)");
        std::printf ("| %-34s | textures / pitched (%s) = %.2fx (target <= 1.2x): %s\n", scen.c_str (),
                     aa ? "antialias" : "bilinear", t.graph_us / pitched.graph_us,
                     t.graph_us <= 1.2 * pitched.graph_us ? "MET" : "MISSED");
      }
      for (TextureFrame &f : tex)
        free_texture_frame (f);
      read_floors (scen, frames, pitch, sc.w, sc.h);
    }
    if (sc.baseline) {
      uchar4 *rgba;
      float *planar, *mean_image;
      const int np = 224 * 224;
      CK (cudaMalloc (&rgba, np * sizeof (uchar4)));
      CK (cudaMalloc (&planar, 3 * np * sizeof (float)));
      CK (cudaMalloc (&mean_image, 3 * np * sizeof (float)));
      CK (cudaMemset (mean_image, 0, 3 * np * sizeof (float)));
      const Timing t = time_it ([&] (int i, cudaStream_t s) {
        pass_nv12_to_rgba<<<dim3 (7, 28), dim3 (32, 8), 0, s>>> (frames[i], frames[i] + pitch * sc.h, sc.w,
                                                                 sc.h, pitch, rgba, 224, 224);
        pass_rgba_to_planar<<<(np + 255) / 256, 256, 0, s>>> (rgba, mean_image, planar, np, 1.f / 255.f);
        pass_planar_to_chw16<<<dim3 (7, 28), dim3 (32, 8), 0, s>>> (planar, v, outs[i]);
      });
      const double bytes =
          read_2tap + np * 4.0 + (np * 4.0 + np * 12.0 + np * 12.0) + (np * 12.0 + out_bytes);
      /* The chain resizes bilinearly: its like is the fused bilinear launch. */
      row (scen, "3-pass DeepStream-like", t, bytes, fused_bilinear.graph_us,
           "of fused bilinear (target >= 3x)");
      std::printf ("| %-34s | 3-pass chain / fused bilinear = %.2fx (target >= 3x): %s\n", scen.c_str (),
                   t.graph_us / fused_bilinear.graph_us,
                   t.graph_us >= 3 * fused_bilinear.graph_us ? "MET" : "MISSED");
      cudaFree (rgba);
      cudaFree (planar);
      cudaFree (mean_image);
    }
    for (auto f : frames)
      cudaFree (f);
    for (auto o : outs)
      cudaFree (o);
    CK (cudaGetLastError ());
  }
  std::printf (
      "\nratio column: graph-replayed time over the reference named; MB moved counts sectors of source\n"
      "rows read plus the tensor written; Orin us = MB moved / 204.8 GB/s. PyTorch: run\n"
      "tests/kernels/preprocess_torch_bench.py on this host.\n");
}

}  // namespace
