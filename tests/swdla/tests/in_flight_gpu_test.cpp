/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla with several frames in flight, as pessimistic as the DLA may be: each task's
 * service time jittered from a seeded sequence (SWDLA_SERVICE_JITTER_PCT, SWDLA_SEED), a per-handle
 * queue limit that refuses or blocks the next submit (SWDLA_QUEUE_LIMIT, SWDLA_QUEUE_FULL), and
 * CPU burnt inside every submit (SWDLA_SUBMIT_CPU_US). Orders are shown with CUDA events and
 * stream queries, task times with CUDA event timing, CPU with thread CPU clocks. */
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gpu_helpers.h"
#include "settings.h"

extern "C" {
uint64_t swdlaSubmitCpuNs (void);
uint64_t swdlaSubmitCpuNsCore (int core);
int swdlaQueueWaiters (void);
int64_t swdlaCoreTaskCount (int core);
}

namespace {

using swdla_test::describe;
using swdla_test::Env;
using swdla_test::Session;
using swdla_test::Stream;

/* A CUDA event destroyed at scope end (timing only where asked). */
class Event {
 public:
  explicit Event (bool timing = false)
  {
    cudaEventCreateWithFlags (&e_, timing ? cudaEventDefault : cudaEventDisableTiming);
  }
  ~Event () { cudaEventDestroy (e_); }
  Event (const Event &) = delete;
  Event &operator= (const Event &) = delete;
  operator cudaEvent_t () const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

/* One task, done: its graph captured, and the service-time sequence seeing the current settings. */
void warm_up (Session &s, cudaStream_t stream)
{
  const cudlaStatus st = s.submit (stream);
  ASSERT_EQ (st, cudlaSuccess) << describe (st);
  ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
}

std::string refusal ()
{
  return swdlaLastRefusal ();
}

TEST (SwdlaInFlight, JitteredServiceTimesVaryWithinTheBand)
{
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  Stream stream;
  warm_up (s, stream); /* without jitter: the sequence starts again at the next task */
  constexpr uint64_t kBaseUs = 20000;
  constexpr int kPct = 40;
  constexpr uint64_t kSeed = 20201;
  Env service ("SWDLA_SERVICE_US", std::to_string (kBaseUs));
  Env jitter ("SWDLA_SERVICE_JITTER_PCT", std::to_string (kPct));
  Env seed ("SWDLA_SEED", std::to_string (kSeed));
  constexpr int kTasks = 8;
  std::vector<std::unique_ptr<Event>> marks;
  for (int i = 0; i <= kTasks; ++i)
    marks.push_back (std::make_unique<Event> (true));
  /* Back to back on one stream: the GPU time between two marks is one task's. */
  ASSERT_EQ (cudaEventRecord (*marks[0], stream), cudaSuccess);
  for (int i = 0; i < kTasks; ++i) {
    const cudlaStatus st = s.submit (stream);
    ASSERT_EQ (st, cudlaSuccess) << describe (st);
    ASSERT_EQ (cudaEventRecord (*marks[size_t (i) + 1], stream), cudaSuccess);
  }
  ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
  const double base_ms = double (kBaseUs) / 1000.0;
  double lo = 1e9, hi = 0;
  for (int i = 0; i < kTasks; ++i) {
    float ms = 0;
    ASSERT_EQ (cudaEventElapsedTime (&ms, *marks[size_t (i)], *marks[size_t (i) + 1]), cudaSuccess);
    const double want = double (swdla::jittered_ns (kBaseUs * 1000, kPct, kSeed, uint64_t (i) + 1)) / 1e6;
    std::printf ("task %d: %.3f ms on the GPU (drawn service time %.3f ms)\n", i + 1, ms, want);
    EXPECT_GE (ms, base_ms * (1 - kPct / 100.0) - 0.05) << "task " << i + 1 << " below the band";
    EXPECT_LE (ms, base_ms * (1 + kPct / 100.0) + 3.0) << "task " << i + 1 << " above the band";
    /* the seeded sequence's own draw: the spin, then the (sub-millisecond) network */
    EXPECT_GE (ms, want - 0.05) << "task " << i + 1;
    EXPECT_LE (ms, want + 3.0) << "task " << i + 1;
    lo = std::min (lo, double (ms));
    hi = std::max (hi, double (ms));
  }
  EXPECT_GE (hi - lo, 0.1 * base_ms) << "the tasks took about the same time: no jitter";
  EXPECT_EQ (cudlaGetLastError (s.dev), cudlaSuccess);
}

TEST (SwdlaInFlight, QueueLimitFailRefusesUntilATaskCompletes)
{
  Session a, b; /* opened before any task runs (opening synchronises copies) */
  ASSERT_EQ (a.open ("colours"), "");
  ASSERT_EQ (b.open ("colours"), "");
  Stream sa, sb;
  warm_up (a, sa);
  warm_up (b, sb);
  Env limit ("SWDLA_QUEUE_LIMIT", "2");
  Env full ("SWDLA_QUEUE_FULL", "fail");
  Env service ("SWDLA_SERVICE_US", "300000"); /* long enough that nothing completes unawaited */
  Event first;
  ASSERT_EQ (a.submit (sa), cudlaSuccess) << refusal ();
  ASSERT_EQ (cudaEventRecord (first, sa), cudaSuccess);
  ASSERT_EQ (a.submit (sa), cudlaSuccess) << refusal ();
  const int64_t queued = swdlaCoreTaskCount (0);
  cudlaStatus st = a.submit (sa);
  EXPECT_EQ (st, cudlaErrorOutOfResources) << describe (st);
  EXPECT_NE (refusal ().find ("cudlaSubmitTask: queue limit reached"), std::string::npos) << refusal ();
  EXPECT_NE (refusal ().find ("SWDLA_QUEUE_LIMIT=2"), std::string::npos) << refusal ();
  EXPECT_EQ (swdlaCoreTaskCount (0), queued) << "the refused submit queued a task";
  ASSERT_EQ (cudaEventQuery (first), cudaErrorNotReady)
      << "the first task completed before the refusal was checked: the test proves nothing";
  /* the limit is per handle: another handle (same core) still has room */
  st = b.submit (sb);
  EXPECT_EQ (st, cudlaSuccess) << describe (st);
  /* once the oldest task has completed, one more is accepted, and then the queue is full again */
  ASSERT_EQ (cudaEventSynchronize (first), cudaSuccess);
  st = a.submit (sa);
  EXPECT_EQ (st, cudlaSuccess) << describe (st);
  st = a.submit (sa);
  EXPECT_EQ (st, cudlaErrorOutOfResources) << describe (st);
  ASSERT_EQ (cudaStreamSynchronize (sa), cudaSuccess);
  ASSERT_EQ (cudaStreamSynchronize (sb), cudaSuccess);
  EXPECT_EQ (cudlaGetLastError (a.dev), cudlaSuccess) << "a refused submit is no task error";
  st = a.submit (sa); /* all complete: room again */
  EXPECT_EQ (st, cudlaSuccess) << describe (st);
  ASSERT_EQ (cudaStreamSynchronize (sa), cudaSuccess);
}

TEST (SwdlaInFlight, MoreTasksInOneSubmitThanTheLimitAreRefused)
{
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  Stream stream;
  Env limit ("SWDLA_QUEUE_LIMIT", "2");
  Env full ("SWDLA_QUEUE_FULL", "block"); /* even blocking could never make room */
  const cudlaTask tasks[3] = {s.task (), s.task (), s.task ()};
  cudlaStatus st = cudlaSubmitTask (s.dev, tasks, 3, stream, 0);
  EXPECT_EQ (st, cudlaErrorOutOfResources) << describe (st);
  EXPECT_NE (refusal ().find ("exceed the queue limit"), std::string::npos) << refusal ();
  st = cudlaSubmitTask (s.dev, tasks, 2, stream, 0);
  EXPECT_EQ (st, cudlaSuccess) << describe (st);
  ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
}

TEST (SwdlaInFlight, QueueLimitBlockWaitsForTheOldestTaskOnlyAndHoldsNoLock)
{
  Session a, b;
  ASSERT_EQ (a.open ("colours", 0), "");
  ASSERT_EQ (b.open ("colours", 1), "");
  Stream sa, sb;
  warm_up (a, sa);
  warm_up (b, sb);
  Env limit ("SWDLA_QUEUE_LIMIT", "2");
  Env full ("SWDLA_QUEUE_FULL", "block");
  Env service ("SWDLA_SERVICE_US", "300000");
  Event first, second;
  ASSERT_EQ (a.submit (sa), cudlaSuccess) << refusal ();
  ASSERT_EQ (cudaEventRecord (first, sa), cudaSuccess);
  ASSERT_EQ (a.submit (sa), cudlaSuccess) << refusal ();
  ASSERT_EQ (cudaEventRecord (second, sa), cudaSuccess);
  ASSERT_EQ (cudaEventQuery (first), cudaErrorNotReady) << "the test needs the first task in flight";

  std::atomic<bool> returned{false};
  cudlaStatus third = cudlaErrorUnknown;
  std::thread submitter ([&] {
    third = a.submit (sa); /* the (N+1)th: waits for a slot */
    returned = true;
  });
  /* until the submitter is waiting inside swdla (or, wrongly, has returned) */
  for (int i = 0; i < 10000 && swdlaQueueWaiters () == 0 && !returned; ++i)
    std::this_thread::sleep_for (std::chrono::microseconds (100));
  EXPECT_EQ (swdlaQueueWaiters (), 1);
  EXPECT_FALSE (returned.load ()) << "the (N+1)th submit returned with the queue full";

  /* While it waits, another handle on another core submits: swdla's lock is free. Had this submit
   * waited for the blocked one, the first task would have completed by now. */
  const cudlaStatus other = b.submit (sb);
  EXPECT_EQ (other, cudlaSuccess) << describe (other);
  EXPECT_EQ (cudaEventQuery (first), cudaErrorNotReady)
      << "another handle's submit waited for the blocked submit (global lock held while blocking?)";
  EXPECT_FALSE (returned.load ());

  submitter.join ();
  EXPECT_EQ (third, cudlaSuccess) << swdla::status_text (third);
  /* It returned after the oldest task completed, and not later than the next one did. (`first` is
   * recorded right behind the oldest task's own completion event, with nothing in between, and the
   * submit still queues its task after seeing that event complete.) */
  EXPECT_EQ (cudaEventQuery (first), cudaSuccess)
      << "the blocked submit returned before the oldest task completed";
  EXPECT_EQ (cudaEventQuery (second), cudaErrorNotReady)
      << "the blocked submit waited for more than the oldest task";
  EXPECT_EQ (swdlaQueueWaiters (), 0);
  ASSERT_EQ (cudaStreamSynchronize (sa), cudaSuccess);
  ASSERT_EQ (cudaStreamSynchronize (sb), cudaSuccess);
  EXPECT_EQ (cudlaGetLastError (a.dev), cudlaSuccess);
}

TEST (SwdlaInFlight, QueueLimitBlockOnOneThreadQueuesOnceAfterTheWait)
{
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  Stream stream;
  warm_up (s, stream);
  Env limit ("SWDLA_QUEUE_LIMIT", "1");
  Env full ("SWDLA_QUEUE_FULL", "block");
  Env service ("SWDLA_SERVICE_US", "50000");
  Event first;
  ASSERT_EQ (s.submit (stream), cudlaSuccess) << refusal ();
  ASSERT_EQ (cudaEventRecord (first, stream), cudaSuccess);
  ASSERT_EQ (cudaEventQuery (first), cudaErrorNotReady) << "the test needs the first task in flight";
  const int64_t before = swdlaCoreTaskCount (0);
  const uint64_t counted0 = swdlaSubmitCpuNs (), cpu0 = swdla::thread_cpu_ns ();
  const cudlaStatus st = s.submit (stream); /* waits on this thread for the first task */
  const uint64_t spent = swdla::thread_cpu_ns () - cpu0, counted = swdlaSubmitCpuNs () - counted0;
  EXPECT_EQ (st, cudlaSuccess) << describe (st);
  EXPECT_LT (counted, spent) << "swdlaSubmitCpuNs counted the wait for a slot";
  EXPECT_EQ (cudaEventQuery (first), cudaSuccess) << "returned before the oldest task completed";
  EXPECT_EQ (swdlaCoreTaskCount (0), before + 1) << "queued exactly once after the wait";
  ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
}

TEST (SwdlaInFlight, SubmitBurnsTheConfiguredCpu)
{
  Session s;
  ASSERT_EQ (s.open ("colours", 1), "");
  Stream stream;
  warm_up (s, stream);
  constexpr uint64_t kBurnUs = 2000;
  Env burn ("SWDLA_SUBMIT_CPU_US", std::to_string (kBurnUs));
  constexpr int kSubmits = 5;
  const uint64_t counted0 = swdlaSubmitCpuNs ();
  const uint64_t core0 = swdlaSubmitCpuNsCore (0), core1 = swdlaSubmitCpuNsCore (1);
  for (int i = 0; i < kSubmits; ++i) {
    const uint64_t t0 = swdla::thread_cpu_ns ();
    const cudlaStatus st = s.submit (stream);
    const uint64_t spent = swdla::thread_cpu_ns () - t0;
    ASSERT_EQ (st, cudlaSuccess) << describe (st);
    EXPECT_GE (spent, kBurnUs * 1000) << "submit " << i + 1 << " burnt less than SWDLA_SUBMIT_CPU_US";
  }
  const uint64_t counted = swdlaSubmitCpuNs () - counted0;
  std::printf ("%d submits with SWDLA_SUBMIT_CPU_US=%llu: %.3f ms counted by swdlaSubmitCpuNs\n", kSubmits,
               static_cast<unsigned long long> (kBurnUs), double (counted) / 1e6);
  EXPECT_GE (counted, kSubmits * kBurnUs * 1000) << "swdlaSubmitCpuNs leaves the burn out";
  EXPECT_GE (swdlaSubmitCpuNsCore (1) - core1, kSubmits * kBurnUs * 1000)
      << "swdlaSubmitCpuNsCore leaves the burn of the handle's core out";
  EXPECT_EQ (swdlaSubmitCpuNsCore (0), core0) << "a core-1 handle's submits were counted on core 0";
  ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
}

}  // namespace
