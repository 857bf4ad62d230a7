/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla model files: every generated model parses with the dims README.md promises, broken ones are
 * refused with a reason, the format round-trips, and the spec reader names bad lines. */
#include "model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>

#include "spec.h"
#include "test_support.h"

namespace {

/* Every test here reads the models tests/swdla/models.spec generates: without them, one clear
 * failure before any test, not a crash on an empty model. */
class GeneratedModels : public ::testing::Environment {
 public:
  void SetUp () override
  {
    ASSERT_TRUE (bool (std::ifstream (dlainfer_test::test_data ("colours.swdla"))))
        << "the generated swdla models are missing from " << dlainfer_test::test_data ("")
        << ": build them first (ninja -C BUILD tests/swdla/swdla-models.stamp)";
  }
};
const ::testing::Environment *const kGeneratedModels =
    ::testing::AddGlobalTestEnvironment (new GeneratedModels);

std::vector<uint8_t> read_model (const std::string &name)
{
  std::ifstream f (dlainfer_test::test_data (name + ".swdla"), std::ios::binary);
  EXPECT_TRUE (bool (f)) << "missing generated model " << dlainfer_test::test_data (name + ".swdla");
  return std::vector<uint8_t> (std::istreambuf_iterator<char> (f), std::istreambuf_iterator<char> ());
}

swdla::Model parse (const std::string &name)
{
  const auto bytes = read_model (name);
  swdla::Model m;
  std::string why;
  EXPECT_TRUE (swdla::parse_model (bytes.data (), bytes.size (), &m, &why)) << name << ": " << why;
  return m;
}

std::string refusal (const std::vector<uint8_t> &bytes)
{
  swdla::Model m;
  std::string why;
  EXPECT_FALSE (swdla::parse_model (bytes.data (), bytes.size (), &m, &why));
  return why;
}

struct Io {
  const char *name;
  tensor::Layout in_layout;
  tensor::ElemType in_type;
  int64_t n, c, h, w;
  tensor::Layout out_layout;
  tensor::ElemType out_type;
  int64_t classes;
};

/* gtest would print the struct's padding bytes otherwise (uninitialised under valgrind). */
void PrintTo (const Io &io, std::ostream *os)
{
  *os << io.name;
}

using L = tensor::Layout;
using T = tensor::ElemType;

class GeneratedModel : public testing::TestWithParam<Io> {};

TEST_P (GeneratedModel, ParsesWithDocumentedTensors)
{
  const Io io = GetParam ();
  const swdla::Model m = parse (io.name);
  ASSERT_EQ (m.inputs.size (), 1u);
  ASSERT_EQ (m.outputs.size (), 1u);
  const auto &in = m.inputs[0], &out = m.outputs[0];
  EXPECT_EQ (in.layout, io.in_layout);
  EXPECT_EQ (in.type, io.in_type);
  EXPECT_EQ (in.n, io.n);
  EXPECT_EQ (in.c, io.c);
  EXPECT_EQ (in.h, io.h);
  EXPECT_EQ (in.w, io.w);
  EXPECT_EQ (out.layout, io.out_layout);
  EXPECT_EQ (out.type, io.out_type);
  EXPECT_EQ (out.n, io.n);
  EXPECT_EQ (out.c, io.classes);
  EXPECT_EQ (out.h, 1);
  EXPECT_EQ (out.w, 1);
  if (in.type == T::kInt8) {
    EXPECT_FLOAT_EQ (in.scale, in.layout == L::kChw32 && std::string (io.name).find ("random") == 0
                                   ? 1.f / 64
                                   : 1.f / 127);
  }
}

INSTANTIATE_TEST_SUITE_P (
    All, GeneratedModel,
    testing::Values (
        Io{"colours", L::kChw16, T::kFp16, 1, 3, 224, 224, L::kChw16, T::kFp16, 8},
        Io{"colours-fp16-dla_linear", L::kDlaLinear, T::kFp16, 1, 3, 224, 224, L::kChw16, T::kFp16, 8},
        Io{"colours-fp16-dla_hwc4", L::kDlaHwc4, T::kFp16, 1, 3, 224, 224, L::kChw16, T::kFp16, 8},
        Io{"colours-int8-chw32", L::kChw32, T::kInt8, 1, 3, 224, 224, L::kChw16, T::kFp16, 8},
        Io{"colours-int8-dla_linear", L::kDlaLinear, T::kInt8, 1, 3, 224, 224, L::kChw16, T::kFp16, 8},
        Io{"colours-int8-dla_hwc4", L::kDlaHwc4, T::kInt8, 1, 3, 224, 224, L::kChw16, T::kFp16, 8},
        Io{"colours-out-fp16-dla_linear", L::kChw16, T::kFp16, 1, 3, 224, 224, L::kDlaLinear, T::kFp16, 8},
        Io{"colours-out-int8-chw32", L::kChw16, T::kFp16, 1, 3, 224, 224, L::kChw32, T::kInt8, 8},
        Io{"colours-out-int8-dla_linear", L::kChw16, T::kFp16, 1, 3, 224, 224, L::kDlaLinear, T::kInt8, 8},
        Io{"colours-batch2", L::kChw16, T::kFp16, 2, 3, 224, 224, L::kChw16, T::kFp16, 8},
        Io{"colours-batch4", L::kChw16, T::kFp16, 4, 3, 64, 64, L::kChw16, T::kFp16, 8},
        Io{"colours-batch16", L::kChw16, T::kFp16, 16, 3, 64, 64, L::kChw16, T::kFp16, 8},
        Io{"colours-softmax", L::kChw16, T::kFp16, 1, 3, 224, 224, L::kChw16, T::kFp16, 8},
        Io{"quadrants", L::kChw16, T::kFp16, 1, 3, 224, 224, L::kChw16, T::kFp16, 4},
        Io{"readout", L::kChw16, T::kFp16, 1, 3, 224, 224, L::kChw16, T::kFp16, 48},
        Io{"readout-w225-fp16-chw16", L::kChw16, T::kFp16, 1, 3, 150, 225, L::kChw16, T::kFp16, 48},
        Io{"readout-w225-fp16-dla_linear", L::kDlaLinear, T::kFp16, 1, 3, 150, 225, L::kChw16, T::kFp16, 48},
        Io{"readout-w225-fp16-dla_hwc4", L::kDlaHwc4, T::kFp16, 1, 3, 150, 225, L::kChw16, T::kFp16, 48},
        Io{"readout-w225-int8-chw32", L::kChw32, T::kInt8, 1, 3, 150, 225, L::kChw16, T::kFp16, 48},
        Io{"readout-w225-int8-dla_linear", L::kDlaLinear, T::kInt8, 1, 3, 150, 225, L::kChw16, T::kFp16, 48},
        Io{"readout-w225-int8-dla_hwc4", L::kDlaHwc4, T::kInt8, 1, 3, 150, 225, L::kChw16, T::kFp16, 48},
        Io{"readout-out-fp16-dla_linear", L::kChw16, T::kFp16, 1, 3, 224, 224, L::kDlaLinear, T::kFp16, 48},
        Io{"readout-out-int8-chw32", L::kChw16, T::kFp16, 1, 3, 224, 224, L::kChw32, T::kInt8, 48},
        Io{"readout-grey", L::kChw16, T::kFp16, 1, 1, 64, 64, L::kChw16, T::kFp16, 16},
        Io{"readout-grey-fp16-dla_hwc4", L::kDlaHwc4, T::kFp16, 1, 1, 64, 70, L::kChw16, T::kFp16, 16},
        Io{"random-cnn", L::kChw16, T::kFp16, 1, 3, 48, 64, L::kChw16, T::kFp16, 10},
        Io{"random-cnn-int8", L::kChw32, T::kInt8, 1, 3, 48, 64, L::kDlaLinear, T::kInt8, 10},
        Io{"random-cnn-softmax", L::kChw16, T::kFp16, 1, 3, 48, 64, L::kChw16, T::kFp16, 10}),
    [] (const testing::TestParamInfo<Io> &i) {
      std::string s = i.param.name;
      for (char &ch : s)
        if (ch == '-')
          ch = '_';
      return s;
    });

TEST (Model, RandomCnnHasEveryLayerKindAndBothWeightTypes)
{
  const swdla::Model m = parse ("random-cnn");
  std::set<swdla::LayerKind> kinds;
  std::set<swdla::WeightType> wtypes;
  for (const auto &l : m.layers) {
    kinds.insert (l.kind);
    if (!l.weights.empty ())
      wtypes.insert (l.weight_type);
  }
  for (auto k :
       {swdla::LayerKind::kConv, swdla::LayerKind::kRelu, swdla::LayerKind::kMaxPool,
        swdla::LayerKind::kAvgPool, swdla::LayerKind::kGlobalAvgPool, swdla::LayerKind::kFullyConnected})
    EXPECT_TRUE (kinds.count (k)) << swdla::kind_name (k);
  EXPECT_EQ (wtypes.size (), 2u);
  EXPECT_EQ (parse ("random-cnn-softmax").layers.back ().kind, swdla::LayerKind::kSoftmax);
}

TEST (Model, LabelsFilesMatchClassCounts)
{
  for (const auto &[name, count] :
       std::vector<std::pair<std::string, int>>{{"colours", 8}, {"quadrants", 4}, {"random-cnn", 10}}) {
    std::ifstream f (dlainfer_test::test_data (name + ".labels"));
    std::vector<std::string> lines;
    for (std::string l; std::getline (f, l);)
      lines.push_back (l);
    EXPECT_EQ (int (lines.size ()), count) << name;
    if (name == "colours") {
      EXPECT_EQ (lines, (std::vector<std::string>{"black", "white", "red", "green", "blue", "yellow", "cyan",
                                                  "magenta"}));
    }
    if (name == "quadrants") {
      EXPECT_EQ (lines, (std::vector<std::string>{"top-left", "top-right", "bottom-left", "bottom-right"}));
    }
  }
}

TEST (Model, BrokenModelsAreRefusedWithAReason)
{
  EXPECT_NE (refusal (read_model ("broken-truncated")).find ("truncated"), std::string::npos);
  EXPECT_NE (refusal (read_model ("broken-magic")).find ("SWDLAMDL"), std::string::npos);
  EXPECT_NE (refusal (read_model ("broken-nvda")).find ("NVIDIA DLA loadable"), std::string::npos);
  EXPECT_NE (refusal (read_model ("broken-version")).find ("version 99"), std::string::npos);
  EXPECT_NE (refusal (read_model ("broken-zero-size")).find ("0 bytes"), std::string::npos);
  EXPECT_TRUE (read_model ("broken-zero-size").empty ());
}

TEST (Model, LoadableButUnusableModelsParse)
{
  const swdla::Model wrong = parse ("broken-wrong-type");
  EXPECT_EQ (wrong.inputs[0].report_data_type, 1); /* descriptor will say FLOAT */
  const swdla::Model two = parse ("broken-two-inputs");
  ASSERT_EQ (two.inputs.size (), 2u);
  EXPECT_EQ (two.inputs[1].name, "extra");
}

TEST (Model, EveryPrefixAndEveryByteFlipIsHandled)
{
  const auto good = read_model ("random-cnn");
  for (size_t n = 0; n < good.size (); n += 7) {
    std::vector<uint8_t> cut (good.begin (), good.begin () + long (n));
    swdla::Model m;
    std::string why;
    EXPECT_FALSE (swdla::parse_model (cut.data (), cut.size (), &m, &why)) << n;
    EXPECT_FALSE (why.empty ());
  }
  /* Flipped bytes anywhere must never crash; in the header and records they must be refused or
   * still give a consistent model. */
  for (size_t i = 0; i < 600 && i < good.size (); ++i) {
    auto bad = good;
    bad[i] ^= 0x5a;
    swdla::Model m;
    std::string why;
    if (swdla::parse_model (bad.data (), bad.size (), &m, &why)) {
      EXPECT_EQ (m.shapes.size (), m.tensor_count ());
    }
  }
}

class RoundTrip : public testing::TestWithParam<const char *> {};

TEST_P (RoundTrip, ParseThenSerializeGivesTheSameBytes)
{
  const swdla::Model m = parse (GetParam ());
  const auto bytes = swdla::serialize_model (m);
  EXPECT_EQ (bytes, read_model (GetParam ()));
  swdla::Model again;
  std::string why;
  ASSERT_TRUE (swdla::parse_model (bytes.data (), bytes.size (), &again, &why)) << why;
  ASSERT_EQ (again.layers.size (), m.layers.size ());
  for (size_t i = 0; i < m.layers.size (); ++i) {
    EXPECT_EQ (again.layers[i].name, m.layers[i].name);
    EXPECT_EQ (again.layers[i].inputs, m.layers[i].inputs);
    EXPECT_EQ (again.layers[i].weights, m.layers[i].weights);
    EXPECT_EQ (again.layers[i].bias, m.layers[i].bias);
  }
  ASSERT_EQ (again.outputs.size (), m.outputs.size ());
  for (size_t k = 0; k < m.outputs.size (); ++k)
    EXPECT_EQ (again.outputs[k].source, m.outputs[k].source);
}

INSTANTIATE_TEST_SUITE_P (Models, RoundTrip,
                          testing::Values ("random-cnn", "colours", "broken-two-inputs", "graph-residual",
                                           "graph-yolo", "graph-multi-output"),
                          [] (const testing::TestParamInfo<const char *> &i) {
                            std::string s = i.param;
                            std::replace (s.begin (), s.end (), '-', '_');
                            return s;
                          });

TEST (Model, VersionOneIsRefusedWithTheFix)
{
  auto bytes = read_model ("colours");
  bytes[8] = 1;
  EXPECT_EQ (refusal (bytes),
             "swdla model format version 1 is not read by this swdla (format 2); rebuild the "
             "file with swdla-tool build or import");
}

TEST (Model, GraphModelsHaveTheirTensorsAndSources)
{
  const swdla::Model y = parse ("graph-yolo");
  ASSERT_EQ (y.outputs.size (), 2u);
  EXPECT_EQ (y.tensor_name (y.outputs[0].source), "head_coarse");
  EXPECT_EQ (y.tensor_name (y.outputs[1].source), "head_fine");
  EXPECT_EQ (y.outputs[1].layout, L::kDlaLinear);
  const swdla::Layer &cat = y.layers[size_t (y.find_tensor ("cat") - 1)];
  EXPECT_EQ (cat.kind, swdla::LayerKind::kConcat);
  EXPECT_EQ (cat.inputs, (std::vector<int32_t>{y.find_tensor ("up"), y.find_tensor ("c2_silu")}));
  EXPECT_EQ (y.shapes[size_t (y.find_tensor ("cat"))].c, 96);
  const swdla::Model mo = parse ("graph-multi-output");
  ASSERT_EQ (mo.inputs.size (), 2u);
  EXPECT_EQ (mo.inputs[1].layout, L::kDlaHwc4);
  std::set<std::pair<L, T>> formats;
  for (const auto &o : mo.outputs)
    formats.insert ({o.layout, o.type});
  EXPECT_EQ (formats.size (), 4u);
  std::set<swdla::LayerKind> kinds;
  for (const char *name : {"graph-residual", "graph-yolo", "graph-multi-output", "random-cnn", "quadrants"})
    for (const auto &l : parse (name).layers)
      kinds.insert (l.kind);
  EXPECT_EQ (kinds.size (), 16u) << "the graph models and random-cnn hold every kind";
}

TEST (Model, HeaderIsAsFormatMdSays)
{
  const auto b = read_model ("colours");
  ASSERT_GE (b.size (), 32u);
  EXPECT_EQ (std::string (b.begin (), b.begin () + 8), "SWDLAMDL");
  auto u32 = [&] (size_t at) {
    return uint32_t (b[at]) | uint32_t (b[at + 1]) << 8 | uint32_t (b[at + 2]) << 16 |
           uint32_t (b[at + 3]) << 24;
  };
  EXPECT_EQ (u32 (8), 2u);   /* version */
  EXPECT_EQ (u32 (12), 32u); /* header bytes */
  EXPECT_EQ (u32 (16), 1u);  /* inputs */
  EXPECT_EQ (u32 (20), 1u);  /* outputs */
  EXPECT_EQ (u32 (24), 2u);  /* layers: gap, fc */
  EXPECT_EQ (u32 (28), b.size ());
  EXPECT_EQ (std::string (reinterpret_cast<const char *> (&b[32])), "image");
}

TEST (Spec, ErrorsNameTheLine)
{
  std::vector<swdla::SpecOutput> out;
  std::string why;
  EXPECT_FALSE (swdla::build_spec ("model a\ninput name=x c=3 h=4 w=4\nbogus\nend\n", &out, &why));
  EXPECT_NE (why.find ("line 3"), std::string::npos) << why;
  EXPECT_FALSE (swdla::build_spec (
      "model a\ninput name=x c=3 h=4 w=4\nfc out=2 weights=1,2\noutput name=y\nend\n", &out, &why));
  EXPECT_NE (why.find ("weights"), std::string::npos) << why;
  EXPECT_FALSE (swdla::build_spec ("model a\ninput name=x type=int8 c=3 h=4 w=4\ngap\noutput name=y\nend\n",
                                   &out, &why));
  EXPECT_NE (why.find ("scale"), std::string::npos) << why;
  EXPECT_FALSE (swdla::build_spec (
      "model a\ninput name=x layout=chw16 type=int8 scale=1 c=3 h=4 w=4\ngap\noutput name=y\nend\n", &out,
      &why));
  EXPECT_NE (why.find ("cannot hold"), std::string::npos) << why;
}

TEST (Spec, DerivedModelsReshapeAndFp16WeightsRound)
{
  std::vector<swdla::SpecOutput> out;
  std::string why;
  ASSERT_TRUE (
      swdla::build_spec ("model a\ninput name=x c=1 h=8 w=8\nadaptive_avgpool h=2 w=2\n"
                         "fc out=1 wtype=fp16 weights=0.1,0.2,0.3,0.4 bias=1e-4\noutput name=y\nend\n"
                         "model b base=a\nset input.w=9 input.h=5 input.layout=dla_linear\nend\n",
                         &out, &why))
      << why;
  ASSERT_EQ (out.size (), 2u);
  swdla::Model a, b;
  ASSERT_TRUE (swdla::parse_model (out[0].bytes.data (), out[0].bytes.size (), &a, &why)) << why;
  ASSERT_TRUE (swdla::parse_model (out[1].bytes.data (), out[1].bytes.size (), &b, &why)) << why;
  EXPECT_EQ (b.inputs[0].w, 9);
  EXPECT_EQ (b.inputs[0].layout, tensor::Layout::kDlaLinear);
  EXPECT_EQ (a.layers[1].weights[0], 0.0999755859375f); /* 0.1 in FP16 */
}

}  // namespace
