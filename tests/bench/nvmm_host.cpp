/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark: dlainfer's own host CPU per frame on NVMM input against CUDA-memory input (the NVMM
 * target: no more CPU per frame than the CUDA-memory path; docs/nvmm.md). 1080p NV12, swdla at a
 * 1 ms service so that both run at one pace. NVMM frames are the stand-in's block-linear surfaces
 * (EGL map, CUDA registration kept per surface, texture objects: docs/nvmm.md 7), made by
 * `cudadownload ! nvmmstandinconvert` in appsrc's thread. A queue before dlainfer gives its
 * streaming thread a name of its own (q:src); the element's CPU is that thread's and its src task's
 * (infer:src), less swdla's emulated submit. Three rounds, the two paths alternated. */
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bench_support.h"
#include "tests/nvmm/stand_in/nvmm_convert.h"

namespace {

constexpr int kRounds = 3;
constexpr guint64 kWarmup = 100, kFrames = 2000;

}  // namespace

using NvmmHost = bench::SwdlaBench;

TEST_F (NvmmHost, ElementCpuPerFrameAgainstCudaMemory)
{
  ASSERT_TRUE (nvmm_stand_in::register_convert ())
      << "the NVMM stand-in is missing: set DLAINFER_NVBUFSURFACE_LIBRARY (meson test sets it)";
  ASSERT_NO_FATAL_FAILURE (start ({{"SWDLA_SERVICE_US", "1000"}}));
  const bench::Frames &frames = rendered ();
  const std::string infer = "queue name=q max-size-buffers=4 ! " + bench::dlainfer ();
  const char *names[2] = {"CUDA memory", "NVMM block-linear"};
  const std::string paths[2] = {
      infer, "cudadownload ! nvmmstandinconvert pool-size=12 ! video/x-raw(memory:NVMM) ! " + infer};
  std::vector<double> cpu[2];
  for (int round = 0; round < kRounds; ++round)
    for (int k = 0; k < 2; ++k) {
      const bench::Result r = bench::run (frames, paths[k], kWarmup, kFrames);
      ASSERT_EQ (r.error, "") << names[k];
      EXPECT_EQ (r.with_meta, r.frames) << names[k];
      ASSERT_GT (r.thread_us ("q:src"), 0.0) << "no thread named q:src: the measure would miss the element";
      cpu[k].push_back (r.element_cpu_us ());
      std::printf (
          "round %d, %s: %.1f fps, element CPU %.1f us/frame (q:src %.1f, infer:src %.1f, swdla "
          "submit %.1f)\n",
          round + 1, names[k], r.fps (), cpu[k].back (), r.thread_us ("q:src"), r.thread_us ("infer:src"),
          r.swdla_cpu_us ());
    }
  bench::print_machine ();
  const double cuda = bench::median (cpu[0]), nvmm = bench::median (cpu[1]);
  std::printf ("\n| input | element CPU us/frame, median of %d | rounds |\n|---|--:|---|\n", kRounds);
  for (int k = 0; k < 2; ++k)
    std::printf ("| %s | %.1f | %s |\n", names[k], bench::median (cpu[k]),
                 bench::rounds_text (cpu[k]).c_str ());
  std::printf ("NVMM - CUDA memory: %+.1f us/frame (target <= 0: %s)\n", nvmm - cuda,
               nvmm <= cuda ? "MET" : "missed");
}
