/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <cuda_runtime_api.h>

#include "context_kernel.h"

namespace {
__global__ void copy_plane (const uint8_t *src, int64_t pitch, int width, int height, uint8_t *dst)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    dst[int64_t (y) * width + x] = src[int64_t (y) * pitch + x];
}
}  // namespace

int context_test_copy_plane (const uint8_t *src, int64_t pitch, int width, int height, uint8_t *dst,
                             void *stream)
{
  const dim3 block (32, 8);
  const dim3 grid ((width + 31) / 32, (height + 7) / 8);
  copy_plane<<<grid, block, 0, static_cast<cudaStream_t> (stream)>>> (src, pitch, width, height, dst);
  return int (cudaGetLastError ());
}

namespace {
__global__ void slow_fill (uint8_t *dst, int64_t pitch, int width, int height, uint8_t value, long long spin)
{
  const long long start = clock64 ();
  while (clock64 () - start < spin) {
  }
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    dst[int64_t (y) * pitch + x] = value;
}
}  // namespace

int context_test_slow_fill (uint8_t *dst, int64_t pitch, int width, int height, uint8_t value,
                            long long spin_cycles, void *stream)
{
  const dim3 block (32, 8);
  const dim3 grid ((width + 31) / 32, (height + 7) / 8);
  slow_fill<<<grid, block, 0, static_cast<cudaStream_t> (stream)>>> (dst, pitch, width, height, value,
                                                                     spin_cycles);
  return int (cudaGetLastError ());
}
