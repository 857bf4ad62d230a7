/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* From caps and mapped frames to the kernel's SourceView: formats, interlaced refusal, colour
 * matrix/range and chroma siting from the caps, plane pointers and strides from the frame's
 * GstVideoMeta (padded strides included), and the system-memory packing for the upload. */
#include "gst/frame_source.h"

#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

GstVideoInfo info_from (const char *caps_str)
{
  GstVideoInfo info;
  GstCaps *caps = gst_caps_from_string (caps_str);
  EXPECT_NE (caps, nullptr) << caps_str;
  EXPECT_TRUE (gst_video_info_from_caps (&info, caps)) << caps_str;
  gst_caps_unref (caps);
  return info;
}

TEST (FrameSource, EveryFormatMaps)
{
  const struct {
    const char *name;
    preprocess::PixelFormat format;
  } formats[] = {{"NV12", preprocess::PixelFormat::kNV12}, {"I420", preprocess::PixelFormat::kI420},
                 {"RGBA", preprocess::PixelFormat::kRGBA}, {"BGRA", preprocess::PixelFormat::kBGRA},
                 {"RGBx", preprocess::PixelFormat::kRGBx}, {"BGRx", preprocess::PixelFormat::kBGRx}};
  for (const auto &f : formats) {
    const std::string caps =
        std::string ("video/x-raw,format=") + f.name + ",width=33,height=17,framerate=30/1";
    GstVideoInfo info = info_from (caps.c_str ());
    preprocess::SourceView v;
    std::string why;
    ASSERT_TRUE (dlainfer::source_template (&info, &v, &why)) << f.name << ": " << why;
    EXPECT_EQ (v.format, f.format) << f.name;
    EXPECT_EQ (v.width, 33);
    EXPECT_EQ (v.height, 17);
  }
}

TEST (FrameSource, RefusesOtherFormatsAndInterlacedWithReason)
{
  GstVideoInfo grey = info_from ("video/x-raw,format=GRAY8,width=64,height=64");
  std::string why;
  EXPECT_FALSE (dlainfer::caps_supported (&grey, &why));
  EXPECT_NE (why.find ("GRAY8"), std::string::npos) << why;
  GstVideoInfo inter = info_from ("video/x-raw,format=NV12,width=64,height=64,interlace-mode=interleaved");
  EXPECT_FALSE (dlainfer::caps_supported (&inter, &why));
  EXPECT_NE (why.find ("interlaced"), std::string::npos) << why;
  EXPECT_NE (why.find ("interleaved"), std::string::npos) << why;
}

TEST (FrameSource, ColorimetryAndSitingFromCaps)
{
  preprocess::SourceView v;
  std::string why;
  GstVideoInfo a =
      info_from ("video/x-raw,format=NV12,width=64,height=64,colorimetry=bt709,chroma-site=mpeg2");
  ASSERT_TRUE (dlainfer::source_template (&a, &v, &why)) << why;
  EXPECT_EQ (v.matrix, preprocess::Matrix::kBT709);
  EXPECT_EQ (v.range, preprocess::Range::kLimited);
  EXPECT_TRUE (v.chroma_cosited_h);
  EXPECT_FALSE (v.chroma_cosited_v);
  GstVideoInfo b =
      info_from ("video/x-raw,format=I420,width=64,height=64,colorimetry=bt2020,chroma-site=jpeg");
  ASSERT_TRUE (dlainfer::source_template (&b, &v, &why)) << why;
  EXPECT_EQ (v.matrix, preprocess::Matrix::kBT2020);
  EXPECT_FALSE (v.chroma_cosited_h);
  EXPECT_FALSE (v.chroma_cosited_v);
  GstVideoInfo c =
      info_from ("video/x-raw,format=NV12,width=64,height=64,colorimetry=1:4:0:0,chroma-site=dv");
  ASSERT_TRUE (dlainfer::source_template (&c, &v, &why)) << why;
  EXPECT_EQ (v.matrix, preprocess::Matrix::kBT601);
  EXPECT_EQ (v.range, preprocess::Range::kFull);
  EXPECT_TRUE (v.chroma_cosited_h);
  EXPECT_TRUE (v.chroma_cosited_v);
}

/* Without colorimetry in the caps, GStreamer's defaults by frame size (BT.601 SD, BT.709 HD). */
TEST (FrameSource, DefaultColorimetryBySize)
{
  preprocess::SourceView v;
  std::string why;
  GstVideoInfo sd = info_from ("video/x-raw,format=NV12,width=640,height=480");
  ASSERT_TRUE (dlainfer::source_template (&sd, &v, &why));
  EXPECT_EQ (v.matrix, preprocess::Matrix::kBT601);
  GstVideoInfo hd = info_from ("video/x-raw,format=NV12,width=1920,height=1080");
  ASSERT_TRUE (dlainfer::source_template (&hd, &v, &why));
  EXPECT_EQ (v.matrix, preprocess::Matrix::kBT709);
}

/* A buffer whose GstVideoMeta has padded strides and plane offsets unlike the caps' defaults: the
 * planes and pitches come from the meta, and packing copies each row from the right place. */
TEST (FrameSource, PlanesFromVideoMetaAndPacking)
{
  GstVideoInfo info = info_from ("video/x-raw,format=NV12,width=5,height=3");
  const gint strides[2] = {16, 32};
  const gsize offsets[2] = {0, 64}; /* Y: 3 rows of 16; UV at 64 with 2 rows of 32 */
  const gsize size = 64 + 2 * 32;
  GstBuffer *buf = gst_buffer_new_allocate (nullptr, size, nullptr);
  GstMapInfo map;
  ASSERT_TRUE (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (gsize i = 0; i < size; ++i)
    map.data[i] = uint8_t (i);
  gst_buffer_unmap (buf, &map);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12, 5, 3, 2,
                                  const_cast<gsize *> (offsets), const_cast<gint *> (strides));

  GstVideoFrame frame;
  ASSERT_TRUE (gst_video_frame_map (&frame, &info, buf, GST_MAP_READ));
  preprocess::SourceView v{};
  dlainfer::set_planes (&frame, &v);
  EXPECT_EQ (v.pitches[0], 16);
  EXPECT_EQ (v.pitches[1], 32);
  EXPECT_EQ (static_cast<const uint8_t *> (v.planes[1]) - static_cast<const uint8_t *> (v.planes[0]), 64);
  EXPECT_EQ (v.planes[2], nullptr);

  const size_t bytes = dlainfer::staging_bytes (&frame);
  EXPECT_GE (bytes, size_t (3 * 16 + 2 * 32));
  std::vector<uint8_t> host (bytes, 0xee);
  const uint8_t *device = reinterpret_cast<const uint8_t *> (uintptr_t (0x10000));
  preprocess::SourceView packed{};
  dlainfer::pack_planes (&frame, host.data (), device, &packed);
  EXPECT_EQ (packed.pitches[0], 16);
  EXPECT_EQ (packed.pitches[1], 32);
  EXPECT_EQ (packed.planes[0], device);
  const size_t uv = size_t (static_cast<const uint8_t *> (packed.planes[1]) - device);
  EXPECT_EQ (uv % 256, 0u) << "planes start aligned in the staging buffer";
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x)
      EXPECT_EQ (host[size_t (y) * 16 + x], uint8_t (y * 16 + x)) << "Y " << x << "," << y;
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 6; ++x) /* 3 UV pairs */
      EXPECT_EQ (host[uv + size_t (y) * 32 + x], uint8_t (64 + y * 32 + x)) << "UV " << x << "," << y;
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (buf);
}

/* The staging size for the caps' own layout covers every plane of an I420 frame. */
TEST (FrameSource, StagingBytesFromCaps)
{
  GstVideoInfo info = info_from ("video/x-raw,format=I420,width=1920,height=1080");
  EXPECT_GE (dlainfer::staging_bytes (&info), GST_VIDEO_INFO_SIZE (&info));
}

/* Where frames live, from the caps' features. */
TEST (FrameSource, MemoryFromCapsFeatures)
{
  const struct {
    const char *caps;
    dlainfer::FrameMemory memory;
  } cases[] = {
      {"video/x-raw,format=NV12,width=8,height=8", dlainfer::FrameMemory::kSystem},
      {"video/x-raw(memory:CUDAMemory),format=NV12,width=8,height=8", dlainfer::FrameMemory::kCuda},
      {"video/x-raw(memory:NVMM),format=NV12,width=8,height=8", dlainfer::FrameMemory::kNvmm},
      {"video/x-raw(memory:NVMM),format=RGBA,width=8,height=8", dlainfer::FrameMemory::kNvmm},
  };
  for (const auto &c : cases) {
    GstCaps *caps = gst_caps_from_string (c.caps);
    EXPECT_EQ (dlainfer::frame_memory (caps), c.memory) << c.caps;
    gst_caps_unref (caps);
  }
  EXPECT_EQ (dlainfer::frame_memory (nullptr), dlainfer::FrameMemory::kSystem);
  EXPECT_STREQ (dlainfer::frame_memory_name (dlainfer::FrameMemory::kNvmm), "NVMM");
}

/* NVMM is read as NV12 or RGBA; any other format is refused naming it and the way out. */
TEST (FrameSource, NvmmFormats)
{
  GstVideoInfo info;
  nvmm::Format f;
  std::string why;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 32);
  ASSERT_TRUE (dlainfer::nvmm_format (&info, &f, &why));
  EXPECT_EQ (f, nvmm::Format::kNV12);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 32);
  ASSERT_TRUE (dlainfer::nvmm_format (&info, &f, &why));
  EXPECT_EQ (f, nvmm::Format::kRGBA);
  for (GstVideoFormat other : {GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_BGRA}) {
    gst_video_info_set_format (&info, other, 64, 32);
    why.clear ();
    EXPECT_FALSE (dlainfer::nvmm_format (&info, &f, &why));
    EXPECT_NE (why.find (std::string ("memory:NVMM in format ") + gst_video_format_to_string (other)),
               std::string::npos)
        << why;
    EXPECT_NE (why.find ("nvvidconv"), std::string::npos) << why;
  }
}

/* NVMM structures go first, the rest keeps its order. */
TEST (FrameSource, NvmmFirst)
{
  GstCaps *caps = gst_caps_from_string (
      "video/x-raw,format=NV12; video/x-raw(memory:CUDAMemory),format=NV12; "
      "video/x-raw(memory:NVMM),format=NV12; video/x-raw,format=RGBA; "
      "video/x-raw(memory:NVMM),format=RGBA");
  GstCaps *ordered = dlainfer::nvmm_first (caps);
  GstCaps *want = gst_caps_from_string (
      "video/x-raw(memory:NVMM),format=NV12; video/x-raw(memory:NVMM),format=RGBA; "
      "video/x-raw,format=NV12; video/x-raw(memory:CUDAMemory),format=NV12; "
      "video/x-raw,format=RGBA");
  EXPECT_TRUE (gst_caps_is_strictly_equal (ordered, want)) << gst_caps_to_string (ordered);
  gst_caps_unref (want);
  gst_caps_unref (ordered);
  gst_caps_unref (caps);
  GstCaps *any = gst_caps_new_any ();
  GstCaps *still_any = dlainfer::nvmm_first (any);
  EXPECT_TRUE (gst_caps_is_any (still_any));
  gst_caps_unref (still_any);
  gst_caps_unref (any);
}

}  // namespace
