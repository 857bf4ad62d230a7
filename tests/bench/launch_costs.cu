/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What one frame's CUDA calls cost the CPU right after a sleep, as they run between two frames:
 * the kernel launch, plain and replayed from a graph (preprocess::LaunchGraphs, which dlainfer
 * uses), with a parameter block of the preprocessing kernel's size; the query that first sees the
 * work done after the wait's sleep; the sleep itself. */
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "dla/cuda_resources.h"
#include "kernels/launch_graphs.h"
#include "launch_costs.h"
#include "thread_cpu.h"

namespace bench {

namespace {
/* One by-value parameter, as every KernelLaunch has, about as large as the preprocessing kernel's
 * (its Args hold 64 ROIs' geometry: 2.4 KB). */
struct TinyArgs {
  int value;
  int *out;
  unsigned char geometry[2400];
};

__global__ void tiny_kernel (const TinyArgs a)
{
  if (threadIdx.x == 0 && a.value == -1)
    *a.out = a.value;
}

constexpr auto kNap = std::chrono::microseconds (60);

/* CPU microseconds of `call` alone, less the clock reads around it. */
template <class F>
double cpu_us (F &&call, double clock_us)
{
  const double t0 = thread_cpu_seconds ();
  call ();
  return 1e6 * (thread_cpu_seconds () - t0) - clock_us;
}
}  // namespace

void print_launch_costs ()
{
  dla::CudaStream stream;
  dla::CudaEvent done_event;
  if (!dla::CudaStream::Create (&stream).ok () || !dla::CudaEvent::Create (false, &done_event).ok ()) {
    std::printf ("launch costs: not measured (set-up failed)\n");
    cudaGetLastError ();
    return;
  }
  const auto s = static_cast<cudaStream_t> (stream.get ());
  const auto done = static_cast<cudaEvent_t> (done_event.get ());
  const int n = 2000;
  double clock_us = 0;
  for (int i = 0; i < n; ++i)
    clock_us += cpu_us ([] {}, 0) / n;
  const preprocess::KernelLaunch k = preprocess::launch_of (tiny_kernel, TinyArgs{}, dim3 (1), dim3 (32));
  double plain = 0, graph = 0, query = 0, sleep = 0;
  {
    preprocess::LaunchGraphs graphs;
    graphs.launch (k, s);
    graphs.launch (k, s); /* the second sighting makes its graph */
    for (int i = 0; i < 2 * n; ++i) {
      std::this_thread::sleep_for (kNap);
      (i % 2 ? graph : plain) +=
          cpu_us ([&] { i % 2 ? graphs.launch (k, s) : preprocess::start (k, s); }, clock_us) / n;
      cudaStreamSynchronize (s);
    }
    /* As the wait does: queue, sleep past the work's end, then one query finds it done. */
    int done_count = 0;
    for (int i = 0; i < n; ++i) {
      preprocess::start (k, s);
      cudaEventRecord (done, s);
      sleep += cpu_us ([] { std::this_thread::sleep_for (kNap); }, clock_us) / n;
      cudaError_t e = cudaErrorNotReady;
      query += cpu_us ([&] { e = cudaEventQuery (done); }, clock_us) / n;
      done_count += e == cudaSuccess;
      cudaStreamSynchronize (s);
    }
    std::printf (
        "CPU us per call after a %lld us sleep (as between frames): kernel launch (2.4 KB parameter) %.2f "
        "plain, %.2f replayed from a CUDA graph (%llu replays); the cudaEventQuery that finds the work done "
        "(%d of %d did) %.2f; the %lld us sleep itself %.2f\n",
        static_cast<long long> (kNap.count ()), plain, graph,
        static_cast<unsigned long long> (graphs.replays ()), done_count, n, query,
        static_cast<long long> (kNap.count ()), sleep);
  }
  cudaGetLastError ();
}

}  // namespace bench
