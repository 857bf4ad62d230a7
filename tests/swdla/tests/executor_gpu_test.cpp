/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla on the GPU: the CUDA executor equals the CPU executor for every generated model, every
 * output of the graph models included (a task's
 * first run is captured into a graph, the next ones replay it; SWDLA_GRAPHS=0 launches them one by
 * one), more output buffers than it keeps
 * graphs for, the nine-step flow classifies, kernel -> task -> kernel needs no host sync, and two
 * DLA cores work at once while one core runs one task at a time. */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "gpu_helpers.h"
#include "user_kernels.h"

namespace {

using swdla_test::Clock;
using swdla_test::Env;
using swdla_test::ms_since;
using swdla_test::Session;
using swdla_test::Stream;

TEST (SwdlaExecutor, IdentifiesItself)
{
  EXPECT_STREQ (swdlaBackendName (), "swdla");
  EXPECT_EQ (swdlaExternalDeviceError (), 0);
}

class EveryModel : public testing::TestWithParam<const char *> {};

TEST_P (EveryModel, CudaExecutorEqualsCpuExecutor)
{
  Session s;
  const std::string err = s.open (GetParam ());
  ASSERT_EQ (err, "") << GetParam ();
  Stream stream;
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    /* The last without the graph cache (SWDLA_GRAPHS=0): the kernels launched one by one. */
    std::unique_ptr<Env> plain (seed == 4 ? new Env ("SWDLA_GRAPHS", "0") : nullptr);
    EXPECT_EQ (swdla_test::task_equals_cpu (s, stream, seed), "") << GetParam () << " seed " << seed;
  }
  EXPECT_EQ (s.close (), cudlaSuccess) << swdlaLastRefusal ();
}

INSTANTIATE_TEST_SUITE_P (
    Generated, EveryModel,
    testing::Values ("colours", "colours-fp16-dla_linear", "colours-fp16-dla_hwc4", "colours-int8-chw32",
                     "colours-int8-dla_linear", "colours-int8-dla_hwc4", "colours-out-fp16-dla_linear",
                     "colours-out-int8-chw32", "colours-out-int8-dla_linear", "colours-batch2",
                     "colours-softmax", "quadrants", "readout", "readout-w225-fp16-chw16",
                     "readout-w225-fp16-dla_linear", "readout-w225-fp16-dla_hwc4", "readout-w225-int8-chw32",
                     "readout-w225-int8-dla_linear", "readout-w225-int8-dla_hwc4",
                     "readout-out-fp16-dla_linear", "readout-out-int8-chw32", "readout-grey",
                     "readout-grey-fp16-dla_hwc4", "random-cnn", "random-cnn-int8", "random-cnn-softmax",
                     "broken-wrong-type", "broken-two-inputs", "graph-residual", "graph-yolo",
                     "graph-multi-output"),
    [] (const testing::TestParamInfo<const char *> &i) {
      std::string s = i.param;
      for (char &c : s)
        if (c == '-')
          c = '_';
      return s;
    });

/* Twelve output buffers, more than the executor keeps graphs for (8), twice round: each task's
 * output must be the CPU executor's for that task's input, whether its graph is new, replayed or
 * made again after being dropped. */
TEST (SwdlaExecutor, MoreOutputBuffersThanGraphs)
{
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  constexpr int kBuffers = 12;
  std::vector<void *> cuda (kBuffers, nullptr);
  std::vector<uint64_t *> dla (kBuffers, nullptr);
  const size_t size = s.outputs[0].size;
  for (int b = 0; b < kBuffers; ++b) {
    ASSERT_EQ (cudaMalloc (&cuda[size_t (b)], size), cudaSuccess);
    ASSERT_EQ (
        cudlaMemRegister (s.dev, static_cast<const uint64_t *> (cuda[size_t (b)]), size, &dla[size_t (b)], 0),
        cudlaSuccess)
        << swdlaLastRefusal ();
  }
  Stream stream;
  for (int round = 0; round < 2; ++round) {
    for (int b = 0; b < kBuffers; ++b) {
      const std::vector<uint8_t> in =
          swdla_test::random_input (s.model.inputs[0], uint32_t (100 * round + b + 1));
      ASSERT_TRUE (s.write_input (0, in));
      cudlaTask t = s.task ();
      uint64_t *const out[1] = {dla[size_t (b)]};
      t.outputTensor = out;
      ASSERT_EQ (cudlaSubmitTask (s.dev, &t, 1, stream, 0), cudlaSuccess) << swdlaLastRefusal ();
      ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
      std::vector<uint8_t> got (size);
      ASSERT_EQ (cudaMemcpy (got.data (), cuda[size_t (b)], size, cudaMemcpyDeviceToHost), cudaSuccess);
      EXPECT_EQ (
          swdla_test::compare_outputs (s.model.outputs[0], got, swdla_test::cpu_outputs (s.model, {in})[0]),
          "")
          << "round " << round << ", buffer " << b;
    }
  }
  for (int b = 0; b < kBuffers; ++b) {
    EXPECT_EQ (cudlaMemUnregister (s.dev, dla[size_t (b)]), cudlaSuccess);
    cudaFree (cuda[size_t (b)]);
  }
  EXPECT_EQ (s.close (), cudlaSuccess) << swdlaLastRefusal ();
}

const float kColours[8][3] = {{0, 0, 0}, {1, 1, 1}, {1, 0, 0}, {0, 1, 0},
                              {0, 0, 1}, {1, 1, 0}, {0, 1, 1}, {1, 0, 1}};

/* Kernel writes the input, the task classifies, a kernel reads the logits: eight times on one
 * stream, one synchronisation at the end. Each task takes 5 ms (SWDLA_SERVICE_US), so work that
 * ran out of order would read stale tensors. */
TEST (SwdlaExecutor, KernelTaskKernelWithoutHostSync)
{
  Env service ("SWDLA_SERVICE_US", "5000");
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  Stream stream;
  int *results = nullptr;
  ASSERT_EQ (cudaMalloc (reinterpret_cast<void **> (&results), 8 * sizeof (int)), cudaSuccess);
  ASSERT_EQ (cudaMemset (results, 0xff, 8 * sizeof (int)), cudaSuccess);
  /* Warm-up (first launches load kernels), outside the timing. */
  ASSERT_EQ (swdla_test::fill_solid_chw16 (stream, s.inputs[0].cuda, 224, 224, 0, 0, 0), cudaSuccess);
  ASSERT_EQ (s.submit (stream), cudlaSuccess);
  ASSERT_EQ (swdla_test::argmax_chw16 (stream, s.outputs[0].cuda, 8, results), cudaSuccess);
  ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
  const auto t0 = Clock::now ();
  for (int k = 0; k < 8; ++k) {
    ASSERT_EQ (swdla_test::fill_solid_chw16 (stream, s.inputs[0].cuda, 224, 224, kColours[k][0],
                                             kColours[k][1], kColours[k][2]),
               cudaSuccess);
    const cudlaStatus st = s.submit (stream);
    ASSERT_EQ (st, cudlaSuccess) << swdla_test::describe (st);
    ASSERT_EQ (swdla_test::argmax_chw16 (stream, s.outputs[0].cuda, 8, results + k), cudaSuccess);
  }
  /* 8 x 5 ms of service queued: the host got control back while the tasks still run (an order
   * shown by the stream, not a host-time bound that a busy machine could break). */
  EXPECT_EQ (cudaStreamQuery (stream), cudaErrorNotReady) << "queueing 8 tasks waited for them";
  ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
  const double total_ms = ms_since (t0);
  int host[8];
  ASSERT_EQ (cudaMemcpy (host, results, sizeof host, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int k = 0; k < 8; ++k)
    EXPECT_EQ (host[k], k) << "colour " << k << " classified as " << host[k];
  EXPECT_GE (total_ms, 8 * 5.0 * 0.9) << "service time not emulated on the stream";
  cudaFree (results);
}

/* Two handles on two cores, two streams, 20 ms per task: the cores overlap (about 5 x 20 ms in
 * all), while two handles on one core take turns (about 10 x 20 ms). Returns the GPU's span of the
 * ten tasks, from events (both streams start after one event on stream a), so host load cannot
 * move it. */
double run_pair (int core_a, int core_b)
{
  Session a, b;
  EXPECT_EQ (a.open ("colours", core_a), "");
  EXPECT_EQ (b.open ("colours", core_b), "");
  Stream sa, sb;
  /* Warm-up outside the timing. */
  EXPECT_EQ (a.submit (sa), cudlaSuccess);
  EXPECT_EQ (b.submit (sb), cudlaSuccess);
  cudaStreamSynchronize (sa);
  cudaStreamSynchronize (sb);
  cudaEvent_t start, end_a, end_b;
  for (cudaEvent_t *e : {&start, &end_a, &end_b})
    EXPECT_EQ (cudaEventCreate (e), cudaSuccess);
  Env service ("SWDLA_SERVICE_US", "20000");
  EXPECT_EQ (cudaEventRecord (start, sa), cudaSuccess);
  EXPECT_EQ (cudaStreamWaitEvent (sb, start, 0), cudaSuccess);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ (a.submit (sa), cudlaSuccess);
    EXPECT_EQ (b.submit (sb), cudlaSuccess);
  }
  EXPECT_EQ (cudaStreamQuery (sb), cudaErrorNotReady) << "submitting waited for the tasks";
  EXPECT_EQ (cudaEventRecord (end_a, sa), cudaSuccess);
  EXPECT_EQ (cudaEventRecord (end_b, sb), cudaSuccess);
  EXPECT_EQ (cudaStreamSynchronize (sa), cudaSuccess);
  EXPECT_EQ (cudaStreamSynchronize (sb), cudaSuccess);
  float ms_a = 0.f, ms_b = 0.f;
  EXPECT_EQ (cudaEventElapsedTime (&ms_a, start, end_a), cudaSuccess);
  EXPECT_EQ (cudaEventElapsedTime (&ms_b, start, end_b), cudaSuccess);
  for (cudaEvent_t e : {start, end_a, end_b})
    cudaEventDestroy (e);
  return std::max (ms_a, ms_b);
}

TEST (SwdlaExecutor, TwoCoresBusyAtOnceOnTwoStreams)
{
  const double two_cores = run_pair (0, 1);
  const double one_core = run_pair (0, 0);
  std::printf ("10 tasks of 20 ms (GPU time): %.1f ms on two cores, %.1f ms on one core\n", two_cores,
               one_core);
  EXPECT_GE (two_cores, 95.0);
  EXPECT_GE (one_core, 195.0) << "one core ran two tasks at once";
  /* Overlap shown against the same machine's one-core run, not an absolute bound. */
  EXPECT_LT (two_cores, 0.75 * one_core) << "the two cores did not overlap";
}

/* The nine steps with a real picture: red classified as red, from host-written input. */
TEST (SwdlaExecutor, NineStepsClassifyRed)
{
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  ASSERT_EQ (s.in_desc.size (), 1u);
  EXPECT_EQ (s.in_desc[0].size, 1605632u);
  const float red[3] = {0.9f, 0.1f, 0.05f};
  std::vector<float> img (3 * 224 * 224);
  for (size_t i = 0; i < img.size (); ++i)
    img[i] = red[i / (224 * 224)];
  std::vector<uint8_t> bytes (s.inputs[0].size);
  swdla::pack_tensor (s.model.inputs[0], img.data (), bytes.data ());
  ASSERT_TRUE (s.write_input (0, bytes));
  Stream stream;
  ASSERT_EQ (s.submit (stream), cudlaSuccess);
  cudaEvent_t done;
  ASSERT_EQ (cudaEventCreateWithFlags (&done, cudaEventBlockingSync | cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ (cudaEventRecord (done, stream), cudaSuccess);
  ASSERT_EQ (cudaEventSynchronize (done), cudaSuccess);
  cudaEventDestroy (done);
  const auto logits = swdla::unpack_tensor (s.model.outputs[0], s.read_output ().data ());
  int best = 0;
  for (int c = 1; c < 8; ++c)
    if (logits[size_t (c)] > logits[size_t (best)])
      best = c;
  EXPECT_EQ (best, 2) << "red";
}

}  // namespace
