/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer benchmarks: the calling thread's CPU clock (no GStreamer, so CUDA sources take it too). */
#pragma once

#include <time.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace bench {

/* CPU seconds of the calling thread (in a sink pad probe: the streaming thread). */
inline double thread_cpu_seconds ()
{
  timespec ts{};
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return double (ts.tv_sec) + 1e-9 * double (ts.tv_nsec);
}

/* The median of `v` (0 when empty). */
inline double median (std::vector<double> v)
{
  std::sort (v.begin (), v.end ());
  return v.empty () ? 0 : v[v.size () / 2];
}

/* Median over 9 rounds of `calls` calls of `step`: the calling thread's CPU microseconds per call. */
template <typename Step>
double median_us_per_call (int calls, Step &&step)
{
  std::vector<double> rounds;
  for (int r = 0; r < 9; ++r) {
    const double t0 = thread_cpu_seconds ();
    for (int i = 0; i < calls; ++i)
      step ();
    rounds.push_back (1e6 * (thread_cpu_seconds () - t0) / calls);
  }
  return median (std::move (rounds));
}

}  // namespace bench

#include <dirent.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

namespace bench {

/* CPU seconds of every live thread of this process, summed by thread name (GStreamer names its task
 * threads after the pad, e.g. "infer:src"; CUDA's are "cuda-EvtHandlr", "cuda0000..."), from
 * /proc/self/task/N/schedstat (nanoseconds on the CPU). A thread that ended in between is lost. */
inline std::map<std::string, double> cpu_seconds_by_thread ()
{
  std::map<std::string, double> out;
  DIR *dir = opendir ("/proc/self/task");
  if (!dir)
    return out;
  while (const dirent *e = readdir (dir)) {
    if (e->d_name[0] == '.')
      continue;
    const std::string base = std::string ("/proc/self/task/") + e->d_name;
    char name[64] = "", line[128] = "";
    if (FILE *f = std::fopen ((base + "/comm").c_str (), "r")) {
      if (std::fgets (name, sizeof name, f))
        name[std::strcspn (name, "\n")] = '\0';
      std::fclose (f);
    }
    unsigned long long ns = 0;
    if (FILE *f = std::fopen ((base + "/schedstat").c_str (), "r")) {
      if (std::fgets (line, sizeof line, f))
        std::sscanf (line, "%llu", &ns);
      std::fclose (f);
    }
    out[name] += 1e-9 * double (ns);
  }
  closedir (dir);
  return out;
}

}  // namespace bench
