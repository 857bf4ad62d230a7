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

void WakeMargin::overshot (std::chrono::nanoseconds late)
{
  using namespace std::chrono;
  /* A wake-up later than kMax is a descheduled thread, not the timer: it counts as any late one. */
  estimate_ = std::clamp (late > estimate_ ? estimate_ + kUp : estimate_ - kDown, nanoseconds::zero (),
      nanoseconds (kMax));
  margin_ = std::clamp (ceil<microseconds> (estimate_) + kGuard, kMin, kMax);
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
  const auto end = start_ + std::min<nanoseconds> (expected_.get (), kMaxSleep);
  const auto wake = end - margin_.get ();
  if (wake > steady_clock::now ()) {
    const ScopedTimerSlack slack (1000);
    std::this_thread::sleep_until (wake);
    margin_.overshot (steady_clock::now () - wake);
  }
  const auto poll_end = std::max (end, steady_clock::now ()) + kLate;
  cudaError_t err;
  while ((err = cudaEventQuery (ev)) == cudaErrorNotReady && steady_clock::now () < poll_end)
    std::this_thread::yield ();
  /* Later than expected (a slower task, a stalled DLA): naps that double up to kMaxNap. */
  for (auto nap = kFirstNap; err == cudaErrorNotReady; nap = std::min (2 * nap, kMaxNap)) {
    std::this_thread::sleep_for (nap);
    err = cudaEventQuery (ev);
  }
  end_ = steady_clock::now ();
  return int (err);
}

}  // namespace dla
