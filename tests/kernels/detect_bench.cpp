/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark: detection decode + NMS on the GPU for a YOLOv5s-640 head as cuDLA-samples' loadable
 * ends (3 FP16 chw16 outputs of 255 channels at 80x80, 40x40, 20x20: 25 200 candidates), with 30,
 * 300 and 3000 candidates above the threshold. GPU time of the two launches, event to event, queued
 * behind a 64 MiB memset as in the element they queue behind the DLA task (which also evicts the
 * outputs from L2, as the DLA's writes would on Orin); median of 500. Target: <= 30 us with 30 and
 * with 300 candidates. The floor: two empty kernels of the same shapes, timed the same way. Also
 * the CPU reference's time, for scale. */
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "detect_cases.h"
#include "empty_chain.h"
#include "host/detect/decode_ref.h"
#include "kernels/detect_device.h"

namespace {

double median (std::vector<double> v)
{
  std::sort (v.begin (), v.end ());
  return v[v.size () / 2];
}

/* Median GPU microseconds of `queue` (event to event), each run behind a 64 MiB memset. */
template <typename F>
double gpu_median_us (cudaStream_t s, void *busy, size_t busy_bytes, F &&queue)
{
  cudaEvent_t a, b;
  cudaEventCreate (&a);
  cudaEventCreate (&b);
  std::vector<double> t;
  for (int i = 0; i < 520; ++i) {
    cudaMemsetAsync (busy, i & 0xff, busy_bytes, s);
    cudaEventRecord (a, s);
    EXPECT_EQ (queue (), cudaSuccess);
    cudaEventRecord (b, s);
    EXPECT_EQ (cudaEventSynchronize (b), cudaSuccess);
    float ms = 0.f;
    cudaEventElapsedTime (&ms, a, b);
    if (i >= 20)
      t.push_back (1e3 * double (ms));
  }
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return median (t);
}

TEST (DetectBench, Yolov5sHead)
{
  int devices = 0;
  if (cudaGetDeviceCount (&devices) != cudaSuccess || devices == 0)
    GTEST_SKIP () << "no CUDA device";
  std::printf ("%-12s %10s %10s %12s %12s\n", "candidates", "kept", "dropped", "GPU us", "CPU ref us");
  for (int hits : {30, 300, 3000}) {
    detect_cases::Head h;
    detect_cases::yolov5s_head (hits, 17, &h);
    ASSERT_TRUE (h.error.empty ()) << h.error;
    const detect::Plan &p = *h.plan;
    detect::Frame f{};
    f.x = f.y = geometry::Axis{0, 640, 640, 0};
    std::vector<void *> dev;
    ASSERT_EQ (detect_cases::upload (h, &f, &dev), cudaSuccess);
    void *ws = nullptr, *res = nullptr, *busy = nullptr;
    constexpr size_t kBusy = size_t (64) << 20;
    ASSERT_EQ (cudaMalloc (&ws, detect::workspace_bytes (p)), cudaSuccess);
    ASSERT_EQ (cudaMalloc (&res, sizeof (detect::Result)), cudaSuccess);
    ASSERT_EQ (cudaMalloc (&busy, kBusy), cudaSuccess);
    ASSERT_EQ (detect::prepare_workspace (p, ws), cudaSuccess);
    cudaStream_t s;
    cudaStreamCreate (&s);
    if (hits == 30) {
      const double floor_us = gpu_median_us (
          s, busy, kBusy, [&] () { return detect_bench::launch_empty_chain (p.candidates, s); });
      std::printf ("%-12s %10s %10s %12.1f %12s\n", "floor", "-", "-", floor_us, "-");
    }
    const double gpu_us = gpu_median_us (s, busy, kBusy, [&] () {
      return detect::decode_device (p, f, ws, static_cast<detect::Result *> (res), s);
    });
    detect::Result r;
    cudaMemcpy (&r, res, detect::result_bytes (0), cudaMemcpyDeviceToHost);
    detect::Frame hf = f;
    for (int o = 0; o < p.outputs; ++o)
      hf.outputs[o] = h.data[size_t (o)].data ();
    auto ref = std::make_unique<detect::Result> ();
    const auto c0 = std::chrono::steady_clock::now ();
    detect::decode_reference (p, hf, ref.get ());
    const double cpu_us =
        std::chrono::duration<double, std::micro> (std::chrono::steady_clock::now () - c0).count ();
    std::printf ("%-12d %10d %10d %12.1f %12.0f\n", r.candidates, r.count, r.dropped, gpu_us, cpu_us);
    EXPECT_EQ (r.candidates, ref->candidates);
    if (hits <= 300) {
      EXPECT_LE (gpu_us, 30.0) << "target: decode + NMS of a YOLOv5s-640 head <= 30 us of GPU time";
    }
    cudaStreamDestroy (s);
    for (void *d : dev)
      cudaFree (d);
    cudaFree (ws);
    cudaFree (res);
    cudaFree (busy);
  }
}

}  // namespace
