/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <cuda_runtime_api.h>

#include "slow_writer.h"

namespace {
__global__ void fill (uint8_t *y, int64_t y_pitch, uint8_t *uv, int64_t uv_pitch, int width, int height,
                      uint8_t Y, uint8_t U, uint8_t V, long long spin)
{
  const long long start = clock64 ();
  while (clock64 () - start < spin) {
  }
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || row >= height)
    return;
  y[int64_t (row) * y_pitch + x] = Y;
  if (row % 2 == 0 && x % 2 == 0) {
    uint8_t *p = uv + int64_t (row / 2) * uv_pitch + x;
    p[0] = U;
    p[1] = V;
  }
}
}  // namespace

int slow_fill_nv12 (uint8_t *y, int64_t y_pitch, uint8_t *uv, int64_t uv_pitch, int width, int height,
                    uint8_t Y, uint8_t U, uint8_t V, long long spin_cycles, void *stream)
{
  const dim3 block (32, 8);
  const dim3 grid ((width + 31) / 32, (height + 7) / 8);
  fill<<<grid, block, 0, static_cast<cudaStream_t> (stream)>>> (y, y_pitch, uv, uv_pitch, width, height, Y, U,
                                                                V, spin_cycles);
  return int (cudaGetLastError ());
}
