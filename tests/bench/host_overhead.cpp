/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark 1, host overhead: what dlainfer adds per frame over identity in this synchronous
 * design, with a DLA that answers at once (swdla, SWDLA_SERVICE_US=0). 10 000 pre-rendered 1080p
 * NV12 frames in CUDA memory per element (10 alternating rounds of 1 000), `appsrc ! X ! fakesink`,
 * not live, all on the streaming thread. Targets: <= 50 us wall and <= 20 us CPU added per frame. */
#include <algorithm>
#include <vector>

#include "bare_frames.h"
#include "bench_support.h"
#include "dla/cuda_resources.h"
#include "dla/engine.h"
#include "launch_costs.h"

namespace {

/* CPU microseconds per call of the CUDA runtime calls dlainfer makes per frame, on this machine. */
void measure_cuda_call_costs (cudaStream_t s, cudaEvent_t a, cudaEvent_t b, cudaEvent_t plain, void *dev,
                              void *host)
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
  const double record_plain = per_call ([&] { cudaEventRecord (plain, s); });
  const double query = per_call ([&] { cudaEventQuery (plain); });
  const double copy = per_call ([&] { cudaMemcpyAsync (host, dev, 64, cudaMemcpyDeviceToHost, s); });
  cudaEventRecord (b, s);
  cudaEventSynchronize (b);
  float ms;
  const double elapsed = per_call ([&] { cudaEventElapsedTime (&ms, a, b); });
  std::printf (
      "CUDA runtime calls on this machine, CPU us per call: cudaEventRecord %.2f with timing (4 on a"
      " timed frame, 1 in %d), %.2f without (1 on the others), cudaEventQuery %.2f,"
      " cudaMemcpyAsync (64 B to pinned) %.2f, cudaEventElapsedTime %.2f\n",
      record, dla::kTimingPeriod, record_plain, query, copy, elapsed);
}

void print_cuda_call_costs ()
{
  /* The engine's own kinds of object: its stream, its events (with timing for the stage timings,
   * without for the end it waits for) and its pinned output memory. */
  dla::CudaStream s;
  dla::CudaEvent a, b, plain;
  dla::PinnedBuffer host;
  void *dev = nullptr;
  if (dla::CudaStream::Create (&s).ok () && dla::CudaEvent::Create (true, &a).ok () &&
      dla::CudaEvent::Create (true, &b).ok () && dla::CudaEvent::Create (false, &plain).ok () &&
      dla::PinnedBuffer::Create (64, &host).ok () && cudaMalloc (&dev, 64) == cudaSuccess)
    measure_cuda_call_costs (static_cast<cudaStream_t> (s.get ()), static_cast<cudaEvent_t> (a.get ()),
                             static_cast<cudaEvent_t> (b.get ()), static_cast<cudaEvent_t> (plain.get ()),
                             dev, host.data ());
  else
    std::printf ("CUDA runtime call costs: not measured (set-up failed)\n");
  cudaFree (dev);
  cudaGetLastError ();
}

/* Median and range of one figure over the rounds. */
struct Spread {
  double median, lo, hi;
};

Spread spread (std::vector<double> v)
{
  std::sort (v.begin (), v.end ());
  return {v[v.size () / 2], v.front (), v.back ()};
}

/* The frames in flight the element keeps by default (max-in-flight, gst/settings.h). */
constexpr int kDefaultInFlight = 2;

/* A queue that holds what dlainfer keeps in flight by default. */
const std::string kQueue =
    "queue max-size-buffers=" + std::to_string (kDefaultInFlight) + " max-size-bytes=0 max-size-time=0";

/* The floor of the element's design: its streaming thread submits, its src pad's task waits and
 * pushes, each waking once a frame; the second wake-up is the design's, not the element's code. */
template <typename Range>
void print_split_floor (const Spread &floor, const Spread &rest, const Spread &handoff, const Range &range)
{
  std::printf (
      "the same frames split over two threads as dlainfer splits them (%d in flight; one thread submits, the "
      "other waits and frees the slot): %s; the rest over that floor: %s\n",
      kDefaultInFlight, range (floor).c_str (), range (rest).c_str ());
  std::printf (
      "GStreamer's own two-thread hand-off at the same pace, no CUDA (`%s ! identity sleep-time=GPU us` "
      "against that identity alone): %s per frame\n",
      kQueue.c_str (), range (handoff).c_str ());
  std::printf (
      "target: the element's own part <= 5 us CPU per frame over the floor of its two-thread design, every "
      "round: %s\n",
      rest.hi <= 5 ? "MET" : "MISSED");
}

}  // namespace

using HostOverhead = bench::SwdlaBench;

TEST_F (HostOverhead, DlainferAgainstIdentity)
{
  ASSERT_NO_FATAL_FAILURE (start ({{"SWDLA_SERVICE_US", "0"}}));
  const bench::Frames &frames = rendered ();
  /* 10 000 frames each, in rounds that alternate identity and dlainfer: on a shared machine the
   * load drifts, and a difference taken between neighbouring rounds cancels most of it. */
  constexpr int kRounds = 10;
  const guint64 n = 1000, warmup = 500;
  std::vector<bench::Result> ids, dlas;
  /* Per round: the same CUDA calls alone, for dlainfer's GPU time, on one thread and split over two
   * threads with the default frames in flight, as the element splits a frame. */
  std::vector<double> bare, split;
  /* And GStreamer's own cost of a two-thread design at the same pace, no CUDA: `queue` hands each
   * frame to its src pad's task as dlainfer does; identity's sleep stands for the task's wait. */
  std::vector<double> handoff;
  for (int r = 0; r < kRounds; ++r) {
    ids.push_back (bench::run (frames, "identity", warmup, n));
    ASSERT_EQ (ids.back ().error, "");
    dlas.push_back (bench::run (frames, bench::dlainfer (), warmup, n));
    ASSERT_EQ (dlas.back ().error, "");
    EXPECT_EQ (dlas.back ().with_meta, n) << "every frame must leave dlainfer with a result";
    const bench::Result &d = dlas.back ();
    if (d.dla_ms >= 0) {
      const double gpu_us = 1000.0 * (d.preprocess_ms + d.dla_ms);
      bare.push_back (bench::bare_frame_cpu_us (gpu_us, int (n)));
      split.push_back (bench::bare_pipelined_cpu_us (gpu_us, int (n), kDefaultInFlight));
      const std::string paced = "identity sleep-time=" + std::to_string (int (gpu_us + 0.5));
      const bench::Result one = bench::run (frames, paced, warmup, n);
      const bench::Result two = bench::run (frames, kQueue + (" ! " + paced), warmup, n);
      ASSERT_EQ (one.error + two.error, "");
      handoff.push_back (two.cpu_us () - one.cpu_us ());
    }
  }
  auto over = [&] (auto figure) {
    std::vector<double> v;
    for (int r = 0; r < kRounds; ++r)
      v.push_back (figure (ids[r], dlas[r]));
    return spread (v);
  };
  using R = const bench::Result &;
  const Spread id_wall = over ([] (R i, R) { return i.wall_us (); }),
               id_cpu = over ([] (R i, R) { return i.cpu_us (); });
  const Spread dla_wall = over ([] (R, R d) { return d.wall_us (); }),
               dla_cpu = over ([] (R, R d) { return d.cpu_us (); });
  const Spread add_wall = over ([] (R i, R d) { return d.wall_us () - i.wall_us (); });
  const Spread add_cpu = over ([] (R i, R d) { return d.cpu_us () - i.cpu_us (); });
  const Spread id_stream = over ([] (R i, R) { return i.streaming_cpu_us (); });
  const Spread dla_stream = over ([] (R, R d) { return d.streaming_cpu_us (); });
  const Spread other = over ([] (R i, R d) {
    return (d.cpu_us () - d.streaming_cpu_us ()) - (i.cpu_us () - i.streaming_cpu_us ());
  });
  auto range = [] (const Spread &x) {
    char buf[64];
    std::snprintf (buf, sizeof buf, "%.2f us (%.2f..%.2f)", x.median, x.lo, x.hi);
    return std::string (buf);
  };

  bench::print_machine ();
  std::printf ("\nBenchmark 1 - host overhead: %d rounds of %" G_GUINT64_FORMAT
               " pre-rendered 1080p NV12 CUDA frames"
               " (after %" G_GUINT64_FORMAT
               " warm-up) per element, identity and dlainfer alternating,"
               " appsrc ! X ! fakesink, SWDLA_SERVICE_US=0; medians over the rounds, (min..max)\n\n",
               kRounds, n, warmup);
  std::printf ("| X                 |        fps | wall us/frame | CPU us/frame |\n");
  std::printf ("|-------------------|-----------:|--------------:|-------------:|\n");
  std::printf ("| identity          | %10.0f | %13.2f | %12.2f |\n", 1e6 / id_wall.median, id_wall.median,
               id_cpu.median);
  std::printf ("| dlainfer (swdla)  | %10.0f | %13.2f | %12.2f |\n", 1e6 / dla_wall.median, dla_wall.median,
               dla_cpu.median);
  std::printf ("| added by dlainfer |            | %13.2f | %12.2f |\n\n", add_wall.median, add_cpu.median);
  std::printf ("target: <= 50 us wall added per frame: %s, %s\n", add_wall.median <= 50 ? "MET" : "MISSED",
               range (add_wall).c_str ());
  std::printf ("target: <= 20 us CPU added per frame:  %s, %s\n", add_cpu.median <= 20 ? "MET" : "MISSED",
               range (add_cpu).c_str ());
  std::printf (
      "(CPU = getrusage of the whole process, every thread: the same for both rows. appsrc's\n"
      " need-data callback pushes the frames on the streaming thread. The dlainfer wall time\n"
      " includes its GPU work: kernel, swdla's task, output copy.)\n");
  std::printf (
      "of the CPU per frame, the thread that pushes into fakesink (identity: the streaming thread, which\n"
      " runs appsrc ! identity ! fakesink; dlainfer: its src pad task, which waits, post-processes and\n"
      " pushes; the streaming thread then only submits): identity %s, dlainfer %s; the other threads\n"
      " (the streaming thread for dlainfer, CUDA's, swdla's): %s added\n",
      range (id_stream).c_str (), range (dla_stream).c_str (), range (other).c_str ());
  if (dlas[0].dla_ms >= 0) {
    /* swdla is a stand-in for the DLA: its task time is the DLA's, not the element's. */
    const Spread own = over ([] (R i, R d) { return d.wall_us () - i.wall_us () - 1000.0 * d.dla_ms; });
    const Spread pre = over ([] (R, R d) { return 1000.0 * d.preprocess_ms; });
    const Spread task = over ([] (R, R d) { return 1000.0 * d.dla_ms; });
    const Spread post = over ([] (R, R d) { return 1000.0 * d.postprocess_ms; });
    std::printf (
        "\ndlainfer stats (CUDA events on 1 inference in %d, means): preprocess %.1f us, DLA task"
        " (swdla) %.1f us, postprocess %.1f us\n",
        dla::kTimingPeriod, pre.median, task.median, post.median);
    std::printf ("target: <= 50 us wall added per frame, the DLA task's time taken out: %s, %s\n",
                 own.median <= 50 ? "MET" : "MISSED", range (own).c_str ());
  }
  std::printf (
      "kernel launches replayed from CUDA graphs (the %d frame buffers come round): %" G_GUINT64_FORMAT
      " of %" G_GUINT64_FORMAT " inferences in the first round\n",
      frames.count (), dlas[0].graph_launches, dlas[0].inferences);
  print_cuda_call_costs ();
  bench::print_launch_costs ();
  if (dlas[0].swdla_cpu_s > 0) {
    /* swdla queues the network (a CUDA graph) from cudlaSubmitTask on the caller's thread; a DLA runs
     * the network itself, though a real submit still costs some CPU: this is an upper bound. */
    const Spread submit = over ([] (R, R d) { return d.swdla_cpu_us (); });
    const Spread own_cpu = over ([] (R i, R d) { return d.cpu_us () - i.cpu_us () - d.swdla_cpu_us (); });
    std::printf ("CPU inside swdla's cudlaSubmitTask (the software DLA's host work): %s per frame\n",
                 range (submit).c_str ());
    std::printf (
        "target: <= 20 us CPU added per frame, all of swdla's submit CPU taken out (a real submit costs"
        " some): %s, %s\n",
        own_cpu.median <= 20 ? "MET" : "MISSED", range (own_cpu).c_str ());
    if (int (bare.size ()) == kRounds && int (handoff.size ()) == kRounds &&
        *std::min_element (bare.begin (), bare.end ()) > 0) {
      /* Of that figure, what any synchronous CUDA frame pays this host, and what is dlainfer's own. */
      auto rest_over = [&] (const std::vector<double> &floor) {
        std::vector<double> rest;
        for (int r = 0; r < kRounds; ++r)
          rest.push_back (dlas[r].cpu_us () - ids[r].cpu_us () - dlas[r].swdla_cpu_us () - floor[size_t (r)]);
        return spread (rest);
      };
      std::printf (
          "of which the same CUDA calls and wait alone (a bare loop, no GStreamer, no DLA submit; its kernel "
          "runs for dlainfer's GPU time per frame): %s; the rest (the element's own code, GStreamer's work "
          "beyond identity's, swdla's other calls): %s\n",
          range (spread (bare)).c_str (), range (rest_over (bare)).c_str ());
      print_split_floor (spread (split), rest_over (split), spread (handoff), range);
    } else {
      ADD_FAILURE () << "the bare CUDA frame loop did not run";
    }
  }
}
