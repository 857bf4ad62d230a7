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
  void *const *dst_table; /* job k's destination, read when the kernel runs; nullptr: the jobs' dst */
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
  __shared__ void *dst;
  if (threadIdx.x == 0) /* one read per block of what the host wrote before the launch (mapped memory) */
    dst = a.dst_table ? reinterpret_cast<void *> (
                            __ldcv (reinterpret_cast<const unsigned long long *> (a.dst_table) + blockIdx.y))
                      : j.dst;
  __syncthreads ();
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
      static_cast<float *> (dst)[i] = value_of (src, v.type, j.int8_scale);
    } else if (v.type == tensor::ElemType::kFp16) {
      static_cast<uint16_t *> (dst)[i] = *reinterpret_cast<const uint16_t *> (src); /* the bits as they are */
    } else {
      static_cast<__half *> (dst)[i] = __float2half_rn (value_of (src, v.type, j.int8_scale));
    }
  }
}

/* The arguments and grid of the launch of jobs [first, first + n). */
dim3 plan (const DeviceJob *jobs, int first, int n, void *const *dst_table, Args *a)
{
  *a = Args{};
  size_t most = 1;
  for (int k = 0; k < n; ++k) {
    a->jobs[k] = jobs[first + k];
    most = std::max (most, elements (a->jobs[k].view));
  }
  a->dst_table = dst_table ? dst_table + first : nullptr;
  return dim3 (unsigned (std::min<size_t> ((most + kThreads - 1) / kThreads, kMaxBlocks)), unsigned (n));
}

}  // namespace

cudaError_t depad_device (const DeviceJob *jobs, int count, cudaStream_t stream)
{
  for (int first = 0; first < count; first += kMaxDeviceJobs) {
    Args a;
    const dim3 grid = plan (jobs, first, std::min (count - first, kMaxDeviceJobs), nullptr, &a);
    depad_kernel<<<grid, kThreads, 0, stream>>> (a);
    const cudaError_t e = cudaGetLastError ();
    if (e != cudaSuccess)
      return e;
  }
  return cudaSuccess;
}

cudaError_t depad_graph (const DeviceJob *jobs, int count, void *const *dst_table, cudaGraphExec_t *out)
{
  *out = nullptr;
  cudaGraph_t graph = nullptr;
  cudaError_t e = cudaGraphCreate (&graph, 0);
  for (int first = 0; e == cudaSuccess && first < count; first += kMaxDeviceJobs) {
    Args a;
    cudaKernelNodeParams node{};
    void *args[] = {&a};
    node.func = reinterpret_cast<void *> (depad_kernel);
    node.gridDim = plan (jobs, first, std::min (count - first, kMaxDeviceJobs), dst_table, &a);
    node.blockDim = dim3 (kThreads);
    node.kernelParams = args;
    cudaGraphNode_t added = nullptr; /* the launches write apart: no dependencies */
    e = cudaGraphAddKernelNode (&added, graph, nullptr, 0, &node);
  }
  if (e == cudaSuccess)
    e = cudaGraphInstantiate (out, graph, 0);
  if (graph)
    cudaGraphDestroy (graph);
  if (e != cudaSuccess) {
    *out = nullptr;
    cudaGetLastError ();
  }
  return e;
}

}  // namespace depad
