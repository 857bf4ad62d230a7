/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-gate CMD ARGS...: runs a GPU-suite script only where a CUDA device is there, with the same
 * rule as the test programs' main (test_main.cpp): exit 77 (SKIP) when there is no driver or no
 * device, 1 when CUDA is broken (driver too old, devices hidden, another error) or when
 * DLAINFER_REQUIRE_GPU=1 asks for a GPU; otherwise CMD replaces this process. */
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "dla/primary_context.h"

int main (int argc, char **argv)
{
  if (argc < 2) {
    std::fprintf (stderr, "usage: %s COMMAND [ARGS...]\n", argv[0]);
    return 2;
  }
  const dla::CudaProbe p = dla::probe_cuda ();
  const char *required = std::getenv ("DLAINFER_REQUIRE_GPU");
  switch (dla::gpu_gate (p.state, required && std::strcmp (required, "1") == 0)) {
    case dla::GpuGate::kRun:
      break;
    case dla::GpuGate::kSkip:
      std::printf ("SKIP: this test needs a CUDA device: %s\n", p.why.c_str ());
      return 77;
    case dla::GpuGate::kFail:
      std::printf ("FAIL: this test needs a working CUDA device: %s\n", p.why.c_str ());
      return 1;
  }
  std::fflush (stdout);
  execvp (argv[1], argv + 1);
  std::fprintf (stderr, "gpu-gate: cannot run %s: %s\n", argv[1], std::strerror (errno));
  return 1;
}
