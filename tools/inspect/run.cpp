/* SPDX-License-Identifier: LGPL-2.1-or-later */
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

using Workers = std::vector<std::unique_ptr<Worker>>;

/* One worker per handle asked for (o.handles on each of o.cores). */
int open_workers (const Options &o, const std::shared_ptr<const dla::Library> &lib,
                  const std::vector<uint8_t> &bytes, Workers *workers)
{
  for (int core : o.cores)
    for (int h = 0; h < o.handles; ++h) {
      auto w = std::make_unique<Worker> ();
      w->core = core;
      w->index = int (workers->size ());
      const int rc = open_worker (lib, bytes, o, w.get (), false);
      if (rc != kOk) {
        std::printf ("run: handle=%d core=%d opened=no\n", w->index, core);
        return rc;
      }
      workers->push_back (std::move (w));
    }
  return kOk;
}

/* The input: zeros, seeded random values in [0, 1), or a dense float32 file, in the input's layout. */
int make_input (const Options &o, const tensor::View &v, std::vector<uint8_t> *bytes)
{
  std::vector<float> dense;
  int64_t c_dense = v.c;
  if (!o.input.empty ()) {
    if (!read_f32 (o.input, &dense) || dense.empty () || dense.size () % size_t (v.n * v.h * v.w) ||
        int64_t (dense.size ()) / (v.n * v.h * v.w) > v.c) {
      std::fprintf (stderr, "dlainfer-inspect: '%s' is not float32 %ldx(<=%ld)x%ldx%ld\n", o.input.c_str (),
                    long (v.n), long (v.c), long (v.h), long (v.w));
      return kUsage;
    }
    c_dense = int64_t (dense.size ()) / (v.n * v.h * v.w);
  } else {
    dense.assign (size_t (v.n * v.c * v.h * v.w), 0.f);
    if (o.seed >= 0) {
      std::mt19937 rng (uint32_t (o.seed));
      std::uniform_real_distribution<float> u (0.f, 1.f);
      for (float &x : dense)
        x = u (rng);
    }
  }
  pack (v, dense.data (), c_dense, o.input_scale, bytes);
  return kOk;
}

double mean (const std::vector<double> &v)
{
  double s = 0;
  for (double x : v)
    s += x;
  return v.empty () ? 0 : s / double (v.size ());
}

/* Where a deep queue makes submit block (a jump in its wall time) or fail. */
void print_queue (const Worker &w, const Options &o)
{
  size_t slowest = 0;
  for (size_t i = 0; i < w.submit_wall_us.size (); ++i)
    if (w.submit_wall_us[i] > w.submit_wall_us[slowest])
      slowest = i;
  std::printf (
      "queue: handle=%d depth=%d accepted=%d failed_at=%d slowest_submit_us=%.1f at=%zu "
      "submit_us_p50=%.2f\n",
      w.index, o.queue, w.queue_failed_at >= 0 ? w.queue_failed_at : int (std::min<long> (o.queue, o.runs)),
      w.queue_failed_at, w.submit_wall_us.empty () ? 0 : w.submit_wall_us[slowest],
      slowest % size_t (o.queue), percentile (w.submit_wall_us, 0.5));
}

/* One "run:" line per handle (and a "queue:" line with --queue); kRunFailed if one failed. */
int print_workers (const Workers &workers, const Options &o, bool *sums_equal, long *total)
{
  int rc = kOk;
  uint64_t first_sum = 0;
  for (const auto &w : workers) {
    const uint64_t sum = w->last_output.empty () ? 0 : checksum (w->last_output);
    if (w->index == 0)
      first_sum = sum;
    *sums_equal = *sums_equal && sum == first_sum;
    std::printf (
        "run: handle=%d core=%d tasks=%ld queue=%d task_us_mean=%.1f task_us_p50=%.1f task_us_p99=%.1f "
        "dla_us_p50=%.1f cpu_submit_us=%.2f submit_us_p50=%.2f submit_us_max=%.2f per_s=%.1f "
        "checksum=%016llx%s%s\n",
        w->index, w->core, w->submitted, o.queue, mean (w->task_us), percentile (w->task_us, 0.5),
        percentile (w->task_us, 0.99), percentile (w->dla_us, 0.5), mean (w->submit_cpu_us),
        percentile (w->submit_wall_us, 0.5), percentile (w->submit_wall_us, 1.0),
        w->wall_us > 0 ? w->submitted * 1e6 / w->wall_us : 0, (unsigned long long)sum,
        w->error.empty () ? "" : " error=", w->error.c_str ());
    if (o.queue > 1)
      print_queue (*w, o);
    if (!w->error.empty ())
      rc = kRunFailed;
    *total += w->submitted;
  }
  return rc;
}

/* --output writes handle 0's last output; --expect compares every handle's (core 1 must agree with
 * core 0). */
int check_outputs (const Workers &workers, const Options &o)
{
  int rc = kOk;
  if (!o.output.empty ()) {
    std::ofstream f (o.output, std::ios::binary | std::ios::trunc);
    f.write (reinterpret_cast<const char *> (workers[0]->last_output.data ()),
             std::streamsize (workers[0]->last_output.size () * 4));
    if (!f) {
      std::fprintf (stderr, "dlainfer-inspect: cannot write '%s'\n", o.output.c_str ());
      rc = kRunFailed;
    }
  }
  if (rc == kOk && !o.expect.empty ())
    for (const auto &w : workers)
      if (compare (w->last_output, w->outputs[0].view, o) != kOk)
        rc = kRunFailed;
  return rc;
}

}  // namespace

int run (const Options &o, const std::shared_ptr<const dla::Library> &lib, const std::vector<uint8_t> &bytes)
{
  Workers workers;
  int rc = open_workers (o, lib, bytes, &workers);
  std::vector<std::vector<uint8_t>> input_bytes (1);
  if (rc == kOk)
    rc = make_input (o, workers[0]->inputs[0].view, &input_bytes[0]);
  for (size_t i = 0; rc == kOk && i < workers.size (); ++i)
    if ((rc = prepare_worker (workers[i].get (), input_bytes)) != kOk)
      std::fprintf (stderr, "dlainfer-inspect: %s\n", workers[i]->error.c_str ());
  if (rc != kOk)
    return rc;
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  const double t0 = now_us ();
  for (auto &w : workers)
    threads.emplace_back (run_worker, w.get (), std::cref (o), &ready, int (workers.size ()));
  for (auto &t : threads)
    t.join ();
  const double wall = now_us () - t0;
  bool sums_equal = true;
  long total = 0;
  rc = print_workers (workers, o, &sums_equal, &total);
  std::printf ("run: handles=%zu cores=%zu tasks=%ld wall_ms=%.1f per_s=%.1f checksums_equal=%s\n",
               workers.size (), o.cores.size (), total, wall / 1000, total * 1e6 / wall,
               sums_equal ? "yes" : "no");
  return rc == kOk ? check_outputs (workers, o) : rc;
}

}  // namespace inspect
