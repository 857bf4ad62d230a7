/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA kernel against the CPU reference on many combinations: every format, siting, matrix,
 * range, geometry, antialias setting, channel order, layout and type; odd, tiny, 4K and
 * smaller-than-tensor sources; pitched planes; padded tensor rows; ROI batches. Values agree to 1
 * FP16 ulp (INT8: 1 step); every other byte must be identical (zero padding, untouched slots).
 * Planes and tensors are allocated to the byte so compute-sanitizer memcheck sees overreads. */
#include <gtest/gtest.h>

#include "device_support.h"
#if defined(PREPROCESS_EMULATE_TEST) && __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <vector>

#include "preprocess_frames.h"

namespace {

using namespace preprocess;
using preprocess_test::DeviceBuffer;
using preprocess_test::fp16_ulps;
using preprocess_test::HostFrame;
using preprocess_test::HostTensor;
using tensor::ElemType;
using tensor::Layout;

struct Case {
  std::string name;
  PixelFormat format = PixelFormat::kNV12;
  int w = 1920, h = 1080, extra = 0;
  Matrix matrix = Matrix::kBT601;
  Range range = Range::kLimited;
  bool cosited_h = false, cosited_v = false;
  Layout layout = Layout::kChw16;
  ElemType type = ElemType::kFp16;
  int tn = 1, th = 224, tw = 224;
  std::function<void (Params &)> params;
  std::vector<Roi> rois;
};

std::ostream &operator<< (std::ostream &os, const Case &k)
{
  return os << k.name;
}

void expect_matches_reference (const Case &k)
{
#if defined(PREPROCESS_EMULATE_TEST) && defined(RUNNING_ON_VALGRIND)
  if (RUNNING_ON_VALGRIND && int64_t (k.w) * k.h > 1920 * 1080)
    GTEST_SKIP () << "sources above 1080p are too slow to emulate under valgrind";
#endif
  HostFrame frame = preprocess_test::make_frame (k.format, k.w, k.h, k.extra);
  preprocess_test::fill_pattern (frame, uint32_t (k.w * 31 + k.h));
  Params p = default_params ();
  if (k.params)
    k.params (p);
  const SourceView host_src = frame.view (k.matrix, k.range, k.cosited_h, k.cosited_v);

  HostTensor want (k.layout, k.type, k.tn, k.th, k.tw, 0xab);
  const Roi *rois = k.rois.empty () ? nullptr : k.rois.data ();
  const int n_rois = int (k.rois.size ());
  std::string err;
  ASSERT_EQ (reference (host_src, want.view, want.data, p, rois, n_rois, nullptr, &err), Status::kOk) << err;

  std::vector<std::unique_ptr<DeviceBuffer>> planes;
  SourceView dev_src = host_src;
  for (int i = 0; i < frame.planes; ++i) {
    planes.emplace_back (new DeviceBuffer (frame.data[i].size ()));
    ASSERT_EQ (
        cudaMemcpy (planes.back ()->p, frame.data[i].data (), frame.data[i].size (), cudaMemcpyHostToDevice),
        cudaSuccess);
    dev_src.planes[i] = planes.back ()->p;
  }
  DeviceBuffer dst (size_t (want.view.size));
  ASSERT_EQ (cudaMemset (dst.p, 0xab, size_t (want.view.size)), cudaSuccess);
  ASSERT_EQ (launch (dev_src, want.view, dst.p, p, rois, n_rois, nullptr, &err), Status::kOk) << err;
  ASSERT_EQ (cudaDeviceSynchronize (), cudaSuccess) << cudaGetErrorString (cudaGetLastError ());
  std::vector<uint8_t> got (size_t (want.view.size));
  ASSERT_EQ (cudaMemcpy (got.data (), dst.p, got.size (), cudaMemcpyDeviceToHost), cudaSuccess);

  /* Values first (to 1 ulp / 1 step), then every other byte exactly. */
  const tensor::View &v = want.view;
  const int es = tensor::elem_size (v.type);
  std::vector<bool> is_value (got.size (), false);
  float min_std = 1.f;
  for (int c = 0; c < 3; ++c)
    min_std = std::fmin (min_std, std::fabs (p.std[c]));
  /* Near zero the FP16 ulp shrinks below float's error on the 0..255 pixel sums; this absolute
   * floor is 1/64 of an 8-bit code step at std 1. */
  const float abs_floor = std::ldexp (1.f, -14) / min_std;
  int64_t bad = 0;
  std::ostringstream first;
  for (int64_t n = 0; n < v.n; ++n)
    for (int64_t c = 0; c < v.c; ++c)
      for (int64_t y = 0; y < v.h; ++y)
        for (int64_t x = 0; x < v.w; ++x) {
          const int64_t o = v.offset (n, c, y, x);
          for (int b = 0; b < es; ++b)
            is_value[size_t (o + b)] = true;
          if (want.data[o] == 0xab && (es == 1 || want.data[o + 1] == 0xab) && got[size_t (o)] == 0xab &&
              (es == 1 || got[size_t (o) + 1] == 0xab))
            continue; /* a slot neither wrote: every byte of the value still 0xab */
          bool ok;
          float a, g;
          if (v.type == ElemType::kFp16) {
            uint16_t ha, hg;
            std::memcpy (&ha, want.data + o, 2);
            std::memcpy (&hg, got.data () + o, 2);
            a = tensor::half_to_float (ha);
            g = tensor::half_to_float (hg);
            ok = fp16_ulps (ha, hg) <= 1 || std::fabs (a - g) <= abs_floor;
          } else {
            a = float (int8_t (want.data[o]));
            g = float (int8_t (got[size_t (o)]));
            ok = std::fabs (a - g) <= 1.f;
          }
          if (!ok && bad++ == 0)
            first << "first mismatch at n=" << n << " c=" << c << " y=" << y << " x=" << x << ": reference "
                  << a << ", kernel " << g << " (byte offset " << o << ")";
        }
  EXPECT_EQ (bad, 0) << k.name << ": " << bad << " values differ; " << first.str ();

  int64_t bad_bytes = 0;
  std::ostringstream first_byte;
  for (size_t i = 0; i < got.size (); ++i) {
    if (is_value[i] || got[i] == want.data[i])
      continue;
    if (bad_bytes++ == 0) {
      const int64_t n = int64_t (i) / v.batch_stride, rem = int64_t (i) % v.batch_stride;
      first_byte << "first at byte " << i << " (n=" << n << " plane " << rem / v.plane_stride << " row "
                 << (rem % v.plane_stride) / v.row_stride << " byte-in-row " << rem % v.row_stride
                 << "): reference 0x" << std::hex << int (want.data[i]) << ", kernel 0x" << int (got[i]);
    }
  }
  EXPECT_EQ (bad_bytes, 0) << k.name << ": " << bad_bytes
                           << " padding/untouched bytes differ (0xab = never written); " << first_byte.str ();
}

class PreprocessGpu : public testing::TestWithParam<Case> {};

TEST_P (PreprocessGpu, MatchesReference)
{
  expect_matches_reference (GetParam ());
}

Case make (const std::string &name, std::function<void (Case &)> edit)
{
  Case k;
  k.name = name;
  edit (k);
  return k;
}

auto imagenet (bool aa)
{
  return [aa] (Params &p) {
    const float m[3] = {0.485f, 0.456f, 0.406f}, s[3] = {0.229f, 0.224f, 0.225f};
    for (int c = 0; c < 3; ++c) {
      p.mean[c] = m[c];
      p.std[c] = s[c];
    }
    p.antialias = aa;
  };
}

std::vector<Roi> sixteen_rois ()
{
  std::vector<Roi> r;
  for (int i = 0; i < 16; ++i)
    r.push_back (Roi{{(i % 4) * 470 + i, (i / 4) * 260 + 2 * i, 180 + 20 * i, 100 + 10 * i}, i});
  return r;
}

const Case kCases[] = {
    make ("nv12_1080p_chw16_aa", [] (Case &) {}),
    make ("nv12_1080p_chw16_no_aa", [] (Case &k) { k.params = [] (Params &p) { p.antialias = false; }; }),
    make ("nv12_odd_pitched_linear225_letterbox",
          [] (Case &k) {
            k.w = 1921, k.h = 1081, k.extra = 64, k.layout = Layout::kDlaLinear, k.th = 225, k.tw = 225;
            k.params = [] (Params &p) {
              p.mode = ResizeMode::kLetterbox, p.pad_rgb[0] = 114, p.pad_rgb[1] = 7;
            };
          }),
    make ("i420_odd_hwc4_300_centercrop_709full",
          [] (Case &k) {
            k.format = PixelFormat::kI420, k.w = 1279, k.h = 719, k.layout = Layout::kDlaHwc4,
            k.th = k.tw = 300;
            k.matrix = Matrix::kBT709, k.range = Range::kFull;
            k.params = [] (Params &p) { p.mode = ResizeMode::kCenterCrop; };
          }),
    make ("nv12_4k_chw16_2020_cosited_h",
          [] (Case &k) { k.w = 3840, k.h = 2160, k.matrix = Matrix::kBT2020, k.cosited_h = true; }),
    make ("nv12_4k_hwc4_int8",
          [] (Case &k) {
            k.w = 3840, k.h = 2160, k.layout = Layout::kDlaHwc4, k.type = ElemType::kInt8;
            k.params = [] (Params &p) { p.int8_scale = 1.f / 127.f; };
          }),
    make ("nv12_small_upscale_cosited_v", [] (Case &k) { k.w = 100, k.h = 60, k.cosited_v = true; }),
    make ("rgba_640_chw16_centercrop",
          [] (Case &k) {
            k.format = PixelFormat::kRGBA, k.w = 640, k.h = 480;
            k.params = [] (Params &p) { p.mode = ResizeMode::kCenterCrop; };
          }),
    make ("bgra_odd_chw32_letterbox_pad",
          [] (Case &k) {
            k.format = PixelFormat::kBGRA, k.w = 641, k.h = 479, k.layout = Layout::kChw32,
            k.type = ElemType::kInt8;
            k.th = k.tw = 225;
            k.params = [] (Params &p) {
              p.mode = ResizeMode::kLetterbox, p.pad_rgb[0] = 255, p.pad_rgb[2] = 60, p.int8_scale = 0.01f;
            };
          }),
    make ("rgbx_pitched_linear_int8_300_bgr",
          [] (Case &k) {
            k.format = PixelFormat::kRGBx, k.w = 333, k.h = 250, k.extra = 4, k.layout = Layout::kDlaLinear;
            k.type = ElemType::kInt8, k.th = k.tw = 300;
            k.params = [] (Params &p) { p.order = ChannelOrder::kBGR, p.int8_scale = 1.f / 128.f; };
          }),
    make ("bgrx_1080p_hwc4_no_aa",
          [] (Case &k) {
            k.format = PixelFormat::kBGRx, k.layout = Layout::kDlaHwc4;
            k.params = [] (Params &p) { p.antialias = false; };
          }),
    make ("nv12_1x1_frame", [] (Case &k) { k.w = k.h = 1, k.th = 5, k.tw = 7; }),
    make ("nv12_1x1_crop_last_pixel",
          [] (Case &k) {
            k.th = k.tw = 4;
            k.params = [] (Params &p) { p.crop = Rect{1919, 1079, 1, 1}; };
          }),
    make ("i420_5x3_linear_9x7",
          [] (Case &k) {
            k.format = PixelFormat::kI420, k.w = 5, k.h = 3, k.layout = Layout::kDlaLinear, k.th = 7,
            k.tw = 9;
          }),
    make ("nv12_16_rois_chw16", [] (Case &k) { k.tn = 16, k.rois = sixteen_rois (); }),
    make ("nv12_rois_unnamed_slot_linear_int8",
          [] (Case &k) {
            k.tn = 4, k.layout = Layout::kDlaLinear, k.type = ElemType::kInt8, k.th = 64, k.tw = 100;
            k.rois = {Roi{{10, 20, 301, 77}, 3}, Roi{{0, 0, 0, 0}, 0}, Roi{{1900, 1000, 20, 80}, 1}};
            k.params = [] (Params &p) { p.int8_scale = 1.f / 100.f; };
          }),
    make ("nv12_pal_par_letterbox_hwc4_int8",
          [] (Case &k) {
            k.w = 720, k.h = 576, k.layout = Layout::kDlaHwc4, k.type = ElemType::kInt8;
            k.params = [] (Params &p) { p.mode = ResizeMode::kLetterbox, p.par_n = 16, p.par_d = 15; };
          }),
    make ("nv12_chw32_imagenet_int8",
          [] (Case &k) {
            k.layout = Layout::kChw32, k.type = ElemType::kInt8;
            k.params = [] (Params &p) { imagenet (true) (p), p.int8_scale = 0.02f; };
          }),
    make ("nv12_full_cosited_linear225_imagenet",
          [] (Case &k) {
            k.range = Range::kFull, k.cosited_h = k.cosited_v = true, k.layout = Layout::kDlaLinear,
            k.th = k.tw = 225;
            k.params = imagenet (true);
          }),
    make ("i420_2020_full_chw16_bgr",
          [] (Case &k) {
            k.format = PixelFormat::kI420, k.matrix = Matrix::kBT2020, k.range = Range::kFull;
            k.params = [] (Params &p) { p.order = ChannelOrder::kBGR; };
          }),
    make ("rgba_hwc4_int8_bgr_imagenet",
          [] (Case &k) {
            k.format = PixelFormat::kRGBA, k.w = 800, k.h = 600, k.layout = Layout::kDlaHwc4,
            k.type = ElemType::kInt8;
            k.params = [] (Params &p) {
              imagenet (false) (p), p.order = ChannelOrder::kBGR, p.int8_scale = 0.03f;
            };
          }),
    make ("nv12_crop_letterbox_chw16",
          [] (Case &k) {
            k.params = [] (Params &p) { p.crop = Rect{100, 50, 801, 601}, p.mode = ResizeMode::kLetterbox; };
          }),
    make ("nv12_odd_crop_centercrop_chw16",
          [] (Case &k) {
            k.params = [] (Params &p) { p.crop = Rect{101, 51, 300, 200}, p.mode = ResizeMode::kCenterCrop; };
          }),
    make ("nv12_centercrop_fraction_1",
          [] (Case &k) {
            k.w = 640, k.h = 480;
            k.params = [] (Params &p) { p.mode = ResizeMode::kCenterCrop, p.crop_fraction = 1.f; };
          }),
    make ("nv12_tall_letterbox_linear_300x200",
          [] (Case &k) {
            k.w = 480, k.h = 1280, k.layout = Layout::kDlaLinear, k.th = 200, k.tw = 300;
            k.params = [] (Params &p) { p.mode = ResizeMode::kLetterbox; };
          }),
    make ("i420_portrait_centercrop_095_hwc4_256x192",
          [] (Case &k) {
            k.format = PixelFormat::kI420, k.w = 720, k.h = 1280, k.layout = Layout::kDlaHwc4, k.th = 192,
            k.tw = 256;
            k.params = [] (Params &p) { p.mode = ResizeMode::kCenterCrop, p.crop_fraction = 0.95f; };
          }),
    make ("bgrx_4k_chw32_int8",
          [] (Case &k) {
            k.format = PixelFormat::kBGRx, k.w = 3840, k.h = 2160, k.layout = Layout::kChw32,
            k.type = ElemType::kInt8;
            k.params = [] (Params &p) { p.int8_scale = 1.f / 127.f; };
          }),
    make ("nv12_1080p_to_1x1_linear", [] (Case &k) { k.layout = Layout::kDlaLinear, k.th = k.tw = 1; }),
    make ("nv12_2x2_letterbox_upscale_300",
          [] (Case &k) {
            k.w = k.h = 2, k.th = k.tw = 300;
            k.params = [] (Params &p) { p.mode = ResizeMode::kLetterbox, p.pad_rgb[1] = 200; };
          }),
    make ("rgbx_1x1_chw16", [] (Case &k) { k.format = PixelFormat::kRGBx, k.w = k.h = 1, k.th = k.tw = 3; }),
    make ("nv12_709_linear_int8_225_no_aa",
          [] (Case &k) {
            k.matrix = Matrix::kBT709, k.layout = Layout::kDlaLinear, k.type = ElemType::kInt8,
            k.th = k.tw = 225;
            k.params = [] (Params &p) { p.antialias = false, p.int8_scale = 1.f / 127.f; };
          }),
    make ("i420_rois_letterbox_hwc4",
          [] (Case &k) {
            k.format = PixelFormat::kI420, k.tn = 4, k.layout = Layout::kDlaHwc4;
            k.rois = {Roi{{0, 0, 1920, 1080}, 0}, Roi{{1, 1, 3, 901}, 1}, Roi{{1917, 3, 3, 3}, 2},
                      Roi{{640, 360, 640, 360}, 3}};
            k.params = [] (Params &p) { p.mode = ResizeMode::kLetterbox; };
          }),
    make ("nv12_4k_chw16_1024x576", [] (Case &k) { k.w = 3840, k.h = 2160, k.th = 576, k.tw = 1024; }),
    make ("nv12_odd_height_last_chroma_row",
          [] (Case &k) {
            k.w = 64, k.h = 33, k.th = 65, k.tw = 31, k.cosited_v = true;
            k.params = [] (Params &p) { p.crop = Rect{0, 31, 64, 2}; };
          }),
};

INSTANTIATE_TEST_SUITE_P (Combinations, PreprocessGpu, testing::ValuesIn (kCases),
                          [] (const testing::TestParamInfo<Case> &i) { return i.param.name; });

#ifdef PREPROCESS_EMULATE_TEST
/* Every video size takes the 32-bit centre arithmetic; the 64-bit one (rationals beyond 30 bits,
 * sources and tensors of tens of thousands of pixels) is forced here on every third case. */
TEST (PreprocessEmulated, WideCentresMatchReference)
{
  emulate_wide_centres = true;
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i += 3) {
    SCOPED_TRACE (kCases[i].name);
    expect_matches_reference (kCases[i]);
  }
  emulate_wide_centres = false;
}
#endif

/* A refused call launches nothing and returns its reason (checked on the device path too). */
TEST (PreprocessGpuErrors, RefusalBeforeLaunch)
{
  HostFrame frame = preprocess_test::make_frame (PixelFormat::kNV12, 64, 32);
  DeviceBuffer y (frame.data[0].size ()), uv (frame.data[1].size ());
  SourceView s = frame.view ();
  s.planes[0] = y.p;
  s.planes[1] = uv.p;
  tensor::View v{};
  ASSERT_TRUE (tensor::make_view (Layout::kChw16, ElemType::kFp16, 1, 3, 8, 8, &v));
  DeviceBuffer dst (size_t (v.size));
  Params p = default_params ();
  p.crop = Rect{60, 0, 8, 8};
  std::string err;
  EXPECT_EQ (launch (s, v, dst.p, p, nullptr, 0, nullptr, &err), Status::kInvalidArgument);
  EXPECT_NE (err.find ("ends outside"), std::string::npos) << err;
  EXPECT_EQ (cudaGetLastError (), cudaSuccess);
}

/* Texture sources (Jetson block-linear surfaces): NV12 or RGBA with a texture per plane, refused
 * before any launch otherwise; the CPU reference reads no textures. */
TEST (PreprocessGpuErrors, TextureSourceRefusals)
{
  HostFrame frame = preprocess_test::make_frame (PixelFormat::kNV12, 64, 32);
  SourceView s = frame.view ();
  s.kind = SourceKind::kTexture;
  s.planes[0] = s.planes[1] = nullptr;
  s.textures[0] = 1;
  tensor::View v{};
  ASSERT_TRUE (tensor::make_view (Layout::kChw16, ElemType::kFp16, 1, 3, 8, 8, &v));
  DeviceBuffer dst (size_t (v.size));
  const Params p = default_params ();
  std::string err;
  EXPECT_EQ (launch (s, v, dst.p, p, nullptr, 0, nullptr, &err), Status::kInvalidArgument);
  EXPECT_NE (err.find ("source plane 1 (UV) has no texture"), std::string::npos) << err;
  HostFrame i420 = preprocess_test::make_frame (PixelFormat::kI420, 64, 32);
  SourceView t = i420.view ();
  t.kind = SourceKind::kTexture;
  t.textures[0] = t.textures[1] = t.textures[2] = 1;
  EXPECT_EQ (launch (t, v, dst.p, p, nullptr, 0, nullptr, &err), Status::kUnsupported);
  EXPECT_NE (err.find ("texture sources are NV12 or RGBA"), std::string::npos) << err;
  HostTensor host (Layout::kChw16, ElemType::kFp16, 1, 8, 8);
  s.textures[1] = 2;
  EXPECT_EQ (reference (s, host.view, host.data, p, nullptr, 0, nullptr, &err), Status::kUnsupported);
  EXPECT_NE (err.find ("not textures"), std::string::npos) << err;
  EXPECT_EQ (cudaGetLastError (), cudaSuccess);
}

}  // namespace
