/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/frame_source.h"

#include <cstring>

#include "nvmm/library.h"

namespace dlainfer {
namespace {

/* Plane starts in the staging buffer are aligned like cudaMalloc's, for coalesced reads. */
constexpr size_t kPlaneAlign = 256;

size_t align_up (size_t v)
{
  return (v + kPlaneAlign - 1) / kPlaneAlign * kPlaneAlign;
}

bool pixel_format (GstVideoFormat format, preprocess::PixelFormat *out)
{
  switch (format) {
    case GST_VIDEO_FORMAT_NV12:
      *out = preprocess::PixelFormat::kNV12;
      return true;
    case GST_VIDEO_FORMAT_I420:
      *out = preprocess::PixelFormat::kI420;
      return true;
    case GST_VIDEO_FORMAT_RGBA:
      *out = preprocess::PixelFormat::kRGBA;
      return true;
    case GST_VIDEO_FORMAT_BGRA:
      *out = preprocess::PixelFormat::kBGRA;
      return true;
    case GST_VIDEO_FORMAT_RGBx:
      *out = preprocess::PixelFormat::kRGBx;
      return true;
    case GST_VIDEO_FORMAT_BGRx:
      *out = preprocess::PixelFormat::kBGRx;
      return true;
    default:
      return false;
  }
}

/* Bytes of one row of plane p that hold pixels (the stride may be longer). */
size_t row_bytes (const GstVideoInfo *info, guint plane)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (info->finfo, plane, comp);
  return size_t (GST_VIDEO_INFO_COMP_WIDTH (info, comp[0])) *
         size_t (GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]));
}

size_t plane_rows (const GstVideoInfo *info, guint plane)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (info->finfo, plane, comp);
  return size_t (GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]));
}

size_t bytes_for (const GstVideoInfo *info, const gint *strides)
{
  size_t total = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); ++p)
    total += align_up (size_t (strides[p]) * plane_rows (info, p));
  return total;
}

}  // namespace

FrameMemory frame_memory (const GstCaps *caps)
{
  const GstCapsFeatures *f = caps && gst_caps_get_size (caps) ? gst_caps_get_features (caps, 0) : nullptr;
  if (f && gst_caps_features_contains (f, kNvmmFeature))
    return FrameMemory::kNvmm;
  if (f && gst_caps_features_contains (f, "memory:CUDAMemory"))
    return FrameMemory::kCuda;
  return FrameMemory::kSystem;
}

const char *frame_memory_name (FrameMemory m)
{
  return m == FrameMemory::kNvmm ? "NVMM" : m == FrameMemory::kCuda ? "CUDA" : "system";
}

GstCaps *nvmm_first (const GstCaps *caps)
{
  GstCaps *out = gst_caps_new_empty ();
  if (!caps)
    return out;
  if (gst_caps_is_any (caps)) {
    gst_caps_unref (out);
    return gst_caps_new_any ();
  }
  for (bool nvmm : {true, false})
    for (guint i = 0; i < gst_caps_get_size (caps); ++i) {
      GstCapsFeatures *f = gst_caps_get_features (caps, i);
      if ((f && gst_caps_features_contains (f, kNvmmFeature)) == nvmm)
        gst_caps_append_structure_full (out, gst_structure_copy (gst_caps_get_structure (caps, i)),
                                        f ? gst_caps_features_copy (f) : nullptr);
    }
  return out;
}

bool nvmm_format (const GstVideoInfo *info, nvmm::Format *out, std::string *why)
{
  switch (GST_VIDEO_INFO_FORMAT (info)) {
    case GST_VIDEO_FORMAT_NV12:
      *out = nvmm::Format::kNV12;
      return true;
    case GST_VIDEO_FORMAT_RGBA:
      *out = nvmm::Format::kRGBA;
      return true;
    default:
      *why = std::string ("memory:NVMM in format ") + GST_VIDEO_INFO_NAME (info) +
             " is not read (NVMM: NV12 or RGBA); " + nvmm::kWayOut;
      return false;
  }
}

bool caps_supported (const GstVideoInfo *info, std::string *why)
{
  preprocess::PixelFormat unused;
  if (!pixel_format (GST_VIDEO_INFO_FORMAT (info), &unused)) {
    *why = std::string ("format ") + GST_VIDEO_INFO_NAME (info) +
           " is not one of NV12, I420, RGBA, BGRA, RGBx, BGRx";
    return false;
  }
  if (GST_VIDEO_INFO_INTERLACE_MODE (info) != GST_VIDEO_INTERLACE_MODE_PROGRESSIVE) {
    *why = std::string ("interlaced video (interlace-mode=") +
           gst_video_interlace_mode_to_string (GST_VIDEO_INFO_INTERLACE_MODE (info)) +
           ") is not supported: the model sees whole progressive frames; deinterlace upstream";
    return false;
  }
  if (GST_VIDEO_INFO_WIDTH (info) < 1 || GST_VIDEO_INFO_HEIGHT (info) < 1) {
    *why = "empty frames";
    return false;
  }
  return true;
}

bool source_template (const GstVideoInfo *info, preprocess::SourceView *view, std::string *why)
{
  if (!caps_supported (info, why))
    return false;
  preprocess::SourceView v{};
  pixel_format (GST_VIDEO_INFO_FORMAT (info), &v.format);
  v.width = GST_VIDEO_INFO_WIDTH (info);
  v.height = GST_VIDEO_INFO_HEIGHT (info);
  /* GStreamer's converter treats unknown siting as centred; so do we. */
  v.chroma_cosited_h = (info->chroma_site & GST_VIDEO_CHROMA_SITE_H_COSITED) != 0;
  v.chroma_cosited_v = (info->chroma_site & GST_VIDEO_CHROMA_SITE_V_COSITED) != 0;
  const GstVideoColorimetry &c = info->colorimetry;
  switch (c.matrix) {
    case GST_VIDEO_COLOR_MATRIX_BT709:
    case GST_VIDEO_COLOR_MATRIX_SMPTE240M:
      v.matrix = preprocess::Matrix::kBT709;
      break;
    case GST_VIDEO_COLOR_MATRIX_BT2020:
      v.matrix = preprocess::Matrix::kBT2020;
      break;
    case GST_VIDEO_COLOR_MATRIX_BT601:
    case GST_VIDEO_COLOR_MATRIX_FCC:
      v.matrix = preprocess::Matrix::kBT601;
      break;
    default: /* unknown or RGB: GStreamer's size-based default for YUV */
      v.matrix = v.height >= 720 ? preprocess::Matrix::kBT709 : preprocess::Matrix::kBT601;
      break;
  }
  v.range = c.range == GST_VIDEO_COLOR_RANGE_0_255 ? preprocess::Range::kFull : preprocess::Range::kLimited;
  v.kind = preprocess::SourceKind::kPitched;
  *view = v;
  return true;
}

void set_planes (const GstVideoFrame *frame, preprocess::SourceView *view)
{
  for (guint p = 0; p < 3; ++p) {
    const bool has = p < GST_VIDEO_FRAME_N_PLANES (frame);
    view->planes[p] = has ? GST_VIDEO_FRAME_PLANE_DATA (frame, p) : nullptr;
    view->pitches[p] = has ? GST_VIDEO_FRAME_PLANE_STRIDE (frame, p) : 0;
  }
}

size_t staging_bytes (const GstVideoFrame *frame)
{
  return bytes_for (&frame->info, frame->info.stride);
}

size_t staging_bytes (const GstVideoInfo *info)
{
  return bytes_for (info, info->stride);
}

void pack_planes (const GstVideoFrame *frame, uint8_t *host, const uint8_t *device,
                  preprocess::SourceView *view)
{
  const GstVideoInfo *info = &frame->info;
  size_t offset = 0;
  for (guint p = 0; p < 3; ++p) {
    view->planes[p] = nullptr;
    view->pitches[p] = 0;
  }
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); ++p) {
    const size_t stride = size_t (GST_VIDEO_FRAME_PLANE_STRIDE (frame, p));
    const size_t rows = plane_rows (info, p);
    /* The last row may end right after its pixels, so it is not copied up to the stride. */
    const size_t bytes = rows ? (rows - 1) * stride + row_bytes (info, p) : 0;
    std::memcpy (host + offset, GST_VIDEO_FRAME_PLANE_DATA (frame, p), bytes);
    view->planes[p] = device + offset;
    view->pitches[p] = int64_t (stride);
    offset += align_up (stride * rows);
  }
}

}  // namespace dlainfer
