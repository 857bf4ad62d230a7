/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <cuda_fp16.h>

#include <algorithm>
#include <vector>

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
  void *const dst = j.dst;
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
dim3 plan (const DeviceJob *jobs, int first, int n, Args *a)
{
  *a = Args{};
  size_t most = 1;
  for (int k = 0; k < n; ++k) {
    a->jobs[k] = jobs[first + k];
    most = std::max (most, elements (a->jobs[k].view));
  }
  return dim3 (unsigned (std::min<size_t> ((most + kThreads - 1) / kThreads, kMaxBlocks)), unsigned (n));
}

}  // namespace

cudaError_t depad_device (const DeviceJob *jobs, int count, cudaStream_t stream)
{
  for (int first = 0; first < count; first += kMaxDeviceJobs) {
    Args a;
    const dim3 grid = plan (jobs, first, std::min (count - first, kMaxDeviceJobs), &a);
    depad_kernel<<<grid, kThreads, 0, stream>>> (a);
    const cudaError_t e = cudaGetLastError ();
    if (e != cudaSuccess)
      return e;
  }
  return cudaSuccess;
}

DepadGraph::~DepadGraph ()
{
  if (exec_)
    cudaGraphExecDestroy (exec_);
  if (graph_)
    cudaGraphDestroy (graph_);
}

/* Kernel nodes (no dependencies between them: they write apart), then each job's copy after all. */
cudaError_t DepadGraph::make (const DeviceJob *jobs, int count, void *const *host)
{
  cudaError_t e = cudaGraphCreate (&graph_, 0);
  std::vector<cudaGraphNode_t> kernels;
  for (int first = 0; e == cudaSuccess && first < count; first += kMaxDeviceJobs) {
    Args a;
    cudaKernelNodeParams node{};
    void *args[] = {&a};
    node.func = reinterpret_cast<void *> (depad_kernel);
    node.gridDim = plan (jobs, first, std::min (count - first, kMaxDeviceJobs), &a);
    node.blockDim = dim3 (kThreads);
    node.kernelParams = args;
    kernels.emplace_back ();
    e = cudaGraphAddKernelNode (&kernels.back (), graph_, nullptr, 0, &node);
  }
  for (int k = 0; e == cudaSuccess && k < count; ++k) {
    copies_.emplace_back ();
    device_.push_back (jobs[k].dst);
    bytes_.push_back (dense_bytes (jobs[k].view, jobs[k].type));
    host_.push_back (host[k]);
    e = cudaGraphAddMemcpyNode1D (&copies_.back (), graph_, kernels.data (), kernels.size (), host[k],
                                  jobs[k].dst, bytes_.back (), cudaMemcpyDeviceToHost);
  }
  if (e == cudaSuccess)
    e = cudaGraphInstantiate (&exec_, graph_, 0);
  if (e != cudaSuccess)
    cudaGetLastError ();
  return e;
}

cudaError_t DepadGraph::launch (void *const *host, cudaStream_t stream)
{
  cudaError_t e = cudaSuccess;
  for (size_t k = 0; e == cudaSuccess && k < copies_.size (); ++k) {
    if (host[k] == host_[k])
      continue;
    e = cudaGraphExecMemcpyNodeSetParams1D (exec_, copies_[k], host[k], device_[k], bytes_[k],
                                            cudaMemcpyDeviceToHost);
    host_[k] = e == cudaSuccess ? host[k] : nullptr;
  }
  if (e == cudaSuccess)
    e = cudaGraphLaunch (exec_, stream);
  if (e != cudaSuccess)
    cudaGetLastError ();
  return e;
}

}  // namespace depad
