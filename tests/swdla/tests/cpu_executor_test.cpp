/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU executor against hand-computed tiny networks, the packing of every layout, and the
 * generated models' answers (colours, quadrants, read-out) computed on the CPU. */
#include "cpu_executor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>

#include "common/numeric.h"
#include "test_support.h"

namespace {

using swdla::Layer;
using swdla::LayerKind;
using swdla::Model;
using swdla::TensorSpec;

TensorSpec fp16_tensor (const char *name, int64_t c, int64_t h, int64_t w)
{
  TensorSpec t;
  t.name = name;
  t.c = c;
  t.h = h;
  t.w = w;
  return t;
}

/* A one-input model of the given layers over a c x h x w input, chained (each reads the previous
 * result); the output follows the last. */
Model tiny (int64_t c, int64_t h, int64_t w, std::vector<Layer> layers)
{
  Model m;
  m.inputs.push_back (fp16_tensor ("in", c, h, w));
  m.layers = std::move (layers);
  for (size_t j = 0; j < m.layers.size (); ++j) {
    m.layers[j].name = "l" + std::to_string (j);
    m.layers[j].inputs = {int32_t (j)};
  }
  std::string why;
  EXPECT_TRUE (infer_layer_shapes (&m, &why)) << why;
  const int32_t last = int32_t (m.tensor_count () - 1);
  const swdla::Shape &s = m.shapes[size_t (last)];
  m.outputs.push_back (fp16_tensor ("out", s.c, s.h, s.w));
  m.outputs[0].source = last;
  EXPECT_TRUE (infer_shapes (&m, &why)) << why;
  return m;
}

Layer layer (LayerKind k, int kh = 1, int kw = 1, int s = 1, int p = 0)
{
  Layer l;
  l.kind = k;
  l.kh = kh;
  l.kw = kw;
  l.sy = l.sx = s;
  l.pt = l.pl = l.pb = l.pr = p;
  return l;
}

std::vector<float> iota (size_t n, float start = 1.f)
{
  std::vector<float> v (n);
  for (size_t i = 0; i < n; ++i)
    v[i] = start + float (i);
  return v;
}

TEST (CpuExecutor, ConvolutionStrideOne)
{
  /* 1 channel 3x3 input 1..9, 2x2 kernel [1 0; 0 -1] + bias 0.5: out(y,x) = in(y,x) - in(y+1,x+1) + 0.5 */
  Layer conv = layer (LayerKind::kConv, 2, 2);
  conv.out_c = 1;
  conv.weights = {1, 0, 0, -1};
  conv.bias = {0.5f};
  const Model m = tiny (1, 3, 3, {conv});
  EXPECT_EQ (swdla::run_layers_cpu (m, iota (9)), (std::vector<float>{-3.5f, -3.5f, -3.5f, -3.5f}));
}

TEST (CpuExecutor, ConvolutionStrideTwoPaddingOneTwoChannels)
{
  /* 2 channels 4x4 (ch0 = 1..16, ch1 = all 1), 3x3 kernel of ones on ch0 and 10 on ch1's centre,
   * stride 2, padding 1 -> 2x2 output; windows centred on (0,0), (0,2), (2,0), (2,2). */
  Layer conv = layer (LayerKind::kConv, 3, 3, 2, 1);
  conv.out_c = 1;
  conv.weights.assign (18, 0.f);
  std::fill (conv.weights.begin (), conv.weights.begin () + 9, 1.f);
  conv.weights[9 + 4] = 10.f;
  const Model m = tiny (2, 4, 4, {conv});
  std::vector<float> in = iota (16);
  in.resize (32, 1.f);
  /* (0,0): 1+2+5+6 = 14; (0,2): 2+3+4+6+7+8 = 30; (2,0): 5+6+9+10+13+14 = 57; (2,2): 6+7+8+10+11+12+14+15+16
   * = 99 */
  EXPECT_EQ (swdla::run_layers_cpu (m, in), (std::vector<float>{24, 40, 67, 109}));
}

TEST (CpuExecutor, ConvolutionChannelsOutAndRelu)
{
  Layer conv = layer (LayerKind::kConv, 1, 1);
  conv.out_c = 2;
  conv.weights = {1, -1}; /* 1 in channel -> 2 out: +x and -x */
  const Model m = tiny (1, 1, 3, {conv, layer (LayerKind::kRelu)});
  EXPECT_EQ (swdla::run_layers_cpu (m, {-1, 0, 2}), (std::vector<float>{0, 0, 2, 1, 0, 0}));
}

TEST (CpuExecutor, PoolsClipTheirWindowsAtThePadding)
{
  /* 3x3 input 1..9, 2x2 windows, stride 2, padding 1 -> 2x2 output over clipped windows. */
  const Model max = tiny (1, 3, 3, {layer (LayerKind::kMaxPool, 2, 2, 2, 1)});
  EXPECT_EQ (swdla::run_layers_cpu (max, iota (9)), (std::vector<float>{1, 3, 7, 9}));
  const Model avg = tiny (1, 3, 3, {layer (LayerKind::kAvgPool, 2, 2, 2, 1)});
  /* windows: {1}, {2,3}, {4,7}, {5,6,8,9}: padding is not counted */
  EXPECT_EQ (swdla::run_layers_cpu (avg, iota (9)), (std::vector<float>{1, 2.5f, 5.5f, 7}));
  /* negative values: padding never wins a max */
  std::vector<float> neg = iota (9, -20.f);
  EXPECT_EQ (swdla::run_layers_cpu (max, neg), (std::vector<float>{-20, -18, -14, -12}));
}

TEST (CpuExecutor, GlobalAndAdaptiveAveragePools)
{
  const Model gap = tiny (2, 2, 3, {layer (LayerKind::kGlobalAvgPool)});
  EXPECT_EQ (swdla::run_layers_cpu (gap, iota (12)), (std::vector<float>{3.5f, 9.5f}));
  /* 1x7 row 1..7 into 3 cells: PyTorch windows [0,3) [2,5) [4,7). */
  Layer ad = layer (LayerKind::kAdaptiveAvgPool);
  ad.out_h = 1;
  ad.out_w = 3;
  const Model m = tiny (1, 1, 7, {ad});
  EXPECT_EQ (swdla::run_layers_cpu (m, iota (7)), (std::vector<float>{2, 4, 6}));
}

TEST (CpuExecutor, FullyConnectedFlattensChwAndSoftmax)
{
  Layer fc = layer (LayerKind::kFullyConnected);
  fc.out_c = 2;
  fc.weights.assign (24, 0.f);
  fc.weights[0] = 1;       /* out 0 = element 0 of the flattened 2x2x3 input */
  fc.weights[12 + 11] = 1; /* out 1 = element 11 - 10 */
  fc.bias = {0.f, -10.f};
  const Model m = tiny (2, 2, 3, {fc});
  EXPECT_EQ (swdla::run_layers_cpu (m, iota (12)), (std::vector<float>{1, 2}));
  const Model sm = tiny (3, 1, 1, {layer (LayerKind::kSoftmax)});
  const auto p = swdla::run_layers_cpu (sm, {0.f, std::log (2.f), std::log (5.f)});
  EXPECT_NEAR (p[0], 0.125f, 1e-6);
  EXPECT_NEAR (p[1], 0.25f, 1e-6);
  EXPECT_NEAR (p[2], 0.625f, 1e-6);
}

/* Packing: every layout and type round-trips, pads and row tails are zero, INT8 saturates. */
struct PackCase {
  tensor::Layout layout;
  tensor::ElemType type;
  int64_t c, w;
};

void PrintTo (const PackCase &k, std::ostream *os)
{
  *os << tensor::layout_name (k.layout) << " " << tensor::elem_type_name (k.type) << " c" << k.c << " w"
      << k.w;
}

class Packing : public testing::TestWithParam<PackCase> {};

TEST_P (Packing, RoundTripsWithZeroPadding)
{
  const PackCase k = GetParam ();
  TensorSpec t = fp16_tensor ("t", k.c, 3, k.w);
  t.n = 2;
  t.layout = k.layout;
  t.type = k.type;
  t.scale = 1.f / 64;
  tensor::View v;
  ASSERT_TRUE (t.view (&v));
  const size_t count = size_t (t.n * t.c * t.h * t.w);
  std::vector<float> dense (count);
  for (size_t i = 0; i < count; ++i)
    dense[i] = float (int (i % 200) - 100) / 64.f; /* exact in FP16 and in INT8 at 1/64 */
  std::vector<uint8_t> bytes (size_t (v.size), 0xee);
  swdla::pack_tensor (t, dense.data (), bytes.data ());
  EXPECT_EQ (swdla::unpack_tensor (t, bytes.data ()), dense);
  /* Every byte that no element owns is zero. */
  std::vector<bool> owned (bytes.size ());
  const int es = tensor::elem_size (t.type);
  for (int64_t n = 0; n < t.n; ++n)
    for (int64_t c = 0; c < t.c; ++c)
      for (int64_t y = 0; y < t.h; ++y)
        for (int64_t x = 0; x < t.w; ++x)
          for (int b = 0; b < es; ++b)
            owned[size_t (v.offset (n, c, y, x) + b)] = true;
  for (size_t i = 0; i < bytes.size (); ++i)
    if (!owned[i]) {
      ASSERT_EQ (bytes[i], 0) << "pad byte " << i;
    }
}

INSTANTIATE_TEST_SUITE_P (
    Layouts, Packing,
    testing::Values (PackCase{tensor::Layout::kChw16, tensor::ElemType::kFp16, 3, 5},
                     PackCase{tensor::Layout::kChw16, tensor::ElemType::kFp16, 20, 5},
                     PackCase{tensor::Layout::kChw32, tensor::ElemType::kInt8, 3, 5},
                     PackCase{tensor::Layout::kDlaLinear, tensor::ElemType::kFp16, 3, 33},
                     PackCase{tensor::Layout::kDlaLinear, tensor::ElemType::kInt8, 3, 65},
                     PackCase{tensor::Layout::kDlaHwc4, tensor::ElemType::kFp16, 3, 9},
                     PackCase{tensor::Layout::kDlaHwc4, tensor::ElemType::kInt8, 3, 17},
                     PackCase{tensor::Layout::kDlaHwc4, tensor::ElemType::kFp16, 1, 33}));

TEST (CpuExecutor, Int8OutputSaturatesAndRoundsHalfToEven)
{
  TensorSpec t = fp16_tensor ("t", 5, 1, 1);
  t.layout = tensor::Layout::kChw32;
  t.type = tensor::ElemType::kInt8;
  t.scale = 0.5f;
  const float dense[5] = {1000.f, -1000.f, 0.25f, 0.75f, -0.25f}; /* /0.5: 2000, -2000, 0.5, 1.5, -0.5 */
  std::vector<uint8_t> bytes (32);
  swdla::pack_tensor (t, dense, bytes.data ());
  EXPECT_EQ (int8_t (bytes[0]), 127);
  EXPECT_EQ (int8_t (bytes[1]), -128);
  EXPECT_EQ (int8_t (bytes[2]), 0);
  EXPECT_EQ (int8_t (bytes[3]), 2);
  EXPECT_EQ (int8_t (bytes[4]), 0);
}

/* The generated models on the CPU. */
Model load (const std::string &name)
{
  std::ifstream f (dlainfer_test::test_data (name + ".swdla"), std::ios::binary);
  std::vector<uint8_t> b ((std::istreambuf_iterator<char> (f)), std::istreambuf_iterator<char> ());
  Model m;
  std::string why;
  EXPECT_TRUE (swdla::parse_model (b.data (), b.size (), &m, &why)) << name << ": " << why;
  return m;
}

/* Runs model on a dense normalised image (n x c x h x w) and returns the dense output. */
std::vector<float> infer (const Model &m, const std::vector<float> &image)
{
  tensor::View iv, ov;
  m.inputs[0].view (&iv);
  m.outputs[0].view (&ov);
  std::vector<uint8_t> in (size_t (iv.size)), out (size_t (ov.size));
  swdla::pack_tensor (m.inputs[0], image.data (), in.data ());
  swdla::run_cpu (m, {in.data ()}, {out.data ()});
  return swdla::unpack_tensor (m.outputs[0], out.data ());
}

std::vector<float> solid (const TensorSpec &t, const float rgb[3])
{
  std::vector<float> v (size_t (t.n * t.c * t.h * t.w));
  const int64_t plane = t.h * t.w;
  for (size_t i = 0; i < v.size (); ++i)
    v[i] = rgb[(int64_t (i) / plane) % t.c];
  return v;
}

int argmax (const std::vector<float> &v, size_t from = 0, size_t count = 0)
{
  if (!count)
    count = v.size () - from;
  return int (std::max_element (v.begin () + long (from), v.begin () + long (from + count)) - v.begin () -
              long (from));
}

const float kColours[8][3] = {{0, 0, 0}, {1, 1, 1}, {1, 0, 0}, {0, 1, 0},
                              {0, 0, 1}, {1, 1, 0}, {0, 1, 1}, {1, 0, 1}};

class ColoursModel : public testing::TestWithParam<const char *> {};

TEST_P (ColoursModel, ClassifiesEverySolidColour)
{
  const Model m = load (GetParam ());
  for (int k = 0; k < 8; ++k) {
    /* slightly off the corner, as a real camera would be */
    const float rgb[3] = {std::fabs (kColours[k][0] - 0.1f), std::fabs (kColours[k][1] - 0.15f),
                          std::fabs (kColours[k][2] - 0.05f)};
    const auto out = infer (m, solid (m.inputs[0], rgb));
    for (int64_t n = 0; n < m.inputs[0].n; ++n)
      EXPECT_EQ (argmax (out, size_t (n * 8), 8), k) << GetParam () << " colour " << k;
  }
}

INSTANTIATE_TEST_SUITE_P (Variants, ColoursModel,
                          testing::Values ("colours", "colours-fp16-dla_linear", "colours-fp16-dla_hwc4",
                                           "colours-int8-chw32", "colours-int8-dla_linear",
                                           "colours-int8-dla_hwc4", "colours-out-fp16-dla_linear",
                                           "colours-out-int8-chw32", "colours-out-int8-dla_linear",
                                           "colours-batch2", "colours-softmax"));

TEST (GeneratedModels, ColoursLogitsAreTheDocumentedFormula)
{
  const Model m = load ("colours");
  const float rgb[3] = {0.25f, 0.5f, 0.75f};
  const auto out = infer (m, solid (m.inputs[0], rgb));
  for (int k = 0; k < 8; ++k) {
    float dot = 0, ones = 0;
    for (int c = 0; c < 3; ++c) {
      dot += rgb[c] * kColours[k][c];
      ones += kColours[k][c];
    }
    EXPECT_NEAR (out[size_t (k)], 8 * dot - 4 * ones, 1e-2) << k;
  }
}

TEST (GeneratedModels, QuadrantsFindsTheBrightQuarter)
{
  const Model m = load ("quadrants");
  const TensorSpec &t = m.inputs[0];
  for (int q = 0; q < 4; ++q) {
    std::vector<float> img (size_t (t.c * t.h * t.w), 0.1f);
    for (int64_t c = 0; c < t.c; ++c)
      for (int64_t y = 0; y < t.h; ++y)
        for (int64_t x = 0; x < t.w; ++x)
          if ((y >= t.h / 2) == (q >= 2) && (x >= t.w / 2) == (q % 2 == 1))
            img[size_t ((c * t.h + y) * t.w + x)] = c == 1 ? 0.9f : 0.5f; /* any colour, bright */
    EXPECT_EQ (argmax (infer (m, img)), q) << "quadrant " << q;
  }
}

/* out[c*16 + y*4 + x] = mean of cell (y, x) of channel c (adaptive windows). */
std::vector<float> readout_reference (const TensorSpec &t, const std::vector<float> &img, int cells = 4)
{
  std::vector<float> ref;
  for (int64_t c = 0; c < t.c; ++c)
    for (int cy = 0; cy < cells; ++cy)
      for (int cx = 0; cx < cells; ++cx) {
        const int64_t y0 = cy * t.h / cells, y1 = ((cy + 1) * t.h + cells - 1) / cells;
        const int64_t x0 = cx * t.w / cells, x1 = ((cx + 1) * t.w + cells - 1) / cells;
        double s = 0;
        for (int64_t y = y0; y < y1; ++y)
          for (int64_t x = x0; x < x1; ++x)
            s += img[size_t ((c * t.h + y) * t.w + x)];
        ref.push_back (float (s / double ((y1 - y0) * (x1 - x0))));
      }
  return ref;
}

/* A picture where every cell and channel differs: R grows with x, G with y, B is a checkerboard. */
std::vector<float> picture (const TensorSpec &t)
{
  std::vector<float> img (size_t (t.c * t.h * t.w));
  for (int64_t c = 0; c < t.c; ++c)
    for (int64_t y = 0; y < t.h; ++y)
      for (int64_t x = 0; x < t.w; ++x) {
        const float v = c == 0   ? float (x) / float (t.w)
                        : c == 1 ? float (y) / float (t.h)
                                 : float (((x * 4 / t.w) + (y * 4 / t.h)) % 2);
        img[size_t ((c * t.h + y) * t.w + x)] = v;
      }
  return img;
}

class ReadoutModel : public testing::TestWithParam<const char *> {};

TEST_P (ReadoutModel, IsALowResolutionCopyOfTheInput)
{
  const Model m = load (GetParam ());
  const TensorSpec &t = m.inputs[0];
  const auto img = picture (t);
  const auto out = infer (m, img);
  const auto ref = readout_reference (t, img);
  ASSERT_EQ (out.size (), ref.size ());
  /* FP16 input (or INT8 at 1/127) and FP16 output: a few thousandths. */
  const float tol =
      m.inputs[0].type == tensor::ElemType::kInt8 || m.outputs[0].type == tensor::ElemType::kInt8 ? 0.012f
                                                                                                  : 0.002f;
  for (size_t i = 0; i < ref.size (); ++i)
    EXPECT_NEAR (out[i], ref[i], tol) << GetParam () << " cell " << i;
}

INSTANTIATE_TEST_SUITE_P (Variants, ReadoutModel,
                          testing::Values ("readout", "readout-w225-fp16-chw16",
                                           "readout-w225-fp16-dla_linear", "readout-w225-fp16-dla_hwc4",
                                           "readout-w225-int8-chw32", "readout-w225-int8-dla_linear",
                                           "readout-w225-int8-dla_hwc4", "readout-out-fp16-dla_linear",
                                           "readout-out-int8-chw32", "readout-grey",
                                           "readout-grey-fp16-dla_hwc4"));

TEST (GeneratedModels, RandomCnnGivesVariedFiniteLogits)
{
  const Model m = load ("random-cnn");
  const auto out = infer (m, picture (m.inputs[0]));
  ASSERT_EQ (out.size (), 10u);
  for (float v : out)
    EXPECT_TRUE (std::isfinite (v));
  EXPECT_GT (*std::max_element (out.begin (), out.end ()) - *std::min_element (out.begin (), out.end ()),
             0.01f);
  const Model sm = load ("random-cnn-softmax");
  const auto p = infer (sm, picture (sm.inputs[0]));
  float sum = 0;
  for (float v : p)
    sum += v;
  EXPECT_NEAR (sum, 1.f, 5e-3);
  EXPECT_EQ (argmax (p), argmax (out));
}

}  // namespace
