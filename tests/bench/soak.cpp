/* Benchmark 3, soak: 100 000 1080p NV12 CUDA frames through dlainfer (swdla, no service time), the
 * process's RSS and the GPU's used memory (cudaMemGetInfo) sampled every 10 000 frames: both must
 * stay flat within 1 % of the first sample. */
#include <algorithm>

#include "bench_support.h"

TEST (Soak, HundredThousandFramesFlatMemory)
{
  const std::string why = bench::swdla_missing ();
  if (!why.empty ())
    GTEST_FAIL () << why;
  g_setenv ("SWDLA_SERVICE_US", "0", TRUE);
  bench::Frames frames (16);
  ASSERT_EQ (frames.error (), "");
  struct Sample {
    guint64 frames;
    double rss, gpu;
  };
  std::vector<Sample> samples;
  const guint64 n = 100000;
  const bench::Result r = bench::run (frames, bench::dlainfer (), 500, n,
      [&] (guint64 k) { samples.push_back ({k, bench::rss_mib (), bench::gpu_used_mib ()}); });
  ASSERT_EQ (r.error, "");
  EXPECT_EQ (r.with_meta, n);
  ASSERT_EQ (samples.size (), 10u);

  bench::print_machine ();
  std::printf ("\nBenchmark 3 - soak: %" G_GUINT64_FORMAT " 1080p NV12 CUDA frames through dlainfer (swdla, "
               "SWDLA_SERVICE_US=0): %.0f fps, %.2f us CPU/frame\n\n", n, r.fps (), r.cpu_us ());
  std::printf ("|  frames | host RSS MiB | vs first | GPU used MiB | vs first |\n");
  std::printf ("|--------:|------------:|---------:|-------------:|---------:|\n");
  double rss_lo = 1e30, rss_hi = 0, gpu_lo = 1e30, gpu_hi = 0;
  for (const Sample &s : samples) {
    std::printf ("| %7" G_GUINT64_FORMAT " | %11.2f | %+7.2f%% | %12.1f | %+7.2f%% |\n", s.frames, s.rss,
        100 * (s.rss / samples[0].rss - 1), s.gpu, 100 * (s.gpu / samples[0].gpu - 1));
    rss_lo = std::min (rss_lo, s.rss);
    rss_hi = std::max (rss_hi, s.rss);
    gpu_lo = std::min (gpu_lo, s.gpu);
    gpu_hi = std::max (gpu_hi, s.gpu);
  }
  const double rss_spread = 100 * (rss_hi - rss_lo) / samples[0].rss;
  const double gpu_spread = 100 * (gpu_hi - gpu_lo) / samples[0].gpu;
  std::printf ("\nspread (max - min) / first: host RSS %.2f%%, GPU used %.2f%% (target: each <= 1%%): %s\n", rss_spread,
      gpu_spread, rss_spread <= 1 && gpu_spread <= 1 ? "FLAT" : "NOT FLAT");
  std::printf ("(GPU used = total - free of the whole device, as cudaMemGetInfo reports it.)\n");
  EXPECT_LE (rss_spread, 1.0) << "host memory grows";
  EXPECT_LE (gpu_spread, 1.0) << "GPU memory grows";
}
