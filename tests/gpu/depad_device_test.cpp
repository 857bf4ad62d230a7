/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The GPU de-padding (kernels/depad_device.h) equals the host reference (host/depad.cpp) bit for
 * bit: every DLA layout and type, FLOAT32 and FLOAT16 out, odd sizes, a class vector whose pad
 * lanes are left out, a 1x1x1 edge, several outputs in one launch, and the graph the element
 * replays, writing pinned host memory through a table. */
#include "kernels/depad_device.h"

#include <cuda_runtime.h> /* cudaMalloc and cudaMallocHost for any pointer type */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "host/depad.h"

namespace {

struct Case {
  tensor::Layout layout;
  tensor::ElemType type;
  int64_t n, c, h, w;
  int64_t keep; /* channels kept (a class vector's class count); 0: all */
};

void PrintTo (const Case &k, std::ostream *os)
{
  *os << tensor::layout_name (k.layout) << "/" << tensor::elem_type_name (k.type) << " " << k.n << "x" << k.c
      << "x" << k.h << "x" << k.w << (k.keep ? " keep " + std::to_string (k.keep) : "");
}

/* Random bytes everywhere, pads included (the kernel must skip them as the host does); FP16 values
 * finite (NaN payloads are no layout question). */
std::vector<uint8_t> padded_tensor (const tensor::View &v, uint32_t seed)
{
  std::mt19937 rng (seed);
  std::vector<uint8_t> bytes (size_t (v.size));
  for (auto &b : bytes)
    b = uint8_t (rng ());
  if (v.type == tensor::ElemType::kFp16)
    for (size_t i = 1; i < bytes.size (); i += 2)
      if ((bytes[i] & 0x7c) == 0x7c)
        bytes[i] &= 0xbb; /* exponent 31 (inf/NaN) -> a finite one */
  return bytes;
}

template <typename T>
struct DeviceMem {
  T *p = nullptr;
  explicit DeviceMem (size_t bytes) { EXPECT_EQ (cudaMalloc (&p, bytes ? bytes : 1), cudaSuccess); }
  ~DeviceMem () { cudaFree (p); }
};

/* The kernel's output for these jobs (device copies of the host tensors made here). */
std::vector<std::vector<uint8_t>> run_device (std::vector<depad::DeviceJob> jobs,
                                              const std::vector<std::vector<uint8_t>> &tensors)
{
  std::vector<std::unique_ptr<DeviceMem<uint8_t>>> src, dst;
  for (size_t i = 0; i < jobs.size (); ++i) {
    src.emplace_back (new DeviceMem<uint8_t> (tensors[i].size ()));
    dst.emplace_back (new DeviceMem<uint8_t> (depad::dense_bytes (jobs[i].view, jobs[i].type)));
    EXPECT_EQ (cudaMemcpy (src[i]->p, tensors[i].data (), tensors[i].size (), cudaMemcpyHostToDevice),
               cudaSuccess);
    jobs[i].src = src[i]->p;
    jobs[i].dst = dst[i]->p;
  }
  EXPECT_EQ (depad::depad_device (jobs.data (), int (jobs.size ()), nullptr), cudaSuccess);
  EXPECT_EQ (cudaDeviceSynchronize (), cudaSuccess);
  std::vector<std::vector<uint8_t>> out;
  for (size_t i = 0; i < jobs.size (); ++i) {
    out.emplace_back (depad::dense_bytes (jobs[i].view, jobs[i].type));
    EXPECT_EQ (cudaMemcpy (out[i].data (), dst[i]->p, out[i].size (), cudaMemcpyDeviceToHost), cudaSuccess);
  }
  return out;
}

std::vector<uint8_t> run_host (const depad::DeviceJob &j, const std::vector<uint8_t> &tensor)
{
  std::vector<uint8_t> out (depad::dense_bytes (j.view, j.type));
  depad::depad (j.view, tensor.data (), j.int8_scale, j.type, out.data ());
  return out;
}

class DepadDevice : public testing::TestWithParam<Case> {
 protected:
  void SetUp () override
  {
    int n = 0;
    if (cudaGetDeviceCount (&n) != cudaSuccess || n == 0)
      GTEST_SKIP () << "no CUDA device";
  }
};

TEST_P (DepadDevice, EqualsTheHostReference)
{
  const Case k = GetParam ();
  for (const depad::Type type : {depad::Type::kFloat32, depad::Type::kFloat16}) {
    depad::DeviceJob j;
    ASSERT_TRUE (tensor::make_view (k.layout, k.type, k.n, k.c, k.h, k.w, &j.view));
    const std::vector<uint8_t> tensor = padded_tensor (j.view, uint32_t (k.c * 131 + k.w));
    if (k.keep)
      j.view.c = k.keep;
    j.int8_scale = 0.0371f;
    j.type = type;
    const std::vector<uint8_t> want = run_host (j, tensor);
    const std::vector<uint8_t> got = run_device ({j}, {tensor})[0];
    ASSERT_EQ (got.size (), want.size ());
    const size_t es = type == depad::Type::kFloat32 ? 4 : 2;
    for (size_t i = 0; i < want.size (); i += es)
      ASSERT_EQ (std::memcmp (&got[i], &want[i], es), 0)
          << (type == depad::Type::kFloat32 ? "FLOAT32" : "FLOAT16") << " element " << i / es;
  }
}

using tensor::ElemType;
using tensor::Layout;
INSTANTIATE_TEST_SUITE_P (
    Layouts, DepadDevice,
    testing::Values (Case{Layout::kChw16, ElemType::kFp16, 1, 1008, 1, 1, 1000}, /* a class vector */
                     Case{Layout::kChw32, ElemType::kInt8, 1, 1024, 1, 1, 1000},
                     Case{Layout::kDlaLinear, ElemType::kFp16, 1, 1000, 1, 1, 0},
                     Case{Layout::kDlaLinear, ElemType::kInt8, 1, 1000, 1, 1, 0},
                     Case{Layout::kChw16, ElemType::kFp16, 1, 2048, 7, 7, 0},
                     Case{Layout::kChw32, ElemType::kInt8, 1, 2048, 7, 7, 0},
                     Case{Layout::kDlaLinear, ElemType::kFp16, 1, 2048, 7, 7, 0},
                     Case{Layout::kChw16, ElemType::kFp16, 1, 64, 56, 56, 0},
                     Case{Layout::kChw32, ElemType::kInt8, 1, 64, 56, 56, 0},
                     Case{Layout::kDlaLinear, ElemType::kInt8, 1, 64, 56, 56, 0},
                     Case{Layout::kChw16, ElemType::kFp16, 2, 20, 5, 3, 0}, /* pad lanes, batch 2 */
                     Case{Layout::kChw32, ElemType::kInt8, 2, 33, 3, 5, 0},
                     Case{Layout::kDlaLinear, ElemType::kFp16, 1, 3, 9, 37, 0}, /* padded rows */
                     Case{Layout::kDlaHwc4, ElemType::kFp16, 1, 3, 4, 21, 0},
                     Case{Layout::kDlaHwc4, ElemType::kInt8, 1, 4, 3, 70, 0},
                     Case{Layout::kDlaHwc4, ElemType::kFp16, 1, 1, 5, 33, 0},
                     Case{Layout::kChw16, ElemType::kFp16, 1, 1, 1, 1, 0}, /* 1x1x1 */
                     Case{Layout::kChw32, ElemType::kInt8, 1, 1, 1, 1, 0},
                     Case{Layout::kDlaLinear, ElemType::kFp16, 1, 1, 1, 1, 0}));

/* Several outputs (more than one launch takes) of different sizes and layouts in one call. */
TEST (DepadDeviceJobs, ManyOutputsInOneCall)
{
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess || n == 0)
    GTEST_SKIP () << "no CUDA device";
  std::vector<depad::DeviceJob> jobs;
  std::vector<std::vector<uint8_t>> tensors;
  for (int i = 0; i < depad::kMaxDeviceJobs + 3; ++i) {
    depad::DeviceJob j;
    const bool int8 = i % 2;
    ASSERT_TRUE (tensor::make_view (int8 ? Layout::kChw32 : Layout::kChw16,
                                    int8 ? ElemType::kInt8 : ElemType::kFp16, 1, 17 + 40 * i, 1 + i % 4,
                                    3 + i, &j.view));
    j.int8_scale = 0.5f + i;
    j.type = i % 3 ? depad::Type::kFloat32 : depad::Type::kFloat16;
    tensors.push_back (padded_tensor (j.view, uint32_t (i)));
    jobs.push_back (j);
  }
  const auto got = run_device (jobs, tensors);
  for (size_t i = 0; i < jobs.size (); ++i)
    EXPECT_EQ (got[i], run_host (jobs[i], tensors[i])) << "output " << i;
}

template <typename T>
struct PinnedMem {
  T *p = nullptr;
  explicit PinnedMem (size_t count)
  {
    EXPECT_EQ (cudaMallocHost (&p, sizeof (T) * (count ? count : 1)), cudaSuccess);
  }
  ~PinnedMem () { cudaFreeHost (p); }
};

/* The element's path (gst/outputs/device_tensors.cpp): the jobs as a graph (two kernel nodes: more
 * outputs than one takes) writing pinned host memory through a pinned table. Replayed twice, with
 * other destinations and other source values: each replay reads the table and the sources when it
 * runs, writes only the destinations named, and equals the host reference. */
/* The graph: every job de-padded into its device buffer and copied to the host buffer given at
 * each launch; a launch leaves the previous launch's host buffers alone. */
TEST (DepadDeviceJobs, GraphCopiesToTheHostBuffersOfEachLaunch)
{
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess || n == 0)
    GTEST_SKIP () << "no CUDA device";
  const int count = depad::kMaxDeviceJobs + 2;
  std::vector<depad::DeviceJob> jobs (count);
  std::vector<std::unique_ptr<DeviceMem<uint8_t>>> src, dense;
  std::vector<std::unique_ptr<PinnedMem<uint8_t>>> dst[2];
  for (int i = 0; i < count; ++i) {
    depad::DeviceJob &j = jobs[size_t (i)];
    ASSERT_TRUE (tensor::make_view (i % 2 ? Layout::kChw32 : Layout::kChw16,
                                    i % 2 ? ElemType::kInt8 : ElemType::kFp16, 1, 20 + 37 * i, 1 + i % 3, 5,
                                    &j.view));
    j.int8_scale = 0.25f * float (i + 1);
    j.type = i % 3 ? depad::Type::kFloat32 : depad::Type::kFloat16;
    src.emplace_back (new DeviceMem<uint8_t> (size_t (j.view.size)));
    j.src = src.back ()->p;
    dense.emplace_back (new DeviceMem<uint8_t> (depad::dense_bytes (j.view, j.type)));
    j.dst = dense.back ()->p;
    for (auto &d : dst)
      d.emplace_back (new PinnedMem<uint8_t> (depad::dense_bytes (j.view, j.type)));
  }
  std::vector<void *> host[2];
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < count; ++i)
      host[r].push_back (dst[r][size_t (i)]->p);
  depad::DepadGraph graph;
  ASSERT_EQ (graph.make (jobs.data (), count, host[1].data ()), cudaSuccess);
  cudaStream_t stream;
  ASSERT_EQ (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking), cudaSuccess);
  for (int round = 0; round < 3; ++round) {
    const int to = round % 2;
    std::vector<std::vector<uint8_t>> tensors;
    for (int i = 0; i < count; ++i) {
      tensors.push_back (padded_tensor (jobs[size_t (i)].view, uint32_t (100 * round + i)));
      ASSERT_EQ (cudaMemcpy (src[size_t (i)]->p, tensors.back ().data (), tensors.back ().size (),
                             cudaMemcpyHostToDevice),
                 cudaSuccess);
      const size_t bytes = depad::dense_bytes (jobs[size_t (i)].view, jobs[size_t (i)].type);
      std::memset (dst[0][size_t (i)]->p, 0xab, bytes); /* each round must leave the other's alone */
      std::memset (dst[1][size_t (i)]->p, 0xab, bytes);
    }
    ASSERT_EQ (graph.launch (host[to].data (), stream), cudaSuccess);
    ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
    for (int i = 0; i < count; ++i) {
      const depad::DeviceJob &j = jobs[size_t (i)];
      const std::vector<uint8_t> want = run_host (j, tensors[size_t (i)]);
      const uint8_t *got = dst[to][size_t (i)]->p, *other = dst[1 - to][size_t (i)]->p;
      EXPECT_EQ (std::memcmp (got, want.data (), want.size ()), 0) << "round " << round << ", output " << i;
      EXPECT_TRUE (std::all_of (other, other + want.size (), [] (uint8_t b) { return b == 0xab; }))
          << "round " << round << " wrote the other destination of output " << i;
    }
  }
  cudaStreamDestroy (stream);
}

}  // namespace
