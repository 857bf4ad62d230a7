/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Just enough of CUDA to run kernels/preprocess.cu's kernel on the CPU, one thread at a time, so
 * CPU-only CI checks the kernel's arithmetic and indexing against the reference (the `unit` test
 * preprocess-emulated). Device memory is host memory here. Not a CUDA model: no concurrency; a
 * kernel that shares memory between its threads runs one block at a time (emulate_blocks), its
 * phases looping over the block's threads themselves; only what preprocess.cu and
 * preprocess_gpu_test.cpp use. */
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "common/numeric.h"

#define PREPROCESS_EMULATE 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __grid_constant__

struct dim3 {
  unsigned x, y, z;
  dim3 (unsigned a = 1, unsigned b = 1, unsigned c = 1) : x (a), y (b), z (c) {}
};
inline dim3 blockIdx, threadIdx, blockDim, gridDim;

struct uchar1 {
  unsigned char x;
};
struct uchar2 {
  unsigned char x, y;
};
struct uchar4 {
  unsigned char x, y, z, w;
};
struct uint2 {
  unsigned x, y;
};
struct uint4 {
  unsigned x, y, z, w;
};
inline uint2 make_uint2 (unsigned a, unsigned b)
{
  return uint2{a, b};
}
inline uint4 make_uint4 (unsigned a, unsigned b, unsigned c, unsigned d)
{
  return uint4{a, b, c, d};
}
template <typename T>
T __ldg (const T *p)
{
  return *p;
}
struct __half {
  uint16_t bits;
};
inline __half __float2half_rn (float f)
{
  return __half{tensor::float_to_half (f)};
}
inline unsigned short __half_as_ushort (__half h)
{
  return h.bits;
}
inline int __float2int_rn (float f)
{
  return std::isnan (f) ? 0 : int (std::nearbyint (f));
}
/* preprocess.cu takes its 64-bit centre arithmetic even where 32 bits would do (a test's switch). */
inline bool emulate_wide_centres = false;

/* CUDA's is within 2 ulp, here exact: the GPU test (not this one) sees what the 2 ulp move (a
 * weight by a float rounding or two, inside the 1 FP16 ulp the comparison allows). */
inline float __fdividef (float a, float b)
{
  return a / b;
}
using std::max;
using std::min;

/* Runs `body` once per thread of the grid, in order. */
template <typename Body>
void emulate_grid (dim3 grid, dim3 block, Body body)
{
  gridDim = grid;
  blockDim = block;
  for (blockIdx.z = 0; blockIdx.z < grid.z; ++blockIdx.z)
    for (blockIdx.y = 0; blockIdx.y < grid.y; ++blockIdx.y)
      for (blockIdx.x = 0; blockIdx.x < grid.x; ++blockIdx.x)
        for (threadIdx.z = 0; threadIdx.z < block.z; ++threadIdx.z)
          for (threadIdx.y = 0; threadIdx.y < block.y; ++threadIdx.y)
            for (threadIdx.x = 0; threadIdx.x < block.x; ++threadIdx.x)
              body ();
}

/* Runs `body` once per block of the grid, in order; the body runs the block's threads itself (by
 * setting threadIdx), phase after phase, which stands for __syncthreads between the phases. */
template <typename Body>
void emulate_blocks (dim3 grid, dim3 block, Body body)
{
  gridDim = grid;
  blockDim = block;
  threadIdx = dim3 (0, 0, 0);
  for (blockIdx.z = 0; blockIdx.z < grid.z; ++blockIdx.z)
    for (blockIdx.y = 0; blockIdx.y < grid.y; ++blockIdx.y)
      for (blockIdx.x = 0; blockIdx.x < grid.x; ++blockIdx.x)
        body ();
}

typedef void *cudaStream_t;
enum cudaError_t { cudaSuccess = 0 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost };
inline cudaError_t cudaGetLastError ()
{
  return cudaSuccess;
}
inline const char *cudaGetErrorName (cudaError_t)
{
  return "cudaSuccess";
}
inline const char *cudaGetErrorString (cudaError_t)
{
  return "no error (emulated)";
}
/* An Orin-sized GPU: 16 SMs (the kernel picks its antialias tile height from the SM count). */
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16 };
inline cudaError_t cudaGetDevice (int *device)
{
  *device = 0;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute (int *value, cudaDeviceAttr attr, int)
{
  *value = attr == cudaDevAttrMultiProcessorCount ? 16 : 0;
  return cudaSuccess;
}
inline cudaError_t cudaMalloc (void **p, size_t n)
{
  *p = std::malloc (n);
  return cudaSuccess;
}
inline cudaError_t cudaFree (void *p)
{
  std::free (p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy (void *d, const void *s, size_t n, cudaMemcpyKind)
{
  std::memcpy (d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemset (void *d, int v, size_t n)
{
  std::memset (d, v, n);
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize ()
{
  return cudaSuccess;
}
