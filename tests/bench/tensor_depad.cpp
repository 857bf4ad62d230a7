/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark: the host reference of tensor-meta per frame (docs/tensors.md 4): de-padding a padded
 * host copy of each output into a new buffer and attaching the tensor meta, for a 1000-class FP16
 * chw16 vector and a 2048 x 7 x 7 map (FP16 chw16, INT8 chw32), FLOAT32 and FLOAT16. CPU only. The
 * element de-pads on the GPU when it can (tensor-depad-gpu measures that path); this is what the
 * host path (its fallback, and the reference) costs. Prints one line per case. */
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "gst/outputs/tensor_output.h"
#include "tensor_cases.h"
#include "thread_cpu.h"

namespace {

dla::TensorInfo output (tensor::Layout l, tensor::ElemType t, int64_t c, int64_t h, int64_t w)
{
  dla::TensorInfo info;
  info.name = "out";
  EXPECT_TRUE (tensor::make_view (l, t, 1, c, h, w, &info.view));
  return info;
}

/* Median of 9 rounds of `frames` attaches: host CPU microseconds per frame. */
double us_per_frame (dlainfer::TensorOutput &out, const std::vector<uint8_t> &data, int frames)
{
  std::vector<double> rounds;
  for (int r = 0; r < 9; ++r) {
    const double t0 = bench::thread_cpu_seconds ();
    for (int i = 0; i < frames; ++i) {
      GstBuffer *buf = gst_buffer_new ();
      out.attach_host (buf, {data.data ()});
      gst_buffer_unref (buf);
    }
    rounds.push_back (1e6 * (bench::thread_cpu_seconds () - t0) / frames);
  }
  std::sort (rounds.begin (), rounds.end ());
  return rounds[4];
}

TEST (TensorDepad, HostCpuPerFrame)
{
  for (const bench::TensorCase &k : bench::tensor_cases ()) {
    const dla::TensorInfo info = output (k.layout, k.type, k.c, k.hw, k.hw);
    std::vector<uint8_t> data (size_t (info.view.size), 0x11);
    dlainfer::Settings s;
    s.tensor_meta = true;
    s.tensor_fp16 = k.fp16;
    s.output_scale = 0.5f;
    dlainfer::TensorOutput out;
    out.prepare ({info}, s, k.classes, g_quark_from_string ("bench"));
    const double us = us_per_frame (out, data, k.classes ? 20000 : 500);
    std::printf ("tensor-depad: %-42s host CPU %8.2f us/frame%s\n", k.what, us,
                 k.classes ? (us <= 5.0 ? "  (target <= 5 us: met)" : "  (target <= 5 us: MISSED)") : "");
  }
}

}  // namespace
