/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU executor's layer kinds against naive references written here (double sums, loops as the
 * definitions read), over a few shapes: grouped, depthwise and dilated convs with asymmetric pads,
 * pools with asymmetric pads, activations, eltwise with broadcast, concat of three, resize, scale;
 * the buffer plan; a graph with outputs in every layout packed through run_cpu. */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "buffer_plan.h"
#include "cpu_executor.h"
#include "test_models.h"

namespace {

using swdla::Layer;
using swdla::Model;
using swdla_test::random_dense;

Model from_spec (const std::string &body)
{
  return swdla_test::model_from_spec (body);
}

/* Every output of `m` on seeded random inputs, and the inputs. */
std::vector<std::vector<float>> run (const Model &m, std::vector<std::vector<float>> *inputs)
{
  for (size_t k = 0; k < m.inputs.size (); ++k)
    inputs->push_back (random_dense (m.inputs[k], uint32_t (k + 1)));
  return swdla::run_dense_cpu (m, *inputs);
}

const Layer &layer (const Model &m, const std::string &name)
{
  return m.layers[size_t (m.find_tensor (name)) - m.inputs.size ()];
}

void expect_near (const std::vector<float> &got, const std::vector<double> &want, const std::string &what)
{
  ASSERT_EQ (got.size (), want.size ()) << what;
  for (size_t i = 0; i < got.size (); ++i)
    ASSERT_NEAR (got[i], want[i], 2e-5 * (1 + std::fabs (want[i]))) << what << " element " << i;
}

/* A dense N x C x H x W tensor for the references. */
struct Dense {
  const std::vector<float> &v;
  int64_t c, h, w;
  double at (int64_t n, int64_t ch, int64_t y, int64_t x) const
  {
    return v[size_t (((n * c + ch) * h + y) * w + x)];
  }
};

/* Convolution as its definition reads: groups, dilation, four paddings (zeros), stride. */
std::vector<double> conv_ref (const Dense &in, int64_t batch, const Layer &l)
{
  const int64_t oh = (in.h + l.pt + l.pb - l.dy * (l.kh - 1) - 1) / l.sy + 1;
  const int64_t ow = (in.w + l.pl + l.pr - l.dx * (l.kw - 1) - 1) / l.sx + 1;
  const int64_t gin = in.c / l.groups, gout = l.out_c / l.groups;
  std::vector<double> out;
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t oc = 0; oc < l.out_c; ++oc)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          double s = l.bias.empty () ? 0 : l.bias[size_t (oc)];
          for (int64_t i = 0; i < gin; ++i)
            for (int64_t ky = 0; ky < l.kh; ++ky)
              for (int64_t kx = 0; kx < l.kw; ++kx) {
                const int64_t y = oy * l.sy + ky * l.dy - l.pt, x = ox * l.sx + kx * l.dx - l.pl;
                if (y >= 0 && y < in.h && x >= 0 && x < in.w)
                  s += double (l.weights[size_t (((oc * gin + i) * l.kh + ky) * l.kw + kx)]) *
                       in.at (n, oc / gout * gin + i, y, x);
              }
          out.push_back (s);
        }
  return out;
}

struct ConvCase {
  const char *what, *spec;
};
void PrintTo (const ConvCase &c, std::ostream *os)
{
  *os << c.what;
}

class Conv : public testing::TestWithParam<ConvCase> {};

TEST_P (Conv, EqualsItsDefinition)
{
  const Model m = from_spec (GetParam ().spec);
  std::vector<std::vector<float>> in;
  const auto out = run (m, &in);
  const auto &t = m.inputs[0];
  expect_near (out[0], conv_ref (Dense{in[0], t.c, t.h, t.w}, t.n, layer (m, "c")), GetParam ().what);
}

INSTANTIATE_TEST_SUITE_P (
    Shapes, Conv,
    testing::Values (ConvCase{"depthwise_asymmetric",
                              "input name=x n=2 c=6 h=9 w=7\nconv name=c out=6 k=3 g=6 sy=2 sx=1 pt=2 "
                              "pl=0 pb=1 pr=2 init=random seed=5\noutput name=y\n"},
                     ConvCase{"grouped_dilated",
                              "input name=x c=4 h=12 w=10\nconv name=c out=6 kh=3 kw=2 g=2 dy=2 dx=3 pt=2 "
                              "pl=1 pb=0 pr=1 init=random seed=6\noutput name=y\n"},
                     ConvCase{"depthwise_multiplier",
                              "input name=x c=3 h=8 w=8\nconv name=c out=6 k=3 g=3 d=2 p=1 s=2 "
                              "wtype=fp16 init=random seed=7 bias=none\noutput name=y\n"},
                     ConvCase{"dense_strided",
                              "input name=x c=5 h=11 w=13\nconv name=c out=4 kh=5 kw=3 sy=3 sx=2 pt=4 pl=2 "
                              "pb=0 pr=0 init=random seed=8\noutput name=y\n"}),
    [] (const testing::TestParamInfo<ConvCase> &i) { return std::string (i.param.what); });

/* Max or average over the window clipped to the input (padding neither wins nor counts). */
std::vector<double> pool_ref (const Dense &in, int64_t batch, const Layer &l, bool max)
{
  const int64_t oh = (in.h + l.pt + l.pb - l.kh) / l.sy + 1, ow = (in.w + l.pl + l.pr - l.kw) / l.sx + 1;
  std::vector<double> out;
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < in.c; ++c)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          double best = -1e300, sum = 0;
          int count = 0;
          for (int64_t y = oy * l.sy - l.pt; y < oy * l.sy - l.pt + l.kh; ++y)
            for (int64_t x = ox * l.sx - l.pl; x < ox * l.sx - l.pl + l.kw; ++x)
              if (y >= 0 && y < in.h && x >= 0 && x < in.w) {
                best = std::max (best, in.at (n, c, y, x));
                sum += in.at (n, c, y, x);
                ++count;
              }
          out.push_back (max ? best : sum / count);
        }
  return out;
}

TEST (Kinds, PoolsWithAsymmetricPadding)
{
  const Model m = from_spec (
      "input name=x n=2 c=3 h=9 w=8\nmaxpool name=mp in=x k=3 s=2 pt=2 pl=0 pb=1 pr=2\n"
      "avgpool name=ap in=x kh=2 kw=3 sy=1 sx=3 pt=0 pl=2 pb=1 pr=1\n"
      "output name=y1 from=mp\noutput name=y2 from=ap\n");
  std::vector<std::vector<float>> in;
  const auto out = run (m, &in);
  const Dense x{in[0], 3, 9, 8};
  expect_near (out[0], pool_ref (x, 2, layer (m, "mp"), true), "maxpool");
  expect_near (out[1], pool_ref (x, 2, layer (m, "ap"), false), "avgpool");
}

TEST (Kinds, Activations)
{
  const Model m = from_spec (
      "input name=x c=3 h=4 w=5\nleaky name=lk in=x alpha=0.2\nsigmoid name=sg in=x\n"
      "tanh name=th in=x\nclip name=cl in=x min=-0.5 max=0.25\nrelu name=rl in=x\n"
      "output name=a from=lk\noutput name=b from=sg\noutput name=c from=th\n"
      "output name=d from=cl\noutput name=e from=rl\n");
  std::vector<std::vector<float>> in;
  const auto out = run (m, &in);
  const std::vector<std::function<double (double)>> refs = {
      [] (double v) { return v >= 0 ? v : 0.2 * v; }, [] (double v) { return 1 / (1 + std::exp (-v)); },
      [] (double v) { return std::tanh (v); }, [] (double v) { return std::min (std::max (v, -0.5), 0.25); },
      [] (double v) { return std::max (v, 0.0); }};
  for (size_t k = 0; k < refs.size (); ++k) {
    std::vector<double> want;
    for (float v : in[0])
      want.push_back (refs[k](v));
    expect_near (out[k], want, m.outputs[k].name);
  }
}

TEST (Kinds, EltwiseEveryOpSameShapeAndPerChannel)
{
  std::string spec =
      "input name=x n=2 c=5 h=3 w=4\naddinput name=z n=2 c=5 h=3 w=4\naddinput name=v n=2 c=5 h=1 w=1\n";
  const char *ops[] = {"sum", "prod", "max", "min", "sub"};
  for (const char *op : ops)
    spec += std::string ("eltwise name=s_") + op + " op=" + op + " in=x,z\neltwise name=b_" + op +
            " op=" + op + " in=x,v\noutput name=o_s_" + op + " from=s_" + op + "\noutput name=o_b_" + op +
            " from=b_" + op + "\n";
  const Model m = from_spec (spec);
  std::vector<std::vector<float>> in;
  const auto out = run (m, &in);
  const std::function<double (double, double)> fn[] = {
      [] (double a, double b) { return a + b; }, [] (double a, double b) { return a * b; },
      [] (double a, double b) { return std::max (a, b); },
      [] (double a, double b) { return std::min (a, b); }, [] (double a, double b) { return a - b; }};
  for (size_t k = 0; k < 5; ++k) {
    std::vector<double> same, bcast;
    for (size_t i = 0; i < in[0].size (); ++i) {
      same.push_back (fn[k](in[0][i], in[1][i]));
      bcast.push_back (fn[k](in[0][i], in[2][i / 12])); /* one value per (image, channel): 3 x 4 plane */
    }
    expect_near (out[2 * k], same, std::string ("same shape ") + ops[k]);
    expect_near (out[2 * k + 1], bcast, std::string ("per channel ") + ops[k]);
  }
}

TEST (Kinds, ConcatOfThreeAndResize)
{
  const Model m = from_spec (
      "input name=a n=2 c=2 h=3 w=4\naddinput name=b n=2 c=3 h=3 w=4\naddinput name=c n=2 "
      "c=5 h=3 w=4\nconcat name=j in=a,b,c\nresize name=r2 in=a s=2\nresize name=r31 in=b "
      "sy=3 sx=1\noutput name=o1 from=j\noutput name=o2 from=r2\noutput name=o3 from=r31\n");
  std::vector<std::vector<float>> in;
  const auto out = run (m, &in);
  std::vector<double> cat;
  for (int64_t n = 0; n < 2; ++n)
    for (size_t k = 0; k < 3; ++k) {
      const int64_t plane = m.inputs[k].c * 12;
      cat.insert (cat.end (), in[k].begin () + n * plane, in[k].begin () + (n + 1) * plane);
    }
  expect_near (out[0], cat, "concat");
  auto resize = [] (const Dense &d, int64_t sy, int64_t sx) {
    std::vector<double> r;
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t c = 0; c < d.c; ++c)
        for (int64_t y = 0; y < d.h * sy; ++y)
          for (int64_t x = 0; x < d.w * sx; ++x)
            r.push_back (d.at (n, c, y / sy, x / sx));
    return r;
  };
  expect_near (out[1], resize (Dense{in[0], 2, 3, 4}, 2, 2), "resize 2x");
  expect_near (out[2], resize (Dense{in[1], 3, 3, 4}, 3, 1), "resize 3x1");
}

TEST (Kinds, ScalePerChannelUniformAndWithoutBias)
{
  const Model m = from_spec (
      "input name=x n=2 c=3 h=2 w=2\nscale name=pc in=x weights=2,-1,0.5 bias=1,2,3\n"
      "scale name=un in=x weights=3 bias=-1\nscale name=nb in=x weights=2,3,4\n"
      "output name=a from=pc\noutput name=b from=un\noutput name=c from=nb\n");
  std::vector<std::vector<float>> in;
  const auto out = run (m, &in);
  std::vector<double> pc, un, nb;
  const double w[3] = {2, -1, 0.5}, b[3] = {1, 2, 3};
  for (size_t i = 0; i < in[0].size (); ++i) {
    const size_t c = (i / 4) % 3;
    pc.push_back (in[0][i] * w[c] + b[c]);
    un.push_back (in[0][i] * 3.0 - 1);
    nb.push_back (in[0][i] * (2.0 + double (c)));
  }
  expect_near (out[0], pc, "per channel");
  expect_near (out[1], un, "uniform");
  expect_near (out[2], nb, "no bias");
}

/* No layer writes into a buffer that holds a tensor still to be read, and a chain reuses buffers. */
TEST (BufferPlan, NeverOverwritesALiveTensor)
{
  std::string spec = "input name=x c=4 h=6 w=6\nconv name=a out=8 k=3 p=1 init=random seed=1\nrelu name=b\n";
  for (int i = 0; i < 6; ++i)
    spec += "relu name=r" + std::to_string (i) + "\n";
  spec += "eltwise name=e op=sum in=r5,b\nconcat name=j in=e,a\noutput name=y from=j\noutput name=z from=b\n";
  const Model m = from_spec (spec);
  const swdla::BufferPlan plan = swdla::plan_buffers (m);
  std::vector<int64_t> last (m.tensor_count (), -1);
  for (size_t j = 0; j < m.layers.size (); ++j)
    for (int32_t id : m.layers[j].inputs)
      last[size_t (id)] = int64_t (j);
  for (const auto &o : m.outputs)
    last[size_t (o.source)] = int64_t (m.layers.size ());
  for (size_t j = 0; j < m.layers.size (); ++j) {
    const int r = plan.slot[size_t (m.result_id (j))];
    for (int32_t id = 0; id < m.result_id (j); ++id) {
      if (last[size_t (id)] >= int64_t (j)) {
        EXPECT_NE (plan.slot[size_t (id)], r) << "layer " << j << " overwrites tensor " << id;
      }
    }
    EXPECT_GE (plan.floats[size_t (r)], m.batch () * m.shapes[size_t (m.result_id (j))].count ());
  }
  EXPECT_LT (plan.floats.size (), m.tensor_count () / 2) << "the chain of relus reuses buffers";
}

/* A graph with outputs in every layout and type, through run_cpu: each output's bytes hold its
 * source's values (FP16 rounded, INT8 quantised) and zero in every byte no element owns. */
TEST (MultiOutput, EveryLayoutPackedFromItsSource)
{
  const Model m = from_spec (
      "input name=x n=2 c=3 h=5 w=35\naddinput name=q layout=chw32 type=int8 scale=1/64 n=2 c=3 h=5 w=35\n"
      "eltwise name=s op=sum in=x,q\nconv name=f in=s out=20 k=1 init=random seed=3\n"
      "conv name=rgb in=s out=3 k=1 init=random seed=4\nconv name=rgba in=s out=4 k=1 init=random seed=5\n"
      "output name=o1 from=f layout=chw16 type=fp16\noutput name=o2 from=f layout=chw32 type=int8 "
      "scale=1/32\n"
      "output name=o3 from=f layout=dla_linear type=fp16\noutput name=o4 from=f layout=dla_linear type=int8 "
      "scale=1/32\noutput name=o5 from=rgb layout=dla_hwc4 type=fp16\noutput name=o6 from=rgba "
      "layout=dla_hwc4 "
      "type=int8 scale=1/32\noutput name=o7 from=x layout=dla_linear type=fp16\n");
  std::vector<std::vector<uint8_t>> in, out;
  std::vector<const uint8_t *> in_ptrs;
  std::vector<uint8_t *> out_ptrs;
  std::vector<std::vector<float>> dense;
  for (size_t k = 0; k < m.inputs.size (); ++k) {
    tensor::View v;
    ASSERT_TRUE (m.inputs[k].view (&v));
    in.emplace_back (size_t (v.size));
    swdla::pack_tensor (m.inputs[k], random_dense (m.inputs[k], uint32_t (k + 7)).data (),
                        in.back ().data ());
    dense.push_back (swdla::unpack_tensor (m.inputs[k], in.back ().data ())); /* as the DLA reads it */
    in_ptrs.push_back (in.back ().data ());
  }
  for (const auto &t : m.outputs) {
    tensor::View v;
    ASSERT_TRUE (t.view (&v));
    out.emplace_back (size_t (v.size), 0xee);
  }
  for (auto &o : out)
    out_ptrs.push_back (o.data ());
  swdla::run_cpu (m, in_ptrs, out_ptrs);
  const auto want = swdla::run_dense_cpu (m, dense);
  for (size_t k = 0; k < m.outputs.size (); ++k) {
    const swdla::TensorSpec &t = m.outputs[k];
    const auto got = swdla::unpack_tensor (t, out[k].data ());
    ASSERT_EQ (got.size (), want[k].size ()) << t.name;
    for (size_t i = 0; i < got.size (); ++i) {
      const float tol =
          t.type == tensor::ElemType::kInt8 ? t.scale / 2 : 1e-3f * (1 + std::fabs (want[k][i]));
      const float clamped = t.type == tensor::ElemType::kInt8
                                ? std::min (std::max (want[k][i], -128 * t.scale), 127 * t.scale)
                                : want[k][i];
      ASSERT_NEAR (got[i], clamped, tol) << t.name << " element " << i;
    }
    tensor::View v;
    t.view (&v);
    std::vector<bool> owned (out[k].size ());
    for (int64_t n = 0; n < t.n; ++n)
      for (int64_t c = 0; c < t.c; ++c)
        for (int64_t y = 0; y < t.h; ++y)
          for (int64_t x = 0; x < t.w; ++x)
            for (int b = 0; b < tensor::elem_size (t.type); ++b)
              owned[size_t (v.offset (n, c, y, x) + b)] = true;
    for (size_t b = 0; b < owned.size (); ++b)
      if (!owned[b]) {
        ASSERT_EQ (out[k][b], 0) << t.name << " pad byte " << b;
      }
  }
}

}  // namespace
