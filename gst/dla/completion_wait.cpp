#include "completion_wait.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <thread>

namespace dla {

namespace {
/* A bogus duration must never hold a frame (or stop) for long. */
constexpr std::chrono::microseconds kMaxSleep {100000};
}  // namespace

void CompletionWait::learn (float device_ms)
{
  if (device_ms > 0.f)
    expected_ = std::chrono::microseconds (static_cast<long long> (double (device_ms) * 1000.0));
}

int CompletionWait::wait (void *event) const
{
  using namespace std::chrono;
  const auto ev = static_cast<cudaEvent_t> (event);
  if (expected_ > kPollWindow)
    std::this_thread::sleep_until (start_ + std::min (expected_ - kPollWindow, kMaxSleep));
  const auto poll_end = steady_clock::now () + kPollWindow;
  cudaError_t err;
  while ((err = cudaEventQuery (ev)) == cudaErrorNotReady && steady_clock::now () < poll_end)
    std::this_thread::yield ();
  if (err == cudaErrorNotReady)
    err = cudaEventSynchronize (ev);
  return int (err);
}

}  // namespace dla
