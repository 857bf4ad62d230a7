/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The layout header's device functions agree with the host ones, for every layout and type. */
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <vector>

#include "common/tensor_layout.h"

namespace {

__global__ void device_offsets (tensor::View v, int64_t *out)
{
  const int64_t i = blockIdx.x * int64_t (blockDim.x) + threadIdx.x;
  const int64_t total = v.n * v.c * v.h * v.w;
  if (i >= total)
    return;
  const int64_t x = i % v.w, y = (i / v.w) % v.h, c = (i / (v.w * v.h)) % v.c, n = i / (v.w * v.h * v.c);
  out[i] = v.offset (n, c, y, x);
}

__global__ void device_make_view (tensor::Layout l, tensor::ElemType t, int64_t w, tensor::View *out,
                                  bool *ok)
{
  *ok = tensor::make_view (l, t, 2, 3, 5, w, out);
}

struct Case {
  tensor::Layout layout;
  tensor::ElemType type;
  int64_t w;
};

class LayoutDevice : public testing::TestWithParam<Case> {};

TEST_P (LayoutDevice, OffsetsAndStridesMatchHost)
{
  const Case k = GetParam ();
  tensor::View host{};
  ASSERT_TRUE (tensor::make_view (k.layout, k.type, 2, 3, 5, k.w, &host));

  tensor::View *d_view = nullptr;
  bool *d_ok = nullptr;
  ASSERT_EQ (cudaMalloc (&d_view, sizeof *d_view), cudaSuccess);
  ASSERT_EQ (cudaMalloc (&d_ok, sizeof *d_ok), cudaSuccess);
  device_make_view<<<1, 1>>> (k.layout, k.type, k.w, d_view, d_ok);
  tensor::View dev{};
  bool ok = false;
  ASSERT_EQ (cudaMemcpy (&dev, d_view, sizeof dev, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ (cudaMemcpy (&ok, d_ok, sizeof ok, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_TRUE (ok);
  EXPECT_EQ (dev.row_stride, host.row_stride);
  EXPECT_EQ (dev.plane_stride, host.plane_stride);
  EXPECT_EQ (dev.batch_stride, host.batch_stride);
  EXPECT_EQ (dev.size, host.size);
  EXPECT_EQ (dev.lanes, host.lanes);

  const int64_t total = host.n * host.c * host.h * host.w;
  int64_t *d_out = nullptr;
  ASSERT_EQ (cudaMalloc (&d_out, total * sizeof (int64_t)), cudaSuccess);
  device_offsets<<<unsigned ((total + 127) / 128), 128>>> (host, d_out);
  ASSERT_EQ (cudaGetLastError (), cudaSuccess);
  std::vector<int64_t> got (total);
  ASSERT_EQ (cudaMemcpy (got.data (), d_out, total * sizeof (int64_t), cudaMemcpyDeviceToHost), cudaSuccess);
  int64_t i = 0;
  for (int64_t n = 0; n < host.n; ++n)
    for (int64_t c = 0; c < host.c; ++c)
      for (int64_t y = 0; y < host.h; ++y)
        for (int64_t x = 0; x < host.w; ++x, ++i)
          ASSERT_EQ (got[i], host.offset (n, c, y, x)) << n << "," << c << "," << y << "," << x;
  cudaFree (d_out);
  cudaFree (d_view);
  cudaFree (d_ok);
}

using tensor::ElemType;
using tensor::Layout;
INSTANTIATE_TEST_SUITE_P (AllLayouts, LayoutDevice,
                          testing::Values (Case{Layout::kChw16, ElemType::kFp16, 224},
                                           Case{Layout::kChw16, ElemType::kFp16, 225},
                                           Case{Layout::kChw32, ElemType::kInt8, 300},
                                           Case{Layout::kDlaLinear, ElemType::kFp16, 225},
                                           Case{Layout::kDlaLinear, ElemType::kInt8, 300},
                                           Case{Layout::kDlaHwc4, ElemType::kFp16, 225},
                                           Case{Layout::kDlaHwc4, ElemType::kInt8, 300},
                                           Case{Layout::kDlaLinear, ElemType::kFp16, 224}));

}  // namespace
