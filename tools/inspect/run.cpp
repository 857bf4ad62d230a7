#include "tools/inspect/run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <thread>

#include "tools/inspect/tensor_io.h"
#include "tools/inspect/worker.h"

namespace inspect {
namespace {

double percentile (std::vector<double> v, double p)
{
  if (v.empty ())
    return 0;
  std::sort (v.begin (), v.end ());
  return v[std::min (v.size () - 1, size_t (p * (v.size () - 1) + 0.5))];
}

double now_us ()
{
  return std::chrono::duration<double, std::micro> (std::chrono::steady_clock::now ().time_since_epoch ())
      .count ();
}

}  // namespace

int run (const Options &o, const std::shared_ptr<const dla::Library> &lib, const std::vector<uint8_t> &bytes)
{
  std::vector<std::unique_ptr<Worker>> workers;
  for (int core : o.cores)
    for (int h = 0; h < o.handles; ++h) {
      auto w = std::make_unique<Worker> ();
      w->core = core;
      w->index = int (workers.size ());
      const int rc = open_worker (lib, bytes, o, w.get (), false);
      if (rc != kOk) {
        std::printf ("run: handle=%d core=%d opened=no\n", w->index, core);
        return rc;
      }
      workers.push_back (std::move (w));
    }
  /* The input: zeros, seeded random values in [0, 1), or a dense float32 file. */
  const dla::TensorInfo &in0 = workers[0]->inputs[0];
  const int64_t count = in0.view.n * in0.view.c * in0.view.h * in0.view.w;
  std::vector<float> dense;
  int64_t c_dense = in0.view.c;
  if (!o.input.empty ()) {
    if (!read_f32 (o.input, &dense) || dense.empty () ||
        dense.size () % size_t (in0.view.n * in0.view.h * in0.view.w) ||
        int64_t (dense.size ()) / (in0.view.n * in0.view.h * in0.view.w) > in0.view.c) {
      std::fprintf (stderr, "dlainfer-inspect: '%s' is not float32 %ldx(<=%ld)x%ldx%ld\n", o.input.c_str (),
                    long (in0.view.n), long (in0.view.c), long (in0.view.h), long (in0.view.w));
      return kUsage;
    }
    c_dense = int64_t (dense.size ()) / (in0.view.n * in0.view.h * in0.view.w);
  } else {
    dense.assign (size_t (count), 0.f);
    if (o.seed >= 0) {
      std::mt19937 rng (uint32_t (o.seed));
      std::uniform_real_distribution<float> u (0.f, 1.f);
      for (float &x : dense)
        x = u (rng);
    }
  }
  std::vector<std::vector<uint8_t>> input_bytes (1);
  pack (in0.view, dense.data (), c_dense, o.input_scale, &input_bytes[0]);
  for (auto &w : workers) {
    const int rc = prepare_worker (w.get (), input_bytes);
    if (rc != kOk) {
      std::fprintf (stderr, "dlainfer-inspect: %s\n", w->error.c_str ());
      return rc;
    }
  }
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  const double t0 = now_us ();
  for (auto &w : workers)
    threads.emplace_back (run_worker, w.get (), std::cref (o), &ready, int (workers.size ()));
  for (auto &t : threads)
    t.join ();
  const double wall = now_us () - t0;
  int rc = kOk;
  long total = 0;
  uint64_t first_sum = 0;
  bool sums_equal = true;
  for (auto &w : workers) {
    const uint64_t sum = w->last_output.empty () ? 0 : checksum (w->last_output);
    if (w->index == 0)
      first_sum = sum;
    sums_equal = sums_equal && sum == first_sum;
    double cpu = 0;
    for (double c : w->submit_cpu_us)
      cpu += c;
    std::printf ("run: handle=%d core=%d tasks=%ld queue=%d task_us_mean=%.1f task_us_p50=%.1f task_us_p99=%.1f "
                 "dla_us_p50=%.1f cpu_submit_us=%.2f submit_us_p50=%.2f submit_us_max=%.2f per_s=%.1f checksum=%016llx%s%s\n",
        w->index, w->core, w->submitted, o.queue,
        w->task_us.empty () ? 0 : [&] { double s = 0; for (double x : w->task_us) s += x; return s / w->task_us.size (); } (),
        percentile (w->task_us, 0.5), percentile (w->task_us, 0.99), percentile (w->dla_us, 0.5),
        w->submit_cpu_us.empty () ? 0 : cpu / w->submit_cpu_us.size (), percentile (w->submit_wall_us, 0.5),
        percentile (w->submit_wall_us, 1.0), w->wall_us > 0 ? w->submitted * 1e6 / w->wall_us : 0,
        (unsigned long long) sum, w->error.empty () ? "" : " error=", w->error.c_str ());
    if (o.queue > 1) {
      /* Where a deep queue makes submit block (a jump in its wall time) or fail. */
      size_t slowest = 0;
      for (size_t i = 0; i < w->submit_wall_us.size (); ++i)
        if (w->submit_wall_us[i] > w->submit_wall_us[slowest])
          slowest = i;
      std::printf (
          "queue: handle=%d depth=%d accepted=%d failed_at=%d slowest_submit_us=%.1f at=%zu "
          "submit_us_p50=%.2f\n",
          w->index, o.queue,
          w->queue_failed_at >= 0 ? w->queue_failed_at : int (std::min<long> (o.queue, o.runs)),
          w->queue_failed_at, w->submit_wall_us.empty () ? 0 : w->submit_wall_us[slowest],
          slowest % size_t (o.queue), percentile (w->submit_wall_us, 0.5));
    }
    if (!w->error.empty ())
      rc = kRunFailed;
    total += w->submitted;
  }
  std::printf ("run: handles=%zu cores=%zu tasks=%ld wall_ms=%.1f per_s=%.1f checksums_equal=%s\n",
               workers.size (), o.cores.size (), total, wall / 1000, total * 1e6 / wall,
               sums_equal ? "yes" : "no");
  if (rc == kOk && !o.output.empty ()) {
    std::ofstream f (o.output, std::ios::binary | std::ios::trunc);
    f.write (reinterpret_cast<const char *> (workers[0]->last_output.data ()),
             workers[0]->last_output.size () * 4);
    if (!f) {
      std::fprintf (stderr, "dlainfer-inspect: cannot write '%s'\n", o.output.c_str ());
      rc = kRunFailed;
    }
  }
  if (rc == kOk && !o.expect.empty ())
    for (auto &w : workers) /* every handle's result: core 1 must agree as core 0 */
      if (compare (w->last_output, w->outputs[0].view, o) != kOk)
        rc = kRunFailed;
  return rc;
}

}  // namespace inspect
