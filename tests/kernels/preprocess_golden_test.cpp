/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Goldens that pin each convention of the CPU reference (preprocess.h) with hand-computed values:
 * colour matrices and ranges, chroma siting, half-pixel bilinear, antialias weights, letterbox and
 * center-crop geometry, INT8 rounding and saturation, zero padding, batch slots, refusals. */
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/preprocess_plan.h"
#include "preprocess_frames.h"

namespace {

using namespace preprocess;
using preprocess_test::fp16;
using preprocess_test::HostFrame;
using preprocess_test::HostTensor;
using preprocess_test::make_frame;
using tensor::ElemType;
using tensor::Layout;

Params stretch (bool antialias)
{
  Params p = default_params ();
  p.antialias = antialias;
  return p;
}

/* Runs the reference over the whole frame into batch 0 and asserts success. */
void run (const SourceView &s, HostTensor &t, const Params &p)
{
  std::string err;
  ASSERT_EQ (reference (s, t.view, t.data, p, nullptr, 0, nullptr, &err), Status::kOk) << err;
}

/* Published inverse-matrix constants (Rec. 601/709/2020 tables, not derived from Kr/Kb here). */
struct MatrixCase {
  Matrix m;
  double rv, gu, gv, bu;
};

/* Printed by name: gtest would otherwise dump the struct's padding bytes (valgrind noise). */
void PrintTo (const MatrixCase &m, std::ostream *os)
{
  *os << "BT." << (m.m == Matrix::kBT601 ? "601" : m.m == Matrix::kBT709 ? "709" : "2020");
}

class SolidColour : public testing::TestWithParam<std::tuple<MatrixCase, Range, PixelFormat>> {};

TEST_P (SolidColour, MatchesPublishedCoefficients)
{
  const auto [mc, range, fmt] = GetParam ();
  HostFrame f = make_frame (fmt, 6, 4);
  const int Y = 120, U = 110, V = 150;
  for (int y = 0; y < f.h; ++y)
    for (int x = 0; x < f.w; ++x)
      f.y (x, y) = Y;
  for (int y = 0; y < f.ch (); ++y)
    for (int x = 0; x < f.cw (); ++x) {
      f.u (x, y) = U;
      f.v (x, y) = V;
    }
  HostTensor t (Layout::kDlaLinear, ElemType::kFp16, 1, 3, 5);
  run (f.view (mc.m, range), t, stretch (true));

  const bool full = range == Range::kFull;
  const double yn = full ? Y / 255.0 : (Y - 16) / 219.0;
  const double un = (U - 128) / (full ? 255.0 : 224.0), vn = (V - 128) / (full ? 255.0 : 224.0);
  const double rgb[3] = {yn + mc.rv * vn, yn - mc.gu * un - mc.gv * vn, yn + mc.bu * un};
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 5; ++x)
        EXPECT_NEAR (t.at (0, c, y, x), rgb[c], 2e-3) << "channel " << c << " at " << x << "," << y;
}

INSTANTIATE_TEST_SUITE_P (
    Matrices, SolidColour,
    testing::Combine (testing::Values (MatrixCase{Matrix::kBT601, 1.402, 0.344136, 0.714136, 1.772},
                                       MatrixCase{Matrix::kBT709, 1.5748, 0.187324, 0.468124, 1.8556},
                                       MatrixCase{Matrix::kBT2020, 1.4746, 0.164553, 0.571353, 1.8814}),
                      testing::Values (Range::kLimited, Range::kFull),
                      testing::Values (PixelFormat::kNV12, PixelFormat::kI420)));

/* Limited-range black and white are exactly 0 and 1; values beyond them clamp. */
TEST (PreprocessGolden, LimitedRangeEndsAndClamp)
{
  for (const int Y : {16, 235, 5, 250}) {
    HostFrame f = make_frame (PixelFormat::kNV12, 4, 4);
    for (auto &b : f.data[0])
      b = uint8_t (Y);
    for (auto &b : f.data[1])
      b = 128;
    HostTensor t (Layout::kChw16, ElemType::kFp16, 1, 2, 2);
    run (f.view (Matrix::kBT709, Range::kLimited), t, stretch (true));
    const float want = Y <= 16 ? 0.f : Y >= 235 ? 1.f : -1.f;
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ (t.at (0, c, 1, 1), want) << "Y=" << Y << " channel " << c;
  }
}

/* Chroma columns 100 | 200 under a 2x chroma upsample: centred siting puts output x=1 at chroma
 * 0.75 (V = 125), co-sited at 1.0 (V = 150). Full-range BT.601 R = Y + 1.402 (V - 128). */
TEST (PreprocessGolden, ChromaSiting)
{
  HostFrame f = make_frame (PixelFormat::kNV12, 4, 4);
  for (auto &b : f.data[0])
    b = 128;
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 2; ++x) {
      f.u (x, y) = 128;
      f.v (x, y) = x == 0 ? 100 : 200;
    }
  const double centred[4] = {100, 125, 175, 200}, cosited[4] = {100, 150, 200, 200};
  for (const bool co : {false, true}) {
    HostTensor t (Layout::kDlaLinear, ElemType::kFp16, 1, 4, 4);
    run (f.view (Matrix::kBT601, Range::kFull, co, false), t, stretch (false));
    for (int x = 0; x < 4; ++x) {
      const double v = co ? cosited[x] : centred[x];
      const double r = std::fmin (255.0, 128 + 1.402 * (v - 128)) / 255.0;
      EXPECT_NEAR (t.at (0, 0, 0, x), r, 2e-3) << (co ? "co-sited" : "centred") << " x=" << x;
    }
  }
  /* Vertical: the same along y with rows 100 / 200. */
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 2; ++x)
      f.v (x, y) = y == 0 ? 100 : 200;
  HostTensor t (Layout::kDlaLinear, ElemType::kFp16, 1, 4, 4);
  run (f.view (Matrix::kBT601, Range::kFull, false, true), t, stretch (false));
  for (int y = 0; y < 4; ++y)
    EXPECT_NEAR (t.at (0, 0, y, 0), std::fmin (255.0, 128 + 1.402 * (cosited[y] - 128)) / 255.0, 2e-3)
        << "y=" << y;
}

/* A packed row of given R values resampled to `out` pixels; returns the R channel * 255. */
std::vector<float> resample_row (const std::vector<int> &in, int out, bool antialias)
{
  HostFrame f = make_frame (PixelFormat::kRGBx, int (in.size ()), 1);
  for (size_t x = 0; x < in.size (); ++x)
    f.rgb (int (x), 0, 0) = uint8_t (in[x]);
  HostTensor t (Layout::kDlaLinear, ElemType::kFp16, 1, 1, out);
  run (f.view (), t, stretch (antialias));
  std::vector<float> r;
  for (int x = 0; x < out; ++x)
    r.push_back (t.at (0, 0, 0, x) * 255.f);
  return r;
}

/* Half-pixel centres: 2 -> 4 samples at 0.25, 0.75, 1.25, 1.75 (edge clamp), antialias or not. */
TEST (PreprocessGolden, BilinearUpscaleHalfPixel)
{
  for (const bool aa : {false, true}) {
    const auto r = resample_row ({0, 100}, 4, aa);
    const float want[4] = {0, 25, 75, 100};
    for (int x = 0; x < 4; ++x)
      EXPECT_NEAR (r[x], want[x], 0.06) << "x=" << x << " antialias " << aa;
  }
}

/* 4 -> 2: bilinear takes the two middle taps at 1.0 and 3.0; antialias widens the triangle to 2
 * pixels: weights .75 .75 .25 (first tap cut at the edge) over 1.75, as Pillow. */
TEST (PreprocessGolden, DownscaleAntialiasWeights)
{
  const auto plain = resample_row ({0, 40, 80, 120}, 2, false);
  EXPECT_NEAR (plain[0], 20.f, 0.02);
  EXPECT_NEAR (plain[1], 100.f, 0.06);
  const auto aa = resample_row ({0, 40, 80, 120}, 2, true);
  EXPECT_NEAR (aa[0], (40 * .75 + 80 * .25) / 1.75, 0.02);
  EXPECT_NEAR (aa[1], (40 * .25 + 80 * .75 + 120 * .75) / 1.75, 0.06);
}

TEST (PreprocessGolden, LetterboxGeometry)
{
  detail::AxisFit x, y;
  detail::fit_axes (ResizeMode::kLetterbox, 1.f, 1920, 1080, 224, 224, &x, &y);
  EXPECT_EQ (x.size, 224);
  EXPECT_EQ (x.off, 0);
  EXPECT_EQ (y.size, 126); /* 224 * 1080 / 1920 = 126 */
  EXPECT_EQ (y.off, -49);  /* (224 - 126) / 2 */
  /* PAL 720x576 with pixel aspect 16/15 displays 768x576 = 4:3. */
  detail::fit_axes (ResizeMode::kLetterbox, 1.f, 720 * 16, 576 * 15, 224, 224, &x, &y);
  EXPECT_EQ (y.size, 168);
  EXPECT_EQ (y.off, -28);
  /* Tall: 2.5 rounds half up to 3, placed at floor((5 - 3) / 2) = 1. */
  detail::fit_axes (ResizeMode::kLetterbox, 1.f, 1, 2, 5, 5, &x, &y);
  EXPECT_EQ (x.size, 3);
  EXPECT_EQ (x.off, -1);
  EXPECT_EQ (y.size, 5);
}

/* Pad rows hold the pad colour, normalised; content rows the image. */
TEST (PreprocessGolden, LetterboxPadPixels)
{
  HostFrame f = make_frame (PixelFormat::kRGBA, 8, 2);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 8; ++x)
      for (int c = 0; c < 3; ++c)
        f.rgb (x, y, c) = 200;
  HostTensor t (Layout::kDlaHwc4, ElemType::kFp16, 1, 8, 8);
  Params p = default_params ();
  p.mode = ResizeMode::kLetterbox;
  p.pad_rgb[0] = 10;
  p.pad_rgb[1] = 20;
  p.pad_rgb[2] = 30;
  p.mean[2] = 0.5f;
  p.std[2] = 0.25f;
  run (f.view (), t, p);
  /* 8x2 into 8x8: content 8x2 at rows 3..4. */
  for (int y = 0; y < 8; ++y) {
    const bool content = y == 3 || y == 4;
    EXPECT_EQ (t.at (0, 0, y, 5), fp16 ((content ? 200.f : 10.f) / 255.f)) << "row " << y;
    EXPECT_EQ (t.at (0, 2, y, 5), fp16 (((content ? 200.f : 30.f) / 255.f - 0.5f) / 0.25f)) << "row " << y;
  }
}

/* Resize(256) + CenterCrop(224) of torchvision: 640x480 -> 341x256, crop offsets round(58.5) = 58
 * (half to even, Python's round) and 16. */
TEST (PreprocessGolden, CenterCropGeometry)
{
  detail::AxisFit x, y;
  detail::fit_axes (ResizeMode::kCenterCrop, 0.875f, 640, 480, 224, 224, &x, &y);
  EXPECT_EQ (x.size, 341);
  EXPECT_EQ (x.off, 58);
  EXPECT_EQ (y.size, 256);
  EXPECT_EQ (y.off, 16);
  detail::fit_axes (ResizeMode::kCenterCrop, 0.875f, 1080, 1920, 224, 224, &x, &y);
  EXPECT_EQ (x.size, 256);
  EXPECT_EQ (y.size, 455); /* int(256 * 1920 / 1080) */
  EXPECT_EQ (y.off, 116);  /* round(115.5) = 116 (even) */
  detail::fit_axes (ResizeMode::kCenterCrop, 1.f, 300, 200, 100, 100, &x, &y);
  EXPECT_EQ (x.size, 150);
  EXPECT_EQ (x.off, 25);
  EXPECT_EQ (y.size, 100);
  EXPECT_EQ (y.off, 0);
}

/* On a linear ramp bilinear is exact: output (0,0) of the center crop samples x = 58.5 * 256 / 341. */
TEST (PreprocessGolden, CenterCropSamplesWhereTorchvisionDoes)
{
  HostFrame f = make_frame (PixelFormat::kBGRx, 256, 192);
  for (int y = 0; y < 192; ++y)
    for (int x = 0; x < 256; ++x) {
      f.rgb (x, y, 0) = uint8_t (x);
      f.rgb (x, y, 1) = uint8_t (y);
    }
  HostTensor t (Layout::kDlaLinear, ElemType::kFp16, 1, 224, 224);
  Params p = default_params ();
  p.mode = ResizeMode::kCenterCrop;
  run (f.view (), t, p);
  const double cx = 58.5 * 256.0 / 341.0 - 0.5, cy = 16.5 * 192.0 / 256.0 - 0.5;
  EXPECT_NEAR (t.at (0, 0, 0, 0) * 255.0, cx, 0.04);
  EXPECT_NEAR (t.at (0, 1, 0, 0) * 255.0, cy, 0.04);
  EXPECT_NEAR (t.at (0, 0, 0, 100) * 255.0, (158.5) * 256.0 / 341.0 - 0.5, 0.1);
}

/* INT8: round(value / scale) half to even, saturated. */
TEST (PreprocessGolden, Int8RoundingAndSaturation)
{
  struct Case {
    int pixel;
    float mean, std, scale;
    int want;
  };
  const Case cases[] = {
      {255, 0.375f, 1.f, 0.25f, 2},      /* 2.5 -> 2 (all exact in binary) */
      {255, 0.125f, 1.f, 0.25f, 4},      /* 3.5 -> 4 */
      {255, 1.625f, 1.f, 0.25f, -2},     /* -2.5 -> -2 */
      {255, 0.f, 0.5f, 0.01f, 127},      /* 200 -> 127 */
      {0, 1.f, 1.f, 0.005f, -128},       /* -200 -> -128 */
      {255, 0.f, 1.f, 1.f / 127.f, 127}, /* exactly 127 */
  };
  for (const Case &k : cases) {
    HostFrame f = make_frame (PixelFormat::kRGBx, 2, 2);
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x)
        f.rgb (x, y, 0) = uint8_t (k.pixel);
    HostTensor t (Layout::kChw32, ElemType::kInt8, 1, 2, 2);
    Params p = default_params ();
    p.mean[0] = k.mean;
    p.std[0] = k.std;
    p.int8_scale = k.scale;
    run (f.view (), t, p);
    EXPECT_EQ (t.at (0, 0, 1, 1), float (k.want)) << "pixel " << k.pixel;
  }
}

/* BGR order and per-channel mean/std index the tensor channel. */
TEST (PreprocessGolden, ChannelOrderAndNormalisation)
{
  HostFrame f = make_frame (PixelFormat::kBGRA, 3, 3);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 3; ++x) {
      f.rgb (x, y, 0) = 10;
      f.rgb (x, y, 1) = 20;
      f.rgb (x, y, 2) = 30;
    }
  HostTensor t (Layout::kChw16, ElemType::kFp16, 1, 3, 3);
  Params p = default_params ();
  p.order = ChannelOrder::kBGR;
  const float mean[3] = {0.406f, 0.456f, 0.485f}, stdv[3] = {0.225f, 0.224f, 0.229f};
  for (int c = 0; c < 3; ++c) {
    p.mean[c] = mean[c];
    p.std[c] = stdv[c];
  }
  run (f.view (), t, p);
  const float bgr[3] = {30.f, 20.f, 10.f};
  for (int c = 0; c < 3; ++c)
    EXPECT_EQ (t.at (0, c, 2, 2), fp16 ((bgr[c] / 255.f - mean[c]) / stdv[c])) << "channel " << c;
}

/* Every byte of a written slot that is not a channel value is zero: chw16 lanes 3..15, hwc4 lane
 * 3, dla_linear rows of 225 FP16 (450 bytes) padded to 512, INT8 chw32. */
TEST (PreprocessGolden, PaddingIsZero)
{
  const struct {
    Layout l;
    ElemType t;
    int w;
  } cases[] = {{Layout::kChw16, ElemType::kFp16, 7},       {Layout::kChw32, ElemType::kInt8, 7},
               {Layout::kDlaLinear, ElemType::kFp16, 225}, {Layout::kDlaLinear, ElemType::kInt8, 300},
               {Layout::kDlaHwc4, ElemType::kFp16, 225},   {Layout::kDlaHwc4, ElemType::kInt8, 7}};
  for (const auto &k : cases) {
    HostFrame f = make_frame (PixelFormat::kRGBA, 9, 5);
    preprocess_test::fill_pattern (f, 3);
    HostTensor t (k.l, k.t, 1, 3, k.w);
    Params p = default_params ();
    p.mean[0] = p.mean[1] = p.mean[2] = -0.5f; /* no value is zero */
    run (f.view (), t, p);
    std::vector<bool> value (size_t (t.view.size), false);
    for (int c = 0; c < 3; ++c)
      for (int y = 0; y < 3; ++y)
        for (int x = 0; x < k.w; ++x)
          for (int b = 0; b < tensor::elem_size (k.t); ++b)
            value[size_t (t.view.offset (0, c, y, x) + b)] = true;
    int64_t zeros = 0;
    for (int64_t i = 0; i < t.view.size; ++i) {
      if (value[size_t (i)])
        continue;
      ASSERT_EQ (t.data[i], 0) << tensor::layout_name (k.l) << " byte " << i
                               << " is not a value and not zero";
      ++zeros;
    }
    EXPECT_GT (zeros, 0) << tensor::layout_name (k.l);
  }
}

/* ROIs fill their own slots, each as if cropped alone; a slot no ROI names is untouched. */
TEST (PreprocessGolden, RoiBatchSlots)
{
  HostFrame f = make_frame (PixelFormat::kNV12, 37, 23);
  preprocess_test::fill_pattern (f, 9);
  const Roi rois[3] = {{{3, 1, 10, 11}, 2}, {{0, 0, 0, 0}, 0}, {{30, 20, 7, 3}, 3}};
  HostTensor t (Layout::kChw16, ElemType::kFp16, 4, 6, 5);
  Params p = default_params ();
  std::string err;
  ASSERT_EQ (reference (f.view (), t.view, t.data, p, rois, 3, nullptr, &err), Status::kOk) << err;
  for (const Roi &r : rois) {
    HostTensor one (Layout::kChw16, ElemType::kFp16, 1, 6, 5);
    p.crop = r.crop;
    run (f.view (), one, p);
    EXPECT_EQ (0,
               std::memcmp (one.data, t.data + r.batch_index * t.view.batch_stride, size_t (one.view.size)))
        << "slot " << r.batch_index;
  }
  for (int64_t i = 0; i < t.view.batch_stride; ++i)
    ASSERT_EQ (t.data[t.view.batch_stride + i], 0xab) << "slot 1 byte " << i << " was written";
}

/* I420 and NV12 with the same samples give the same tensor; odd sizes read the last chroma
 * row and column (valgrind checks the planes, allocated to the byte). */
TEST (PreprocessGolden, OddSizesI420MatchesNV12)
{
  HostFrame nv = make_frame (PixelFormat::kNV12, 5, 3), yv = make_frame (PixelFormat::kI420, 5, 3, 4);
  preprocess_test::fill_pattern (nv, 1);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x)
      yv.y (x, y) = nv.y (x, y);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x) {
      yv.u (x, y) = nv.u (x, y);
      yv.v (x, y) = nv.v (x, y);
    }
  HostTensor a (Layout::kDlaHwc4, ElemType::kFp16, 1, 7, 9), b (Layout::kDlaHwc4, ElemType::kFp16, 1, 7, 9);
  run (nv.view (Matrix::kBT709, Range::kFull, true, false), a, stretch (true));
  run (yv.view (Matrix::kBT709, Range::kFull, true, false), b, stretch (true));
  EXPECT_EQ (0, std::memcmp (a.data, b.data, size_t (a.view.size)));
}

/* Each refusal names its reason and leaves the tensor untouched. */
TEST (PreprocessGolden, RefusalsSayWhy)
{
  HostFrame f = make_frame (PixelFormat::kNV12, 16, 8);
  HostTensor t (Layout::kChw16, ElemType::kFp16, 2, 4, 4);
  const Params good = default_params ();
  struct Case {
    const char *what;
    Status want;
    const char *needle;
  };
  auto check = [&] (const Case &k, SourceView s, tensor::View v, void *ptr, Params p, const Roi *r, int n) {
    std::string err;
    EXPECT_EQ (reference (s, v, ptr, p, r, n, nullptr, &err), k.want) << k.what;
    EXPECT_NE (err.find (k.needle), std::string::npos) << k.what << ": '" << err << "'";
  };
  SourceView s = f.view ();
  s.width = 0;
  check ({"zero width", Status::kInvalidArgument, "source size"}, s, t.view, t.data, good, nullptr, 0);
  s = f.view ();
  s.planes[1] = nullptr;
  check ({"null UV", Status::kInvalidArgument, "plane 1 (UV) is null"}, s, t.view, t.data, good, nullptr, 0);
  s = f.view ();
  s.pitches[0] = 15;
  check ({"short pitch", Status::kInvalidArgument, "pitch 15"}, s, t.view, t.data, good, nullptr, 0);
  s = f.view ();
  s.format = PixelFormat (42);
  check ({"bad format", Status::kUnsupported, "pixel format 42"}, s, t.view, t.data, good, nullptr, 0);
  HostFrame rgba = make_frame (PixelFormat::kRGBA, 4, 4, 4);
  s = rgba.view ();
  s.planes[0] = rgba.data[0].data () + 1;
  check ({"misaligned RGBA", Status::kInvalidArgument, "not a multiple of 4"}, s, t.view, t.data, good,
         nullptr, 0);
  tensor::View v = t.view;
  v.c = 4;
  check ({"4 channels", Status::kUnsupported, "4 channels"}, f.view (), v, t.data, good, nullptr, 0);
  v = t.view;
  v.type = ElemType::kInt8;
  check ({"chw16 int8", Status::kUnsupported, "does not hold int8"}, f.view (), v, t.data, good, nullptr, 0);
  check ({"null tensor", Status::kInvalidArgument, "pointer is null"}, f.view (), t.view, nullptr, good,
         nullptr, 0);
  check ({"misaligned tensor", Status::kInvalidArgument, "multiples of 16"}, f.view (), t.view, t.data + 2,
         good, nullptr, 0);
  Params p = good;
  p.crop = Rect{10, 0, 7, 4};
  check ({"crop past edge", Status::kInvalidArgument, "ends outside"}, f.view (), t.view, t.data, p, nullptr,
         0);
  p.crop = Rect{-1, 0, 2, 2};
  check ({"negative crop", Status::kInvalidArgument, "negative"}, f.view (), t.view, t.data, p, nullptr, 0);
  p = good;
  p.std[1] = 0.f;
  check ({"zero std", Status::kInvalidArgument, "std[1]"}, f.view (), t.view, t.data, p, nullptr, 0);
  p = good;
  p.mode = ResizeMode::kCenterCrop;
  p.crop_fraction = 1.5f;
  check ({"fraction", Status::kInvalidArgument, "crop fraction"}, f.view (), t.view, t.data, p, nullptr, 0);
  const Roi twice[2] = {{{0, 0, 0, 0}, 1}, {{0, 0, 4, 4}, 1}};
  check ({"same slot", Status::kInvalidArgument, "both write batch slot 1"}, f.view (), t.view, t.data, good,
         twice, 2);
  const Roi far[1] = {{{0, 0, 0, 0}, 2}};
  check ({"slot past batch", Status::kInvalidArgument, "batch slot 2"}, f.view (), t.view, t.data, good, far,
         1);
  check ({"null rois", Status::kInvalidArgument, "ROI array is null"}, f.view (), t.view, t.data, good,
         nullptr, 1);
  for (int64_t i = 0; i < t.view.size; ++i)
    ASSERT_EQ (t.data[i], 0xab) << "byte " << i << " written by a refused call";
}

}  // namespace
