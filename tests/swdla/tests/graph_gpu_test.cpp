/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla graphs on the GPU, through the real cuDLA entry points: the CUDA executor equals the CPU
 * executor for every layer kind (one small model each, written by the test), and a task's graph
 * replay follows every one of its inputs and outputs: a new buffer for a later output is written,
 * not the one of the graph captured before. */
#include <gtest/gtest.h>

#include "gpu_helpers.h"
#include "test_models.h"

namespace {

using swdla_test::Session;
using swdla_test::Stream;

struct KindCase {
  const char *what, *spec;
};
void PrintTo (const KindCase &k, std::ostream *os)
{
  *os << k.what;
}

class EveryKind : public testing::TestWithParam<KindCase> {};

TEST_P (EveryKind, CudaExecutorEqualsCpuExecutor)
{
  std::vector<uint8_t> bytes;
  swdla_test::model_from_spec (GetParam ().spec, &bytes);
  Session s;
  ASSERT_EQ (s.open_bytes (bytes), "") << GetParam ().what;
  Stream stream;
  for (uint32_t seed = 1; seed <= 2; ++seed) /* captured, then replayed */
    EXPECT_EQ (swdla_test::task_equals_cpu (s, stream, seed), "") << GetParam ().what << " seed " << seed;
  EXPECT_EQ (s.close (), cudlaSuccess) << swdlaLastRefusal ();
}

INSTANTIATE_TEST_SUITE_P (
    Kinds, EveryKind,
    testing::Values (
        KindCase{"conv_depthwise",
                 "input name=x n=2 c=6 h=9 w=7\nconv out=6 k=3 g=6 sy=2 sx=1 pt=2 pl=0 pb=1 "
                 "pr=2 init=random seed=5\noutput name=y\n"},
        KindCase{"conv_grouped_dilated",
                 "input name=x c=4 h=12 w=10\nconv out=6 kh=3 kw=2 g=2 dy=2 dx=3 pt=2 "
                 "pl=1 pb=0 pr=1 wtype=fp16 init=random seed=6\noutput name=y\n"},
        KindCase{"pools",
                 "input name=x n=2 c=3 h=9 w=8\nmaxpool name=mp in=x k=3 s=2 pt=2 pl=0 pb=1 pr=2\n"
                 "avgpool name=ap in=x kh=2 kw=3 sx=3 pt=0 pl=2 pb=1 pr=1\n"
                 "output name=a from=mp\noutput name=b from=ap\n"},
        KindCase{"activations",
                 "input name=x c=3 h=4 w=5\nleaky name=lk in=x alpha=0.2\nsigmoid name=sg in=x\n"
                 "tanh name=th in=x\nclip name=cl in=x min=-0.5 max=0.25\noutput name=a from=lk\n"
                 "output name=b from=sg\noutput name=c from=th\noutput name=d from=cl\n"},
        KindCase{"eltwise",
                 "input name=x n=2 c=5 h=3 w=4\naddinput name=z n=2 c=5 h=3 w=4\naddinput name=v "
                 "n=2 c=5 h=1 w=1\neltwise name=a op=sum in=x,z\neltwise name=b op=prod in=x,v\n"
                 "eltwise name=c op=max in=x,z\neltwise name=d op=min in=x,v\neltwise name=e op=sub "
                 "in=x,v\noutput name=oa from=a\noutput name=ob from=b\noutput name=oc from=c\n"
                 "output name=od from=d\noutput name=oe from=e\n"},
        KindCase{"concat_resize",
                 "input name=a c=2 h=3 w=4\naddinput name=b c=3 h=3 w=4\naddinput name=c c=5 h=3 "
                 "w=4\nconcat name=j in=a,b,c\nresize name=r2 in=j s=2\nresize name=r31 in=b "
                 "sy=3 sx=1\noutput name=o1 from=j\noutput name=o2 from=r2\noutput name=o3 "
                 "from=r31\n"},
        KindCase{"scale",
                 "input name=x n=2 c=3 h=2 w=2\nscale name=pc in=x weights=2,-1,0.5 bias=1,2,3\n"
                 "scale name=un in=x weights=3 bias=-1\noutput name=a from=pc\noutput name=b from=un\n"},
        KindCase{"softmax_fc_gap",
                 "input name=x c=6 h=5 w=7\nsoftmax name=sm\ngap name=g\nfc name=f out=4 "
                 "init=random seed=9\nadaptive_avgpool name=ad in=x h=2 w=3\n"
                 "output name=a from=sm\noutput name=b from=f\noutput name=c from=ad\n"}),
    [] (const testing::TestParamInfo<KindCase> &i) { return std::string (i.param.what); });

/* graph-yolo's second output moves to a new buffer after its graph was captured: the next task
 * must write the new buffer (the replay key holds every output, not output 0 alone). */
TEST (SwdlaGraph, ReplayFollowsEveryOutputBuffer)
{
  Session s;
  ASSERT_EQ (s.open ("graph-yolo"), "");
  ASSERT_EQ (s.outputs.size (), 2u);
  Stream stream;
  EXPECT_EQ (swdla_test::task_equals_cpu (s, stream, 1), "") << "first buffers";
  void *cuda = nullptr;
  uint64_t *dla = nullptr;
  const size_t size = s.outputs[1].size;
  ASSERT_EQ (cudaMalloc (&cuda, size), cudaSuccess);
  ASSERT_EQ (cudaMemset (cuda, 0x5a, size), cudaSuccess);
  ASSERT_EQ (cudlaMemRegister (s.dev, static_cast<const uint64_t *> (cuda), size, &dla, 0), cudlaSuccess)
      << swdlaLastRefusal ();
  const std::vector<uint8_t> in = swdla_test::random_input (s.model.inputs[0], 77);
  ASSERT_TRUE (s.write_input (0, in));
  cudlaTask t = s.task ();
  uint64_t *const outs[2] = {s.outputs[0].dla, dla};
  t.outputTensor = outs;
  ASSERT_EQ (cudlaSubmitTask (s.dev, &t, 1, stream, 0), cudlaSuccess) << swdlaLastRefusal ();
  ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
  std::vector<uint8_t> got (size);
  ASSERT_EQ (cudaMemcpy (got.data (), cuda, size, cudaMemcpyDeviceToHost), cudaSuccess);
  const auto want = swdla_test::cpu_outputs (s.model, {in});
  EXPECT_EQ (swdla_test::compare_outputs (s.model.outputs[1], got, want[1]), "") << "the new output buffer";
  EXPECT_EQ (swdla_test::compare_outputs (s.model.outputs[0], s.read_output (0), want[0]), "");
  EXPECT_EQ (cudlaMemUnregister (s.dev, dla), cudlaSuccess);
  cudaFree (cuda);
  EXPECT_EQ (s.close (), cudlaSuccess) << swdlaLastRefusal ();
}

}  // namespace
