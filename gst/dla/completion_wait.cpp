#include "completion_wait.h"

#include <cuda_runtime_api.h>
#include <sys/prctl.h>

#include <algorithm>
#include <thread>

namespace dla {

namespace {
/* A bogus duration must never hold a frame (or stop) for long. */
constexpr std::chrono::microseconds kMaxSleep {100000};

/* The calling thread's timer slack, for one scope (it belongs to the streaming thread, not us). */
class ScopedTimerSlack {
 public:
  explicit ScopedTimerSlack (unsigned long ns) : old_ (prctl (PR_GET_TIMERSLACK, 0, 0, 0, 0))
  {
    if (old_ >= 0)
      prctl (PR_SET_TIMERSLACK, ns, 0, 0, 0);
  }
  ~ScopedTimerSlack ()
  {
    if (old_ >= 0)
      prctl (PR_SET_TIMERSLACK, static_cast<unsigned long> (old_), 0, 0, 0);
  }
  ScopedTimerSlack (const ScopedTimerSlack &) = delete;
  ScopedTimerSlack &operator= (const ScopedTimerSlack &) = delete;

 private:
  const int old_;
};
}  // namespace

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

int CompletionWait::wait (void *event)
{
  using namespace std::chrono;
  const auto ev = static_cast<cudaEvent_t> (event);
  const nanoseconds expected = std::min<nanoseconds> (expected_.get (), kMaxSleep);
  const auto alarm = start_ + expected + offset_.get ();
  const bool sleep = expected > nanoseconds::zero () && alarm > steady_clock::now ();
  if (sleep) {
    const ScopedTimerSlack slack (1000);
    std::this_thread::sleep_until (alarm);
  }
  cudaError_t err = cudaEventQuery (ev);
  if (sleep)
    offset_.woke (err == cudaErrorNotReady);
  const auto poll_end = std::max (alarm, steady_clock::now ()) + kLate;
  while (err == cudaErrorNotReady && steady_clock::now () < poll_end) {
    std::this_thread::yield ();
    err = cudaEventQuery (ev);
  }
  /* Later than expected (a slower task, a stalled DLA): naps that double up to kMaxNap. */
  for (auto nap = kFirstNap; err == cudaErrorNotReady; nap = std::min (2 * nap, kMaxNap)) {
    std::this_thread::sleep_for (nap);
    err = cudaEventQuery (ev);
  }
  end_ = steady_clock::now ();
  return int (err);
}

}  // namespace dla
