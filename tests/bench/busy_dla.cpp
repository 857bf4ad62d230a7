/* Benchmark 2, against a busy DLA: swdla with an emulated service time per task (2 ms, then 1 ms)
 * on one core, frames pushed as fast as the element takes them. In this synchronous design each
 * frame waits for its task, so fps < 1/service; the gap per frame is the time the DLA sits idle
 * (preprocess + host work + output copy). The CPU must not spin while it waits (the wait sleeps on
 * the OS timer): CPU per frame should stay far below the service time. */
#include "bench_support.h"

TEST (BusyDla, OneCoreAtTwoAndOneMs)
{
  const std::string why = bench::swdla_missing ();
  if (!why.empty ())
    GTEST_FAIL () << why;
  g_setenv ("SWDLA_NUM_CORES", "1", TRUE);
  g_setenv ("SWDLA_SERVICE_US", "0", TRUE);
  bench::Frames frames (16);
  ASSERT_EQ (frames.error (), "");
  struct Row {
    int service_us;
    bench::Result r;
  };
  std::vector<Row> rows;
  for (int service : {2000, 1000}) {
    g_setenv ("SWDLA_SERVICE_US", std::to_string (service).c_str (), TRUE);
    const guint64 n = 3000000 / service; /* about 3 s each */
    Row row{service, bench::run (frames, bench::dlainfer ("dla-core=0"), 50, n)};
    ASSERT_EQ (row.r.error, "") << service << " us";
    EXPECT_EQ (row.r.with_meta, n);
    rows.push_back (row);
  }
  g_setenv ("SWDLA_SERVICE_US", "0", TRUE);

  bench::print_machine ();
  std::printf (
      "\nBenchmark 2 - busy DLA: 1080p NV12 CUDA frames, appsrc ! dlainfer dla-core=0 ! fakesink, swdla with "
      "one core (SWDLA_NUM_CORES=1)\n\n");
  std::printf (
      "| service | frames |    fps | ceiling fps | fps / ceiling | DLA busy | idle gap us/frame | CPU "
      "us/frame | CPU / service |\n");
  std::printf (
      "|--------:|-------:|-------:|------------:|--------------:|---------:|------------------:|------------"
      "-:|--------------:|\n");
  for (const Row &row : rows) {
    const double ceiling = 1e6 / row.service_us;
    /* Measured, not restated: the DLA task's own time (CUDA events around swdla's task) x frames. */
    const double busy = row.r.dla_ms >= 0 ? row.r.frames * row.r.dla_ms * 1e-3 / row.r.wall_s : -0.01;
    std::printf ("| %4d us | %6" G_GUINT64_FORMAT
                 " | %6.1f | %11.1f | %12.1f%% | %7.1f%% | %17.1f | %12.1f | %12.1f%% |\n",
                 row.service_us, row.r.frames, row.r.fps (), ceiling, 100 * row.r.fps () / ceiling,
                 100 * busy, row.r.wall_us () - row.service_us, row.r.cpu_us (),
                 100 * row.r.cpu_us () / row.service_us);
    /* A spinning wait would burn about one core for the whole service time. */
    EXPECT_LT (row.r.cpu_us (), 0.5 * row.service_us) << "the CPU seems to spin while the DLA works";
  }
  for (const Row &row : rows)
    if (row.r.dla_ms >= 0)
      std::printf (
          "%d us service: swdla's task measured %.1f us (CUDA events, timed frames only); per frame the"
          " element's preprocessing took %.1f us\n",
          row.service_us, 1000 * row.r.dla_ms, 1000 * row.r.preprocess_ms);
  std::printf (
      "\nDLA busy = frames x the DLA task's measured time (CUDA events, 1 task in 32, warm-up excluded) /\n"
      "wall time; fps / ceiling uses the nominal service time. idle gap = wall per frame - service time.\n"
      "CPU / service near 100%% would mean a spinning wait; blocking waits keep it small.\n"
      "This is the one-frame-in-flight baseline that in-flight frames and two cores will raise.\n");
}
