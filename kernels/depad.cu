#include <cuda_fp16.h>

#include <algorithm>

#include "kernels/depad_device.h"

namespace depad {
namespace {

constexpr int kThreads = 256;
/* Enough blocks to fill an H200 or an Orin several times; larger tensors loop. */
constexpr unsigned kMaxBlocks = 1024;

struct Args {
  DeviceJob jobs[kMaxDeviceJobs];
};

/* One source element as FLOAT32: FP16 widened exactly, INT8 times its scale (tensor::dequantize_int8). */
__device__ __forceinline__ float value_of (const uint8_t *src, tensor::ElemType t, float scale)
{
  if (t == tensor::ElemType::kInt8)
    return float (int8_t (*src)) * scale;
  return __half2float (*reinterpret_cast<const __half *> (src));
}

/* One thread per dense output element (in output order: the writes coalesce; the reads are the
 * few kilobytes of a pixel vector's row, shared through L1). blockIdx.y: the job. */
__global__ void __launch_bounds__ (kThreads) depad_kernel (const __grid_constant__ Args a)
{
  const DeviceJob &j = a.jobs[blockIdx.y];
  const tensor::View &v = j.view;
  const auto w = uint32_t (v.w), h = uint32_t (v.h), c = uint32_t (v.c);
  const uint32_t total = uint32_t (v.n) * c * h * w;
  const auto *base = static_cast<const uint8_t *> (j.src);
  for (uint32_t i = blockIdx.x * kThreads + threadIdx.x; i < total; i += gridDim.x * kThreads) {
    uint32_t t = i / w;
    const uint32_t x = i - t * w;
    const uint32_t y = t % h;
    t /= h;
    const uint32_t ch = t % c, n = t / c;
    const uint8_t *src = base + v.offset (n, ch, y, x);
    if (j.type == Type::kFloat32) {
      static_cast<float *> (j.dst)[i] = value_of (src, v.type, j.int8_scale);
    } else if (v.type == tensor::ElemType::kFp16) {
      static_cast<uint16_t *> (j.dst)[i] =
          *reinterpret_cast<const uint16_t *> (src); /* the bits as they are */
    } else {
      static_cast<__half *> (j.dst)[i] = __float2half_rn (value_of (src, v.type, j.int8_scale));
    }
  }
}

}  // namespace

cudaError_t depad_device (const DeviceJob *jobs, int count, cudaStream_t stream)
{
  for (int first = 0; first < count; first += kMaxDeviceJobs) {
    Args a{};
    const int n = std::min (count - first, kMaxDeviceJobs);
    size_t most = 1;
    for (int k = 0; k < n; ++k) {
      a.jobs[k] = jobs[first + k];
      most = std::max (most, elements (a.jobs[k].view));
    }
    const unsigned blocks = unsigned (std::min<size_t> ((most + kThreads - 1) / kThreads, kMaxBlocks));
    depad_kernel<<<dim3 (blocks, unsigned (n)), kThreads, 0, stream>>> (a);
    const cudaError_t e = cudaGetLastError ();
    if (e != cudaSuccess)
      return e;
  }
  return cudaSuccess;
}

}  // namespace depad
