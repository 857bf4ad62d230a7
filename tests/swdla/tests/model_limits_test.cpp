/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla model files that break a rule: every DLA limit of FORMAT.md and every graph rule is refused
 * at load with a message naming the layer, its kind and the rule. Each model is written from a
 * valid spec with one field changed (serialize_model writes what it is given). */
#include <gtest/gtest.h>

#include <functional>

#include "model.h"
#include "test_models.h"

namespace {

using swdla::Layer;
using swdla::LayerKind;
using swdla::Model;

Model from_spec (const std::string &body)
{
  return swdla_test::model_from_spec (body);
}

/* Why parse_model refuses `m` as written ("" if it loads). */
std::string refusal (const Model &m)
{
  const std::vector<uint8_t> bytes = swdla::serialize_model (m);
  Model back;
  std::string why;
  return swdla::parse_model (bytes.data (), bytes.size (), &back, &why) ? "" : why;
}

const char *const kConv =
    "input name=x c=16 h=40 w=40\nconv name=c out=32 k=3 p=1 init=random seed=1\noutput name=y\n";
const char *const kPool = "input name=x c=4 h=40 w=40\nmaxpool name=p k=2 s=2\noutput name=y\n";
const char *const kTwo =
    "input name=x c=4 h=8 w=8\naddinput name=z c=4 h=8 w=8\nconcat name=j in=x,z\neltwise name=e op=sum "
    "in=x,z\noutput name=y from=j\noutput name=y2 from=e\n";

struct Case {
  const char *what;
  const char *spec;
  std::function<void (Model *)> change;
  const char *message; /* the whole refusal */
};

void PrintTo (const Case &c, std::ostream *os)
{
  *os << c.what;
}

Layer &layer (Model *m, const std::string &name)
{
  return m->layers[size_t (m->find_tensor (name)) - m->inputs.size ()];
}

class Limit : public testing::TestWithParam<Case> {};

TEST_P (Limit, IsRefusedNamingLayerKindAndRule)
{
  Model m = from_spec (GetParam ().spec);
  ASSERT_EQ (refusal (m), "") << "the unchanged model must load";
  GetParam ().change (&m);
  EXPECT_EQ (refusal (m), GetParam ().message);
}

INSTANTIATE_TEST_SUITE_P (
    Dla, Limit,
    testing::Values (
        Case{"conv_kernel", kConv, [] (Model *m) { layer (m, "c").kh = 33; },
             "layer 0 'c' (conv): kernel 33x3: the DLA takes kernels 1..32 (TensorRT DLA restrictions)"},
        Case{"conv_stride", kConv, [] (Model *m) { layer (m, "c").sx = 9; },
             "layer 0 'c' (conv): stride 1x9: the DLA takes strides 1..8 (TensorRT DLA restrictions)"},
        Case{"conv_padding_range", kConv,
             [] (Model *m) {
               layer (m, "c").kh = 32;
               layer (m, "c").pb = 32;
             },
             "layer 0 'c' (conv): padding 1,1,32,1 (top, left, bottom, right): the DLA takes paddings 0..31 "
             "(TensorRT DLA restrictions)"},
        Case{"conv_padding_kernel", kConv, [] (Model *m) { layer (m, "c").pl = 3; },
             "layer 0 'c' (conv): padding 1,3,1,1 (top, left, bottom, right) with kernel 3x3: the DLA takes "
             "each padding smaller than its kernel (TensorRT DLA restrictions)"},
        Case{"conv_dilation", kConv, [] (Model *m) { layer (m, "c").dy = 33; },
             "layer 0 'c' (conv): dilation 33x1: the DLA takes dilations 1..32 (TensorRT DLA restrictions)"},
        Case{"conv_out_channels", kConv, [] (Model *m) { layer (m, "c").out_c = 8193; },
             "layer 0 'c' (conv): 8193 output channels: the DLA takes 1..8192 (TensorRT DLA restrictions)"},
        Case{"conv_groups_range", kConv, [] (Model *m) { layer (m, "c").groups = 0; },
             "layer 0 'c' (conv): groups 0: the DLA takes groups 1..8192 (TensorRT DLA restrictions)"},
        Case{"conv_groups_divide", kConv, [] (Model *m) { layer (m, "c").groups = 3; },
             "layer 0 'c' (conv): groups 3 with 16 input and 32 output channels: both must divide by the "
             "groups (TensorRT DLA restrictions)"},
        Case{"fc_outputs", "input name=x c=4 h=2 w=2\nfc name=f out=3 init=random seed=1\noutput name=y\n",
             [] (Model *m) { layer (m, "f").out_c = 8193; },
             "layer 0 'f' (fc): 8193 outputs: the DLA takes 1..8192 (TensorRT DLA restrictions)"},
        Case{"pool_window", kPool, [] (Model *m) { layer (m, "p").kw = 9; },
             "layer 0 'p' (maxpool): window 2x9: the DLA takes windows 1..8 (TensorRT DLA restrictions)"},
        Case{"pool_stride", kPool, [] (Model *m) { layer (m, "p").sy = 17; },
             "layer 0 'p' (maxpool): stride 17x2: the DLA takes strides 1..16 (TensorRT DLA restrictions)"},
        Case{"pool_padding", kPool,
             [] (Model *m) {
               layer (m, "p").kind = LayerKind::kAvgPool;
               layer (m, "p").kh = 8;
               layer (m, "p").pt = 8;
             },
             "layer 0 'p' (avgpool): padding 8,0,0,0 (top, left, bottom, right): the DLA takes paddings 0..7 "
             "(TensorRT DLA restrictions)"},
        Case{"concat_one_input", kTwo, [] (Model *m) { layer (m, "j").inputs = {0}; },
             "layer 0 'j' (concat): takes 2..8 inputs, has 1 (TensorRT DLA restrictions)"},
        Case{"concat_height",
             "input name=x c=4 h=8 w=8\naddinput name=z c=4 h=4 w=8\nconcat name=j in=x,x\n"
             "output name=y\n",
             [] (Model *m) {
               layer (m, "j").inputs = {0, 1};
             },
             "layer 0 'j' (concat): input 1 is 4x4x8, input 0 4x8x8: the DLA concatenates along channels "
             "only, "
             "same height and width (TensorRT DLA restrictions)"},
        Case{
            "eltwise_op", kTwo, [] (Model *m) { layer (m, "e").op = 5; },
            "layer 1 'e' (eltwise): op 5: the DLA's element-wise ops here are 0 sum, 1 prod, 2 max, 3 min, 4 "
            "sub (TensorRT DLA restrictions)"},
        Case{"eltwise_broadcast", kTwo,
             [] (Model *m) {
               layer (m, "e").inputs = {0, 2};
             },
             "layer 1 'e' (eltwise): inputs 4x8x8 and 8x8x8: the DLA takes the same shape or the second C x "
             "1 x "
             "1 (per-channel broadcast) (TensorRT DLA restrictions)"},
        Case{"resize_scale", "input name=x c=4 h=8 w=8\nresize name=r s=2\noutput name=y\n",
             [] (Model *m) { layer (m, "r").sx = 33; },
             "layer 0 'r' (resize): scale 2x33: the DLA resizes (nearest) by integer scales 1..32 (TensorRT "
             "DLA "
             "restrictions)"},
        Case{"softmax_channels", "input name=x c=1024 h=2 w=2\nsoftmax name=s\noutput name=y\n",
             [] (Model *m) { m->inputs[0].c = 1025; },
             "layer 0 's' (softmax): 1025 channels over 2x2: the DLA's softmax takes C <= 1024 (8192 when H "
             "= W "
             "= 1) (TensorRT DLA restrictions)"},
        Case{"tensor_dims", "input name=x c=4 h=300 w=8\nresize name=r s=2\noutput name=y\n",
             [] (Model *m) { layer (m, "r").sy = 28; },
             "layer 0 'r' (resize): result 4x8400x16: the DLA takes dims 1..8192 (TensorRT DLA "
             "restrictions)"}),
    [] (const testing::TestParamInfo<Case> &i) { return std::string (i.param.what); });

INSTANTIATE_TEST_SUITE_P (
    Graph, Limit,
    testing::Values (
        Case{"forward_reference", kTwo,
             [] (Model *m) {
               layer (m, "j").inputs = {0, 3};
             },
             "layer 0 'j' (concat): input id 3: a layer reads graph inputs or earlier results (ids 0..1)"},
        Case{"duplicate_name", kTwo, [] (Model *m) { layer (m, "e").name = "x"; },
             "layer 1 'x' (eltwise): name already used by another tensor: names must be unique"},
        Case{"eltwise_arity", kTwo, [] (Model *m) { layer (m, "e").inputs = {0}; },
             "layer 1 'e' (eltwise): takes 2 inputs, has 1"},
        Case{"batch", kTwo, [] (Model *m) { m->inputs[1].n = 2; },
             "layer 0 'j' (concat): reads input 'z' of batch 2: layers work per image, on input 0's batch 1"},
        Case{"weights_on_relu", "input name=x c=4 h=8 w=8\nrelu name=r\noutput name=y\n",
             [] (Model *m) { layer (m, "r").weights = {1.f}; },
             "layer 0 'r' (relu): this kind takes no weights"},
        Case{"grouped_weights", kConv, [] (Model *m) { layer (m, "c").groups = 2; },
             "layer 0 'c' (conv): conv needs out_c*(in_c/groups)*kh*kw = 2304 weights, has 4608"},
        Case{"scale_weights",
             "input name=x c=4 h=8 w=8\nscale name=s weights=1,2,3,4 bias=1\noutput name=y\n",
             [] (Model *m) {
               layer (m, "s").weights = {1.f, 2.f};
             },
             "layer 0 's' (scale): scale needs 4 weights (one per channel) or 1, has 2"},
        Case{"output_source", kTwo, [] (Model *m) { m->outputs[1].source = 4; },
             "output 'y2': source id 4 is not a tensor (ids 0..3)"},
        Case{"output_shape", kTwo, [] (Model *m) { m->outputs[1].source = 2; },
             "output 'y2' is 1x4x8x8 but its source 'j' is 1x8x8x8"},
        Case{"output_source_batch", kTwo,
             [] (Model *m) {
               m->outputs[1].source = 1;
               m->inputs[1].n = 2;
               m->layers.clear ();
               m->outputs.pop_back ();
               m->outputs[0].source = 1;
             },
             "output 'y': its source, input 'z', has batch 2, not input 0's 1"},
        Case{"output_name", kTwo, [] (Model *m) { m->outputs[1].name = "j"; },
             "output 'j': the name of another tensor than its source 'e'"},
        Case{"unknown_kind", kTwo, [] (Model *m) { layer (m, "e").kind = LayerKind (17); },
             "layer 1 'e' (unknown): unknown layer kind 17"}),
    [] (const testing::TestParamInfo<Case> &i) { return std::string (i.param.what); });

/* Record fields the reader itself checks (not expressible in a Model). */
TEST (LayerRecord, InputCountUnusedIdsAndReservedFieldsAreChecked)
{
  const Model m = from_spec (kTwo);
  const std::vector<uint8_t> good = swdla::serialize_model (m);
  const size_t layer0 = 32 + 128 * 4; /* header, 2 inputs, 2 outputs */
  auto refused = [&] (size_t at, uint8_t value) {
    std::vector<uint8_t> bad = good;
    bad[at] = value;
    Model out;
    std::string why;
    EXPECT_FALSE (swdla::parse_model (bad.data (), bad.size (), &out, &why)) << at;
    return why;
  };
  EXPECT_EQ (refused (layer0 + 88, 9), "layer 0 'j': input count 9, a record holds 1..8");
  EXPECT_EQ (refused (layer0 + 92 + 4 * 7, 0), "layer 0 'j': unused input ids must be -1");
  EXPECT_EQ (refused (layer0 + 124 + 4 * 15, 1), "layer 0 'j': reserved parameters must be zero");
  EXPECT_EQ (refused (layer0 + 204, 2), "layer 0 'j': unknown weight type 2");
  EXPECT_EQ (refused (32 + 116, 1), "input 'x': reserved bytes 116..127 of its record are not zero");
  EXPECT_EQ (refused (32 + 112, 0), "input 'x': an input's source must be -1");
  /* A name is text: a control byte is refused, and a damaged name is quoted on one line (a fuzzed
   * file, tests/fuzz/corpus/swdla-model). */
  EXPECT_EQ (refused (layer0 + 9, '\n'),
             "layer 0: its name has a control byte at 1: names are text (re-create the model)");
  EXPECT_EQ (refused (32 + 1, '\n'),
             "input 'x\\x0a': its name has a control byte at 1: names are text (re-create the model)");
  std::vector<uint8_t> bad = good;
  bad[layer0 + 9] = 0xff;
  bad[layer0 + 88] = 9;
  Model out;
  std::string why;
  EXPECT_FALSE (swdla::parse_model (bad.data (), bad.size (), &out, &why));
  EXPECT_EQ (why, "layer 0 'j\\xff': input count 9, a record holds 1..8");
}

/* A model may have as many inputs, outputs and layers as the format allows, not more. */
TEST (Counts, InputsOutputsAndLayersAtTheirLimits)
{
  Model m = from_spec ("input name=x c=1 h=2 w=2\nrelu name=r0\noutput name=y\n");
  for (int j = 1; j < 1024; ++j) {
    Layer l = m.layers[0];
    l.name = "r" + std::to_string (j);
    l.inputs = {int32_t (j)};
    m.layers.push_back (l);
  }
  m.outputs[0].source = 1024;
  EXPECT_EQ (refusal (m), "");
  m.layers.push_back (m.layers.back ());
  EXPECT_NE (refusal (m).find ("1025 layers"), std::string::npos) << refusal (m);
  m.layers.pop_back ();
  for (int k = 1; k < 17; ++k) {
    m.outputs.push_back (m.outputs[0]);
    m.outputs.back ().name = "y" + std::to_string (k);
  }
  EXPECT_NE (refusal (m).find ("17 outputs"), std::string::npos) << refusal (m);
}

}  // namespace
