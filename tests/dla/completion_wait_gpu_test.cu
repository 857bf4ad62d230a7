/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The completion wait on real CUDA work: what each kind of wait teaches the alarm (WakeOffset). A
 * wait that starts after its alarm has passed and finds the task running learns that the alarm is
 * early, so an offset that fell below the submit time recovers; finding it done teaches nothing. */
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "dla/completion_wait.h"
#include "dla/cuda_resources.h"

namespace {

using dla::CompletionWait;
using dla::WakeOffset;
using std::chrono::nanoseconds;

/* Runs for `ns` of the GPU's global timer. */
__global__ void spin (unsigned long long ns)
{
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  while (t - t0 < ns);
}

class CompletionWaitGpu : public ::testing::Test {
 protected:
  void SetUp () override
  {
    ASSERT_TRUE (dla::CudaStream::Create (&stream_).ok ());
    ASSERT_TRUE (dla::CudaEvent::Create (false, &done_).ok ());
    /* The first launch loads the kernel: not inside a timed wait. */
    spin<<<1, 1, 0, stream ()>>> (0);
    ASSERT_EQ (cudaStreamSynchronize (stream ()), cudaSuccess);
  }
  /* A wait that expects tasks of `expected_ms`, for a task of `task_ns` queued now. */
  void queue (CompletionWait *w, float expected_ms, unsigned long long task_ns)
  {
    w->learn (expected_ms);
    w->learn (expected_ms);
    w->started ();
    spin<<<1, 1, 0, stream ()>>> (task_ns);
    ASSERT_EQ (cudaEventRecord (done (), stream ()), cudaSuccess);
  }
  cudaStream_t stream () const { return static_cast<cudaStream_t> (stream_.get ()); }
  cudaEvent_t done () const { return static_cast<cudaEvent_t> (done_.get ()); }

 private:
  dla::CudaStream stream_;
  dla::CudaEvent done_;
};

TEST_F (CompletionWaitGpu, AWaitPastItsAlarmThatFindsTheTaskRunningLearnsTheAlarmIsEarly)
{
  CompletionWait w;
  queue (&w, 0.001f, 20000000ull);                               /* expects 1 us, takes 20 ms */
  std::this_thread::sleep_for (std::chrono::microseconds (200)); /* the alarm passes before the wait */
  EXPECT_EQ (w.wait (done ()), int (cudaSuccess));
  EXPECT_EQ (w.alarm_offset (), WakeOffset::kStep);
  EXPECT_GE (w.elapsed_ms (), 19.f) << "the wait must last until the task is done";
}

TEST_F (CompletionWaitGpu, AWaitPastItsAlarmThatFindsTheTaskDoneLearnsNothing)
{
  CompletionWait w;
  queue (&w, 0.001f, 10000ull);
  ASSERT_EQ (cudaStreamSynchronize (stream ()), cudaSuccess);
  EXPECT_EQ (w.wait (done ()), int (cudaSuccess));
  EXPECT_EQ (w.alarm_offset (), nanoseconds::zero ()) << "the task may have ended after the alarm";
}

TEST_F (CompletionWaitGpu, AWakeUpAfterTheTaskEndedLearnsTheAlarmIsLate)
{
  CompletionWait w;
  /* Expects 50 ms, takes 10 us: it sleeps past the end. Over three orders of magnitude apart, so a
   * contended GPU that stretches the task cannot make it end after the alarm. */
  queue (&w, 50.f, 10000ull);
  EXPECT_EQ (w.wait (done ()), int (cudaSuccess));
  EXPECT_EQ (w.alarm_offset (), -WakeOffset::kStep);
  EXPECT_GE (w.elapsed_ms (), 49.f) << "the wait must sleep until its alarm";
}

}  // namespace
