/* What one frame's CUDA calls cost the CPU right after a sleep, as they run between two frames:
 * the kernel launch, plain and replayed from a graph (preprocess::LaunchGraphs, which dlainfer
 * uses), the query that first sees the task's end, and the sleep itself. */
#include "launch_costs.h"

#include <cuda_runtime_api.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "launch_graphs.h"

namespace bench {

namespace {
/* One by-value parameter, as every KernelLaunch has. */
struct TinyArgs {
  int value;
  int *out;
};

__global__ void tiny_kernel (const TinyArgs a)
{
  if (threadIdx.x == 0 && a.value == -1)
    *a.out = a.value;
}

constexpr auto kNap = std::chrono::microseconds (60);

double thread_cpu_seconds ()
{
  timespec ts {};
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return double (ts.tv_sec) + 1e-9 * double (ts.tv_nsec);
}

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
  cudaStream_t s = nullptr;
  cudaEvent_t done = nullptr;
  if (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking) != cudaSuccess
      || cudaEventCreateWithFlags (&done, cudaEventDisableTiming) != cudaSuccess) {
    std::printf ("launch costs: not measured (set-up failed)\n");
    cudaGetLastError ();
    return;
  }
  const int n = 2000;
  double clock_us = 0;
  for (int i = 0; i < n; ++i)
    clock_us += cpu_us ([] {}, 0) / n;
  preprocess::KernelLaunch k {};
  const TinyArgs args {0, nullptr};
  k.function = reinterpret_cast<const void *> (tiny_kernel);
  k.grid = dim3 (1);
  k.block = dim3 (32);
  k.param_bytes = sizeof args;
  std::memcpy (k.param, &args, sizeof args);
  double plain = 0, graph = 0, first_query = 0, later_query = 0, sleep = 0;
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
    for (int i = 0; i < n; ++i) {
      preprocess::start (k, s);
      cudaEventRecord (done, s);
      double took = 0;
      cudaError_t e = cudaErrorNotReady;
      while (e == cudaErrorNotReady)
        took = cpu_us ([&] { e = cudaEventQuery (done); }, clock_us);
      first_query += took / n;
      later_query += cpu_us ([&] { cudaEventQuery (done); }, clock_us) / n;
      sleep += cpu_us ([] { std::this_thread::sleep_for (kNap); }, clock_us) / n;
    }
    std::printf ("CPU us per call after a %lld us sleep (as between frames): kernel launch %.2f plain, %.2f replayed "
                 "from a CUDA graph (%llu replays); the cudaEventQuery that first sees the work done %.2f (later "
                 "ones %.2f); the %lld us sleep itself %.2f\n",
        static_cast<long long> (kNap.count ()), plain, graph, static_cast<unsigned long long> (graphs.replays ()),
        first_query, later_query, static_cast<long long> (kNap.count ()), sleep);
  }
  cudaEventDestroy (done);
  cudaStreamDestroy (s);
  cudaGetLastError ();
}

}  // namespace bench
