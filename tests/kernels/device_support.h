/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel tests' device side, on the GPU or over the CUDA emulation (PREPROCESS_EMULATE_TEST):
 * a device buffer freed on scope exit, and the FP16 ulp distance the comparisons allow. */
#pragma once

#include <gtest/gtest.h>
#ifdef PREPROCESS_EMULATE_TEST /* the kernel on the CPU */
#include "cuda_emulation.h"
#else
#include <cuda_runtime_api.h>
#endif

#include <cstdint>
#include <cstdlib>

namespace preprocess_test {

struct DeviceBuffer {
  void *p = nullptr;
  explicit DeviceBuffer (size_t n) { EXPECT_EQ (cudaMalloc (&p, n ? n : 1), cudaSuccess); }
  ~DeviceBuffer () { cudaFree (p); }
  DeviceBuffer (const DeviceBuffer &) = delete;
  DeviceBuffer &operator= (const DeviceBuffer &) = delete;
};

inline int fp16_ulps (uint16_t a, uint16_t b)
{
  auto ordinal = [] (uint16_t h) { return (h & 0x8000u) ? -int (h & 0x7fffu) : int (h); };
  return std::abs (ordinal (a) - ordinal (b));
}

}  // namespace preprocess_test
