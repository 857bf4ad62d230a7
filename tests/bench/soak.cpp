/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark 3, soak: 100 000 1080p NV12 CUDA frames through dlainfer (swdla, no service time), the
 * process's RSS and the GPU's used memory (cudaMemGetInfo) sampled every 1 000 frames from frame
 * 1 000 on. Judged by a least-squares slope: the growth it projects over the 100 000 frames, and the
 * spread of the samples, must each stay within 0.25 % of the first sample (runs so far spread
 * 0.04 % on RSS and 0 % on the GPU). */
#include <algorithm>

#include "bench_support.h"

namespace {

constexpr double kBandPercent = 0.25;

/* Least-squares slope of y over x. */
double slope (const std::vector<double> &x, const std::vector<double> &y)
{
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size (); ++i)
    mx += x[i], my += y[i];
  mx /= x.size ();
  my /= y.size ();
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < x.size (); ++i)
    sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx);
  return sxx > 0 ? sxy / sxx : 0;
}

struct Trend {
  double projected_percent, spread_percent;
};

Trend trend (const std::vector<double> &frames, const std::vector<double> &v, double n)
{
  const auto [lo, hi] = std::minmax_element (v.begin (), v.end ());
  return {100 * slope (frames, v) * n / v.front (), 100 * (*hi - *lo) / v.front ()};
}

}  // namespace

using Soak = bench::SwdlaBench;

TEST_F (Soak, HundredThousandFramesFlatMemory)
{
  ASSERT_NO_FATAL_FAILURE (start ({{"SWDLA_SERVICE_US", "0"}}));
  const bench::Frames &frames = rendered ();
  std::vector<double> at, rss, gpu;
  const guint64 n = 100000;
  const bench::Result r = bench::run (
      frames, bench::dlainfer (), 500, n,
      [&] (guint64 k) {
        at.push_back (double (k));
        rss.push_back (bench::rss_mib ());
        gpu.push_back (bench::gpu_used_mib ());
      },
      1000);
  ASSERT_EQ (r.error, "");
  EXPECT_EQ (r.with_meta, n);
  ASSERT_EQ (at.size (), 100u);

  bench::print_machine ();
  std::printf ("\nBenchmark 3 - soak: %" G_GUINT64_FORMAT
               " 1080p NV12 CUDA frames through dlainfer (swdla, "
               "SWDLA_SERVICE_US=0): %.0f fps, %.2f us CPU/frame\n\n",
               n, r.fps (), r.cpu_us ());
  std::printf ("|  frames | host RSS MiB | vs first | GPU used MiB | vs first |\n");
  std::printf ("|--------:|------------:|---------:|-------------:|---------:|\n");
  for (size_t i = 0; i < at.size (); i += 9)
    std::printf ("| %7.0f | %11.2f | %+7.2f%% | %12.1f | %+7.2f%% |\n", at[i], rss[i],
                 100 * (rss[i] / rss[0] - 1), gpu[i], 100 * (gpu[i] / gpu[0] - 1));
  const Trend host = trend (at, rss, double (n)), dev = trend (at, gpu, double (n));
  const bool flat = std::max ({host.projected_percent, host.spread_percent, dev.projected_percent,
                               dev.spread_percent}) <= kBandPercent;
  std::printf ("\nfrom frame 1 000, 100 samples: host RSS slope projects %+.3f%% over %" G_GUINT64_FORMAT
               " frames, spread %.3f%%; GPU used %+.3f%%, spread %.3f%% (target: each <= %.2f%%): %s\n",
               host.projected_percent, n, host.spread_percent, dev.projected_percent, dev.spread_percent,
               kBandPercent, flat ? "FLAT" : "NOT FLAT");
  std::printf ("(GPU used = total - free of the whole device, as cudaMemGetInfo reports it.)\n");
  EXPECT_LE (host.projected_percent, kBandPercent) << "host memory grows";
  EXPECT_LE (host.spread_percent, kBandPercent) << "host memory moves";
  EXPECT_LE (dev.projected_percent, kBandPercent) << "GPU memory grows";
  EXPECT_LE (dev.spread_percent, kBandPercent) << "GPU memory moves";
}
