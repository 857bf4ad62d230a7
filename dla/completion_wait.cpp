/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/completion_wait.h"

#include <cuda_runtime_api.h>
#include <sys/prctl.h>

#include <algorithm>
#include <thread>

namespace dla {

namespace {
/* A bogus duration must never hold a frame (or stop) for long. */
constexpr std::chrono::microseconds kMaxSleep{100000};

/* Linux's default timer slack (50 us) would overshoot short tasks, so the thread sleeps with 1 us.
 * It is set once per thread and kept: three prctl calls around every sleep cost a frame about 1 us of
 * CPU on the H200 host, and the streaming thread's other timed waits only become more punctual. */
void tighten_timer_slack ()
{
  thread_local bool tightened = false;
  if (!tightened) {
    prctl (PR_SET_TIMERSLACK, CompletionWait::kTimerSlackNs, 0, 0, 0);
    tightened = true;
  }
}
}  // namespace

TimerSlackScope::TimerSlackScope () : previous_ (prctl (PR_GET_TIMERSLACK, 0, 0, 0, 0))
{
  if (previous_ >= 0 && (unsigned long)previous_ != CompletionWait::kTimerSlackNs)
    prctl (PR_SET_TIMERSLACK, CompletionWait::kTimerSlackNs, 0, 0, 0);
}

TimerSlackScope::~TimerSlackScope ()
{
  if (previous_ >= 0 && (unsigned long)previous_ != CompletionWait::kTimerSlackNs)
    prctl (PR_SET_TIMERSLACK, (unsigned long)previous_, 0, 0, 0);
}

void WakeOffset::woke (bool early)
{
  offset_ = std::clamp<std::chrono::nanoseconds> (early ? offset_ + kStep : offset_ - kStep, kMin, kMax);
}

void ExpectedDuration::measured (std::chrono::nanoseconds took)
{
  expected_ = std::min (took, last_);
  last_ = took;
}

void CompletionWait::learn (float device_ms)
{
  if (device_ms > 0.f)
    expected_.measured (std::chrono::nanoseconds (static_cast<long long> (double (device_ms) * 1e6)));
}

int CompletionWait::wait (void *event, std::chrono::steady_clock::time_point deadline)
{
  const int err = wait_for_event (event, wake_end (), deadline, &offset_);
  end_ = std::chrono::steady_clock::now ();
  return err;
}

std::chrono::steady_clock::time_point CompletionWait::wake_end () const
{
  const auto expected = std::min<std::chrono::nanoseconds> (expected_.get (), kMaxSleep);
  return expected > std::chrono::nanoseconds::zero () ? begin_ + expected : kUnknownEnd;
}

int wait_for_event (void *event, std::chrono::steady_clock::time_point expected_end,
                    std::chrono::steady_clock::time_point deadline, WakeOffset *offset)
{
  using namespace std::chrono;
  const auto ev = static_cast<cudaEvent_t> (event);
  const bool known = expected_end != kUnknownEnd;
  const auto alarm = known ? expected_end + offset->get () : steady_clock::now ();
  const bool sleep = known && alarm > steady_clock::now ();
  if (sleep) {
    tighten_timer_slack ();
    std::this_thread::sleep_until (std::min (alarm, deadline));
  }
  cudaError_t err = cudaEventQuery (ev);
  /* A wait that began past its alarm and finds the task running also says the alarm is early (an
   * offset that fell below the submit time would otherwise never learn again); finding it done says
   * nothing then: the task may have ended after the alarm. */
  if (sleep || (known && err == cudaErrorNotReady))
    offset->woke (err == cudaErrorNotReady);
  const auto poll_end = std::min (std::max (alarm, steady_clock::now ()) + CompletionWait::kLate, deadline);
  while (err == cudaErrorNotReady && steady_clock::now () < poll_end) {
    std::this_thread::yield ();
    err = cudaEventQuery (ev);
  }
  /* Later than expected (a slower task, a stalled DLA): naps that double up to kMaxNap. */
  for (auto nap = CompletionWait::kFirstNap; err == cudaErrorNotReady && steady_clock::now () < deadline;
       nap = std::min (2 * nap, CompletionWait::kMaxNap)) {
    std::this_thread::sleep_until (std::min (steady_clock::now () + nap, deadline));
    err = cudaEventQuery (ev);
  }
  return int (err);
}

}  // namespace dla
