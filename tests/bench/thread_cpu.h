/* gst-dlainfer benchmarks: the calling thread's CPU clock (no GStreamer, so CUDA sources take it too). */
#pragma once

#include <time.h>

namespace bench {

/* CPU seconds of the calling thread (in a sink pad probe: the streaming thread). */
inline double thread_cpu_seconds ()
{
  timespec ts{};
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return double (ts.tv_sec) + 1e-9 * double (ts.tv_nsec);
}

}  // namespace bench
