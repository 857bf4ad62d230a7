/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Objects launches (secondary classification): every object of a frame in one launch, its box read
 * from a device array, written into its batch item of its own tensor. Each object's item must equal
 * the full-frame preprocessing (the CPU reference) of the same crop copied out as a frame of its
 * own, for boxes on even pixels (4:2:0 chroma), every resize mode, antialias on and off, every
 * layout/type pair; items no object names stay untouched; a count's launch does not depend on the
 * boxes (graph replay). Built twice: on the GPU (suite gpu, program preprocess) and over the CUDA
 * emulation on the CPU (suite unit, preprocess-objects-emulated). */
#include <gtest/gtest.h>

#include "device_support.h"
#ifndef PREPROCESS_EMULATE_TEST
#include "kernels/kernel_launch.h"
#endif

#include <cmath>
#include <cstring>
#include <sstream>
#include <vector>

#include "preprocess_frames.h"

namespace {

using namespace preprocess;
using preprocess_test::fp16_ulps;
using preprocess_test::HostFrame;
using preprocess_test::HostTensor;
using Device = preprocess_test::DeviceBuffer;
using tensor::ElemType;
using tensor::Layout;

/* The crop (even origin and size for 4:2:0) as a frame of its own. */
HostFrame crop_frame (const HostFrame &src, const Rect &r)
{
  HostFrame out = preprocess_test::make_frame (src.format, r.width, r.height);
  HostFrame &s = const_cast<HostFrame &> (src);
  if (preprocess_test::is_yuv (src.format)) {
    for (int y = 0; y < r.height; ++y)
      for (int x = 0; x < r.width; ++x)
        out.y (x, y) = s.y (r.x + x, r.y + y);
    for (int y = 0; y < out.ch (); ++y)
      for (int x = 0; x < out.cw (); ++x) {
        out.u (x, y) = s.u (r.x / 2 + x, r.y / 2 + y);
        out.v (x, y) = s.v (r.x / 2 + x, r.y / 2 + y);
      }
  } else {
    for (int y = 0; y < r.height; ++y)
      for (int x = 0; x < r.width; ++x)
        for (int c = 0; c < 4; ++c)
          out.rgb (x, y, c) = s.rgb (r.x + x, r.y + y, c);
  }
  return out;
}

/* Batch item `item` of `got` against item 0 of `want`: values to 1 FP16 ulp (INT8: 1 step), every
 * other byte exactly. The number of differences, the first described in *first. */
int64_t compare_item (const tensor::View &v, const uint8_t *got, int item, const uint8_t *want,
                      std::string *first)
{
  const int es = tensor::elem_size (v.type);
  std::vector<bool> is_value (size_t (v.batch_stride), false);
  int64_t bad = 0;
  std::ostringstream os;
  for (int64_t c = 0; c < v.c; ++c)
    for (int64_t y = 0; y < v.h; ++y)
      for (int64_t x = 0; x < v.w; ++x) {
        const int64_t o = v.offset (0, c, y, x);
        for (int b = 0; b < es; ++b)
          is_value[size_t (o + b)] = true;
        const uint8_t *g = got + item * v.batch_stride + o, *w = want + o;
        bool ok;
        if (v.type == ElemType::kFp16) {
          uint16_t hg, hw;
          std::memcpy (&hg, g, 2);
          std::memcpy (&hw, w, 2);
          ok = fp16_ulps (hg, hw) <= 1 ||
               std::fabs (tensor::half_to_float (hg) - tensor::half_to_float (hw)) <= std::ldexp (1.f, -14);
        } else {
          ok = std::abs (int (int8_t (*g)) - int (int8_t (*w))) <= 1;
        }
        if (!ok && bad++ == 0)
          os << "value c=" << c << " y=" << y << " x=" << x;
      }
  for (int64_t i = 0; i < v.batch_stride; ++i)
    if (!is_value[size_t (i)] && got[item * v.batch_stride + i] != want[i] && bad++ == 0)
      os << "padding byte " << i;
  *first = os.str ();
  return bad;
}

struct ObjectCase {
  PixelFormat format;
  Layout layout;
  ElemType type;
  ResizeMode mode;
  bool antialias;
  bool cosited;
};

/* Boxes on even pixels: downscaled and upscaled, thin, tall, the whole frame, at the edges. */
const std::vector<Rect> kBoxes = {
    {0, 0, 64, 48},       {100, 50, 30, 90},  {0, 0, 320, 240},
    {200, 120, 120, 120}, {10, 200, 200, 40}, {316, 236, 4, 4},
};

void expect_objects_match (const ObjectCase &k)
{
  HostFrame frame = preprocess_test::make_frame (k.format, 320, 240);
  preprocess_test::fill_pattern (frame, 7);
  Params p = default_params ();
  p.mode = k.mode;
  p.antialias = k.antialias;
  p.pad_rgb[0] = 30;
  p.pad_rgb[1] = 60;
  p.pad_rgb[2] = 90;
  p.mean[0] = 0.485f;
  p.std[2] = 0.225f;
  p.order = ChannelOrder::kBGR;
  p.int8_scale = 1.f / 64;
  const SourceView host_src = frame.view (Matrix::kBT709, Range::kLimited, k.cosited, k.cosited);

  /* Two tensors of batch 4 (a task slot each): objects 0..3 fill the first, 4 and 5 items 2 and 0
   * of the second (items 1 and 3 stay untouched). */
  tensor::View v{};
  ASSERT_TRUE (tensor::make_view (k.layout, k.type, 4, 3, 40, 56, &v));
  std::vector<Device *> tensors{new Device (size_t (v.size)), new Device (size_t (v.size))};
  for (Device *t : tensors)
    ASSERT_EQ (cudaMemset (t->p, 0xab, size_t (v.size)), cudaSuccess);
  const int item_of[] = {0, 1, 2, 3, 2, 0};
  std::vector<ObjectRoi> objects;
  for (size_t i = 0; i < kBoxes.size (); ++i)
    objects.push_back (ObjectRoi{kBoxes[i], tensors[i < 4 ? 0 : 1]->p, item_of[i]});

  std::vector<Device *> planes;
  SourceView dev_src = host_src;
  for (int i = 0; i < frame.planes; ++i) {
    planes.push_back (new Device (frame.data[i].size ()));
    ASSERT_EQ (
        cudaMemcpy (planes.back ()->p, frame.data[i].data (), frame.data[i].size (), cudaMemcpyHostToDevice),
        cudaSuccess);
    dev_src.planes[i] = planes.back ()->p;
  }
  const int n = int (objects.size ());
  const size_t entry_bytes = size_t (object_slots (n)) * object_entry_bytes ();
  std::vector<uint8_t> entries (entry_bytes);
  std::string err;
  ASSERT_EQ (plan_objects (dev_src, v, p, objects.data (), n, entries.data (), &err), Status::kOk) << err;
  Device dev_entries (entry_bytes);
  ASSERT_EQ (cudaMemcpy (dev_entries.p, entries.data (), entry_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ (launch_objects (dev_src, v, p, dev_entries.p, n, nullptr, &err), Status::kOk) << err;
  ASSERT_EQ (cudaDeviceSynchronize (), cudaSuccess);
  std::vector<std::vector<uint8_t>> got (2, std::vector<uint8_t> (size_t (v.size)));
  for (int t = 0; t < 2; ++t)
    ASSERT_EQ (cudaMemcpy (got[t].data (), tensors[t]->p, got[t].size (), cudaMemcpyDeviceToHost),
               cudaSuccess);

  tensor::View one{};
  ASSERT_TRUE (tensor::make_view (k.layout, k.type, 1, 3, 40, 56, &one));
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE ("object " + std::to_string (i));
    HostFrame own = crop_frame (frame, kBoxes[size_t (i)]);
    HostTensor want (k.layout, k.type, 1, 40, 56, 0xab);
    Params whole = p;
    whole.crop = Rect{0, 0, 0, 0};
    ASSERT_EQ (reference (own.view (Matrix::kBT709, Range::kLimited, k.cosited, k.cosited), one, want.data,
                          whole, nullptr, 0, nullptr, &err),
               Status::kOk)
        << err;
    std::string first;
    EXPECT_EQ (compare_item (v, got[i < 4 ? 0 : 1].data (), item_of[i], want.data, &first), 0) << first;
  }
  for (int item : {1, 3})
    for (int64_t b = 0; b < v.batch_stride; ++b)
      ASSERT_EQ (got[1][size_t (item * v.batch_stride + b)], 0xab) << "item " << item << " is no object's";
  for (Device *d : tensors)
    delete d;
  for (Device *d : planes)
    delete d;
}

class PreprocessObjects : public testing::TestWithParam<ObjectCase> {};

TEST_P (PreprocessObjects, EachObjectIsItsCropAsAFrame)
{
  expect_objects_match (GetParam ());
}

std::vector<ObjectCase> object_cases ()
{
  std::vector<ObjectCase> out;
  for (ResizeMode mode : {ResizeMode::kStretch, ResizeMode::kLetterbox, ResizeMode::kCenterCrop})
    for (bool aa : {true, false}) {
      out.push_back ({PixelFormat::kNV12, Layout::kChw16, ElemType::kFp16, mode, aa, false});
      out.push_back ({PixelFormat::kI420, Layout::kDlaLinear, ElemType::kInt8, mode, aa, true});
      out.push_back ({PixelFormat::kBGRx, Layout::kDlaHwc4, ElemType::kFp16, mode, aa, false});
    }
  out.push_back ({PixelFormat::kRGBA, Layout::kChw32, ElemType::kInt8, ResizeMode::kStretch, true, false});
  return out;
}

std::string describe (const ObjectCase &k)
{
  const char *mode = k.mode == ResizeMode::kStretch     ? "stretch"
                     : k.mode == ResizeMode::kLetterbox ? "letterbox"
                                                        : "centercrop";
  return std::string (preprocess_test::format_name (k.format)) + "_" + tensor::layout_name (k.layout) + "_" +
         tensor::elem_type_name (k.type) + "_" + mode + (k.antialias ? "_aa" : "_noaa") +
         (k.cosited ? "_cosited" : "");
}

std::string case_name (const testing::TestParamInfo<ObjectCase> &i)
{
  return describe (i.param);
}

/* gtest prints every parameter when it registers the tests: the struct's padding bytes are never
 * written, so its byte dump reads uninitialised memory (valgrind). */
void PrintTo (const ObjectCase &k, std::ostream *os)
{
  *os << describe (k);
}

INSTANTIATE_TEST_SUITE_P (Modes, PreprocessObjects, testing::ValuesIn (object_cases ()), case_name);

/* Bad objects are refused before anything runs, naming the object. */
TEST (PreprocessObjectsErrors, Refusals)
{
  HostFrame frame = preprocess_test::make_frame (PixelFormat::kNV12, 64, 32);
  tensor::View v{};
  ASSERT_TRUE (tensor::make_view (Layout::kChw16, ElemType::kFp16, 2, 3, 8, 8, &v));
  HostTensor t (Layout::kChw16, ElemType::kFp16, 2, 8, 8);
  std::vector<uint8_t> entries (size_t (object_slots (2)) * object_entry_bytes ());
  std::string err;
  ObjectRoi bad[] = {{Rect{0, 0, 8, 8}, t.data, 0}, {Rect{60, 0, 8, 8}, t.data, 1}};
  EXPECT_EQ (plan_objects (frame.view (), v, default_params (), bad, 2, entries.data (), &err),
             Status::kInvalidArgument);
  EXPECT_NE (err.find ("crop 1 (60,0 8x8) ends outside"), std::string::npos) << err;
  bad[1] = ObjectRoi{Rect{0, 0, 8, 8}, t.data, 2};
  EXPECT_EQ (plan_objects (frame.view (), v, default_params (), bad, 2, entries.data (), &err),
             Status::kInvalidArgument);
  EXPECT_NE (err.find ("batch slot 2"), std::string::npos) << err;
  EXPECT_EQ (plan_objects (frame.view (), v, default_params (), bad, 0, entries.data (), &err),
             Status::kInvalidArgument);
  EXPECT_EQ (plan_objects (frame.view (), v, default_params (), bad, kMaxObjects + 1, entries.data (), &err),
             Status::kInvalidArgument);
  EXPECT_NE (err.find ("1..1024"), std::string::npos) << err;
}

/* The entry array is sized by powers of two, blanks after the objects. */
TEST (PreprocessObjectsErrors, SlotsArePowersOfTwo)
{
  EXPECT_EQ (object_slots (1), 1);
  EXPECT_EQ (object_slots (3), 4);
  EXPECT_EQ (object_slots (16), 16);
  EXPECT_EQ (object_slots (17), 32);
  EXPECT_EQ (object_slots (kMaxObjects), kMaxObjects);
}

#ifndef PREPROCESS_EMULATE_TEST
/* A count's launch is the same bytes whatever the boxes: LaunchGraphs replays it frame after frame. */
TEST (PreprocessObjectsLaunch, BoxesDoNotChangeTheLaunch)
{
  HostFrame frame = preprocess_test::make_frame (PixelFormat::kNV12, 1920, 1080);
  tensor::View v{};
  ASSERT_TRUE (tensor::make_view (Layout::kChw16, ElemType::kFp16, 16, 3, 64, 64, &v));
  const SourceView s = frame.view ();
  const void *entries = reinterpret_cast<const void *> (uintptr_t (0x10000));
  KernelLaunch a, b, c;
  std::string err;
  ASSERT_EQ (plan_objects_launch (s, v, default_params (), entries, 16, &a, &err), Status::kOk) << err;
  ASSERT_EQ (plan_objects_launch (s, v, default_params (), entries, 16, &b, &err), Status::kOk) << err;
  ASSERT_EQ (plan_objects_launch (s, v, default_params (), entries, 13, &c, &err), Status::kOk) << err;
  EXPECT_EQ (std::memcmp (&a, &b, sizeof a), 0);
  EXPECT_EQ (std::memcmp (&a, &c, sizeof a), 0) << "13 objects take the 16-entry launch";
  EXPECT_EQ (a.grid.z, 16u);
}
#endif

}  // namespace
