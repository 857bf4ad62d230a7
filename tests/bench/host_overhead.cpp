/* Benchmark 1, host overhead: what dlainfer adds per frame over identity in this synchronous
 * design, with a DLA that answers at once (swdla, SWDLA_SERVICE_US=0). 10 000 pre-rendered 1080p
 * NV12 frames in CUDA memory, `appsrc ! X ! fakesink`, not live. Targets: <= 50 us wall and
 * <= 20 us CPU added per frame. */
#include "bench_support.h"

namespace {

/* CPU microseconds per call of the CUDA runtime calls dlainfer makes per frame, on this machine. */
void measure_cuda_call_costs (cudaStream_t s, cudaEvent_t a, cudaEvent_t b, void *dev, void *host)
{
  const int n = 20000;
  /* The issuing loop only: the stream is drained afterwards, outside the measurement. */
  auto per_call = [&] (auto call) {
    const double t0 = bench::thread_cpu_seconds ();
    for (int i = 0; i < n; ++i)
      call ();
    const double t1 = bench::thread_cpu_seconds ();
    cudaStreamSynchronize (s);
    return 1e6 * (t1 - t0) / n;
  };
  const double record = per_call ([&] { cudaEventRecord (a, s); });
  const double query = per_call ([&] { cudaEventQuery (a); });
  const double copy = per_call ([&] { cudaMemcpyAsync (host, dev, 64, cudaMemcpyDeviceToHost, s); });
  cudaEventRecord (b, s);
  cudaEventSynchronize (b);
  float ms;
  const double elapsed = per_call ([&] { cudaEventElapsedTime (&ms, a, b); });
  std::printf ("CUDA runtime calls on this machine, CPU us per call: cudaEventRecord %.2f, cudaEventQuery %.2f, "
               "cudaMemcpyAsync (64 B to pinned) %.2f, cudaEventElapsedTime %.2f\n", record, query, copy, elapsed);
}

void print_cuda_call_costs ()
{
  cudaStream_t s = nullptr;
  cudaEvent_t a = nullptr, b = nullptr;
  void *dev = nullptr, *host = nullptr;
  if (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking) == cudaSuccess &&
      cudaEventCreateWithFlags (&a, cudaEventBlockingSync) == cudaSuccess &&
      cudaEventCreateWithFlags (&b, cudaEventBlockingSync) == cudaSuccess && cudaMalloc (&dev, 64) == cudaSuccess &&
      cudaMallocHost (&host, 64) == cudaSuccess)
    measure_cuda_call_costs (s, a, b, dev, host);
  else
    std::printf ("CUDA runtime call costs: not measured (set-up failed)\n");
  cudaFreeHost (host);
  cudaFree (dev);
  if (b)
    cudaEventDestroy (b);
  if (a)
    cudaEventDestroy (a);
  if (s)
    cudaStreamDestroy (s);
  cudaGetLastError ();
}

}  // namespace

TEST (HostOverhead, DlainferAgainstIdentity)
{
  const std::string why = bench::swdla_missing ();
  if (!why.empty ())
    GTEST_SKIP () << why;
  g_setenv ("SWDLA_SERVICE_US", "0", TRUE);
  bench::Frames frames (16);
  ASSERT_EQ (frames.error (), "");
  const guint64 n = 10000, warmup = 500;
  const bench::Result id = bench::run (frames, "identity", warmup, n);
  ASSERT_EQ (id.error, "");
  const bench::Result dla = bench::run (frames, bench::dlainfer (), warmup, n);
  ASSERT_EQ (dla.error, "");
  EXPECT_EQ (dla.with_meta, n) << "every frame must leave dlainfer with a result";

  const double add_wall = dla.wall_us () - id.wall_us (), add_cpu = dla.cpu_us () - id.cpu_us ();
  bench::print_machine ();
  std::printf ("\nBenchmark 1 - host overhead: %" G_GUINT64_FORMAT " pre-rendered 1080p NV12 CUDA frames (after %"
               G_GUINT64_FORMAT " warm-up), appsrc ! X ! fakesink, SWDLA_SERVICE_US=0\n\n", n, warmup);
  std::printf ("| X                 |        fps | wall us/frame | CPU us/frame |\n");
  std::printf ("|-------------------|-----------:|--------------:|-------------:|\n");
  std::printf ("| identity          | %10.0f | %13.2f | %12.2f |\n", id.fps (), id.wall_us (), id.cpu_us ());
  std::printf ("| dlainfer (swdla)  | %10.0f | %13.2f | %12.2f |\n", dla.fps (), dla.wall_us (), dla.cpu_us ());
  std::printf ("| added by dlainfer |            | %13.2f | %12.2f |\n\n", add_wall, add_cpu);
  std::printf ("target: <= 50 us wall added per frame: %s (%.2f us)\n", add_wall <= 50 ? "MET" : "MISSED", add_wall);
  std::printf ("target: <= 20 us CPU added per frame:  %s (%.2f us)\n", add_cpu <= 20 ? "MET" : "MISSED", add_cpu);
  std::printf ("(CPU = getrusage of the whole process, every thread, the app's pushing thread included: the same\n"
               " for both rows. The dlainfer wall time includes its GPU work: kernel, swdla's task, output copy.)\n");
  std::printf ("of the CPU per frame, the streaming thread (appsrc ! X ! fakesink runs on it): identity %.2f us, "
               "dlainfer %.2f us; the other threads (the app's, CUDA's): %.2f us added\n",
      id.streaming_cpu_us (), dla.streaming_cpu_us (),
      (dla.cpu_us () - dla.streaming_cpu_us ()) - (id.cpu_us () - id.streaming_cpu_us ()));
  if (dla.dla_ms >= 0) {
    /* swdla is a stand-in for the DLA: its task time is the DLA's, not the element's. */
    const double own = add_wall - 1000.0 * dla.dla_ms;
    std::printf ("\ndlainfer stats (CUDA events, mean per frame): preprocess %.1f us, DLA task (swdla) %.1f us, "
                 "postprocess %.1f us\n", 1000.0 * dla.preprocess_ms, 1000.0 * dla.dla_ms, 1000.0 * dla.postprocess_ms);
    std::printf ("target: <= 50 us wall added per frame, the DLA task's time taken out: %s (%.2f us)\n",
        own <= 50 ? "MET" : "MISSED", own);
  }
  print_cuda_call_costs ();
  if (dla.swdla_cpu_s > 0) {
    /* swdla launches the network's kernels from cudlaSubmitTask on the caller's thread; a DLA runs
     * the network itself, though a real submit still costs some CPU: this is an upper bound. */
    const double own_cpu = add_cpu - dla.swdla_cpu_us ();
    std::printf ("CPU inside swdla's cudlaSubmitTask (the software DLA's host work): %.2f us/frame\n",
        dla.swdla_cpu_us ());
    std::printf ("target: <= 20 us CPU added per frame, all of swdla's submit CPU taken out (a real submit costs"
                 " some): %s (%.2f us)\n",
        own_cpu <= 20 ? "MET" : "MISSED", own_cpu);
  }
}
