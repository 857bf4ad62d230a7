#include <cuda_runtime_api.h>

#include "bare_frames.h"
#include "dla/completion_wait.h"
#include "dla/cuda_resources.h"
#include "dla/engine.h"
#include "kernels/launch_graphs.h"
#include "thread_cpu.h"

namespace bench {

namespace {
struct BusyArgs {
  unsigned long long ns;
};

/* Runs for a.ns of the GPU's global timer: the frame's GPU work without its cost to the host. */
__global__ void busy_kernel (const BusyArgs a)
{
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  while (t - t0 < a.ns);
}

cudaEvent_t ev (const dla::CudaEvent &e)
{
  return static_cast<cudaEvent_t> (e.get ());
}
}  // namespace

double bare_frame_cpu_us (double gpu_us, int n)
{
  dla::CudaStream stream;
  dla::CudaEvent start, submitted, dla_end, done, done_untimed;
  dla::PinnedBuffer host;
  void *dev = nullptr;
  const bool ready =
      dla::CudaStream::Create (&stream).ok () && dla::CudaEvent::Create (true, &start).ok () &&
      dla::CudaEvent::Create (true, &submitted).ok () && dla::CudaEvent::Create (true, &dla_end).ok () &&
      dla::CudaEvent::Create (true, &done).ok () && dla::CudaEvent::Create (false, &done_untimed).ok () &&
      dla::PinnedBuffer::Create (64, &host).ok () && cudaMalloc (&dev, 64) == cudaSuccess;
  double cpu_us = -1;
  if (ready) {
    const auto s = static_cast<cudaStream_t> (stream.get ());
    const BusyArgs args{static_cast<unsigned long long> (gpu_us * 1000.0)};
    const preprocess::KernelLaunch k = preprocess::launch_of (busy_kernel, args, dim3 (1), dim3 (1));
    preprocess::LaunchGraphs graphs;
    dla::CompletionWait wait;
    float ms = 0;
    const int warmup = 100;
    double t0 = 0;
    for (int i = 0; i < warmup + n; ++i) {
      if (i == warmup)
        t0 = thread_cpu_seconds ();
      const bool timed = dla::timed_task (uint64_t (i));
      const size_t entry = graphs.prepare (k);
      wait.started ();
      if (timed)
        cudaEventRecord (ev (start), s);
      graphs.launch (entry, s);
      if (timed) {
        cudaEventRecord (ev (submitted), s);
        cudaEventRecord (ev (dla_end), s);
      }
      cudaMemcpyAsync (host.data (), dev, 64, cudaMemcpyDeviceToHost, s);
      cudaEventRecord (ev (timed ? done : done_untimed), s);
      if (wait.wait (timed ? done.get () : done_untimed.get ()) != cudaSuccess)
        break;
      if (timed) {
        cudaEventElapsedTime (&ms, ev (submitted), ev (dla_end));
        cudaEventElapsedTime (&ms, ev (start), ev (submitted));
        if (cudaEventElapsedTime (&ms, ev (start), ev (done)) == cudaSuccess)
          wait.learn (ms);
      }
      if (i + 1 == warmup + n)
        cpu_us = 1e6 * (thread_cpu_seconds () - t0) / n;
    }
  }
  cudaFree (dev);
  cudaGetLastError ();
  return cpu_us;
}

}  // namespace bench
