/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark: what tensor-meta costs per frame with the GPU de-padding it (docs/tensors.md 4), for a
 * 1000-class FP16 chw16 vector (with its classification), a 2048 x 7 x 7 map (FP16 chw16 to FLOAT32
 * and FLOAT16, INT8 chw32 to FLOAT32) and 64 x 56 x 56 (FP16 chw16):
 *  - GPU: the kernel alone, and the GPU time added per frame: kernel + the dense copy minus the
 *    padded copy the engine makes without raw tensors (CUDA events around each, queued behind other
 *    work as behind the DLA task, median of many);
 *  - host CPU per frame (this thread's clock), raw tensors on minus off: on, the engine's AfterTask
 *    (pooled buffer, one graph replay: kernel and a copy per output), the classification from the dense
 * scores, the tensor meta, the buffer freed downstream; off, the padded copy and the classification from it.
 * The DLA's own work is the same either way and left out. Targets: GPU added <= 5 us (1000 classes), <= 20 us
 * (2048 x 7 x 7); host CPU added <= 5 us. */
#include <cuda_runtime_api.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "dla/cuda_resources.h"
#include "gst/outputs/tensor_output.h"
#include "host/postprocess.h"
#include "kernels/depad_device.h"
#include "tensor_cases.h"
#include "thread_cpu.h"

namespace {

double median (std::vector<double> v)
{
  std::sort (v.begin (), v.end ());
  return v[v.size () / 2];
}

/* GPU microseconds of `work` on `s` (event to event), median of `n`. Each time behind a 64 MiB
 * memset, as in the element the de-pad and its copy queue behind the DLA task: on an idle stream the
 * span would also hold the host's launch of the work, a few microseconds, which the element never
 * makes the GPU wait for. */
double gpu_us (cudaStream_t s, int n, const std::function<void ()> &work)
{
  constexpr size_t kBusyBytes = size_t (64) << 20;
  dla::DeviceBuffer busy;
  if (!dla::DeviceBuffer::Create (kBusyBytes, &busy).ok ())
    return -1;
  cudaEvent_t a, b;
  cudaEventCreate (&a);
  cudaEventCreate (&b);
  std::vector<double> t;
  for (int i = 0; i < n; ++i) {
    cudaMemsetAsync (busy.data (), i & 0xff, kBusyBytes, s);
    cudaEventRecord (a, s);
    work ();
    cudaEventRecord (b, s);
    cudaEventSynchronize (b);
    float ms = 0.f;
    cudaEventElapsedTime (&ms, a, b);
    t.push_back (1e3 * double (ms));
  }
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return median (t);
}

class TensorDepadGpu : public testing::Test {
 protected:
  void SetUp () override
  {
    int n = 0;
    if (cudaGetDeviceCount (&n) != cudaSuccess || n == 0)
      GTEST_SKIP () << "no CUDA device";
    gst_init (nullptr, nullptr);
  }
};

TEST_F (TensorDepadGpu, GpuAndHostPerFrame)
{
  std::vector<bench::TensorCase> cases = bench::tensor_cases ();
  cases.push_back (
      {"64x56x56, fp16 chw16 -> FLOAT32", tensor::Layout::kChw16, tensor::ElemType::kFp16, 64, 56, false, 0});
  cudaStream_t s;
  ASSERT_EQ (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking), cudaSuccess);
  constexpr int kSlots = 2, kFrames = 4000;
  bool all_met = true;
  for (const bench::TensorCase &k : cases) {
    const double gpu_target_us = k.classes ? 5.0 : k.c == 2048 ? 20.0 : 0.0; /* 0: no target */
    dla::TensorInfo info;
    info.name = "out";
    ASSERT_TRUE (tensor::make_view (k.layout, k.type, 1, k.c, k.hw, k.hw, &info.view));
    dlainfer::Settings set;
    set.tensor_meta = true;
    set.tensor_fp16 = k.fp16;
    set.output_scale = 0.5f;
    dlainfer::TensorOutput out;
    out.prepare ({info}, set, k.classes, g_quark_from_string ("bench"));
    dla::AfterTask after;
    std::string error;
    ASSERT_TRUE (out.start_device (0, kSlots, &after, &error)) << error;
    ASSERT_TRUE (after.queue);

    dla::DeviceBuffer padded, dense;
    dla::PinnedBuffer host_padded;
    ASSERT_TRUE (dla::DeviceBuffer::Create (size_t (info.view.size), &padded).ok ());
    ASSERT_TRUE (dla::PinnedBuffer::Create (size_t (info.view.size), &host_padded).ok ());
    cudaMemset (padded.data (), 0x11, size_t (info.view.size));
    depad::DeviceJob job{info.view, padded.data (), nullptr, 0.5f,
                         k.fp16 ? depad::Type::kFloat16 : depad::Type::kFloat32};
    if (k.classes)
      job.view.c = k.classes;
    ASSERT_TRUE (dla::DeviceBuffer::Create (depad::dense_bytes (job.view, job.type), &dense).ok ());
    job.dst = dense.data ();

    /* GPU: the kernel; kernel + dense copy (what the AfterTask queues) minus the padded copy. */
    const double kernel = gpu_us (s, 2000, [&] { depad::depad_device (&job, 1, s); });
    const double with = gpu_us (s, 2000, [&] { after.queue (0, {padded.data ()}, s); });
    const double without = gpu_us (s, 2000, [&] {
      cudaMemcpyAsync (host_padded.data (), padded.data (), size_t (info.view.size), cudaMemcpyDeviceToHost,
                       s);
    });
    ASSERT_TRUE (kernel >= 0 && with >= 0 && without >= 0) << "no room for the 64 MiB busy buffer";

    /* Host CPU per frame, on and off; the waits for the GPU are outside the clock. */
    postprocess::Params params;
    std::vector<float> scores;
    std::vector<postprocess::Result> results;
    tensor::View cls = info.view;
    cls.c = k.classes ? k.classes : cls.c;
    std::vector<double> on, off;
    for (int round = 0; round < 5; ++round) {
      double cpu_on = 0, cpu_off = 0;
      for (int f = 0; f < kFrames / 5; ++f) {
        const int slot = f % kSlots;
        double t0 = bench::thread_cpu_seconds ();
        after.queue (slot, {padded.data ()}, s);
        cpu_on += bench::thread_cpu_seconds () - t0;
        cudaStreamSynchronize (s);
        t0 = bench::thread_cpu_seconds ();
        GstBuffer *buf = gst_buffer_new ();
        if (const float *sc = out.class_scores (slot))
          postprocess::run_scores (sc, k.classes, params, &scores, &results);
        out.attach_device (nullptr, buf, slot);
        gst_buffer_unref (buf);
        cpu_on += bench::thread_cpu_seconds () - t0;

        t0 = bench::thread_cpu_seconds ();
        cudaMemcpyAsync (host_padded.data (), padded.data (), size_t (info.view.size), cudaMemcpyDeviceToHost,
                         s);
        cpu_off += bench::thread_cpu_seconds () - t0;
        cudaStreamSynchronize (s);
        t0 = bench::thread_cpu_seconds ();
        if (k.classes)
          postprocess::run (cls, host_padded.data (), params, &scores, &results);
        cpu_off += bench::thread_cpu_seconds () - t0;
      }
      on.push_back (1e6 * cpu_on / (kFrames / 5));
      off.push_back (1e6 * cpu_off / (kFrames / 5));
    }
    const double added_gpu = with - without, added_cpu = median (on) - median (off);
    const bool gpu_ok = gpu_target_us <= 0 || added_gpu <= gpu_target_us, cpu_ok = added_cpu <= 5.0;
    all_met = all_met && gpu_ok && cpu_ok;
    std::printf (
        "tensor-depad-gpu: %-42s GPU kernel %6.2f us, kernel+copy %6.2f us - padded copy %6.2f us"
        " = added %6.2f us",
        k.what, kernel, with, without, added_gpu);
    if (gpu_target_us > 0)
      std::printf (" (target <= %.0f us: %s)", gpu_target_us, gpu_ok ? "met" : "MISSED");
    std::printf (
        "; host CPU on %6.2f us - off %6.2f us = added %6.2f us (target <= 5 us: %s); host copies %llu\n",
        median (on), median (off), added_cpu, cpu_ok ? "met" : "MISSED",
        (unsigned long long)out.tensor_copies ());
    out.clear ();
  }
  cudaStreamDestroy (s);
  std::printf ("tensor-depad-gpu: targets %s\n", all_met ? "met" : "MISSED (see above)");
}

}  // namespace
