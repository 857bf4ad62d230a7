/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GStreamer >= 1.24: frames that an upstream element wrote on its own GstCudaStream and left
 * unsynchronised (as decoders and converters do) are never read torn or stale. 1 000 NV12 frames,
 * each written by a deliberately slow kernel on the producer's stream, cycle red, green, blue; each
 * must come out classified as the colour it was written with. Without the ordering the element
 * would read the frame before (or while) the producer writes it. */
#include <gst/check/gstharness.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#if GST_CHECK_VERSION(1, 24, 0)
#include <gst/cuda/gstcudastream.h>
#endif

#include "dla/primary_context.h"
#include "gpu_support.h"
#include "slow_writer.h"

namespace {

using namespace element_gpu;

using UpstreamStream = SwdlaTest;

TEST_F (UpstreamStream, ThousandFramesWrittenOnAnotherStreamAreNeverStale)
{
#if !GST_CHECK_VERSION(1, 24, 0)
  GTEST_SKIP () << "GstCudaStream exists from GStreamer 1.24; this build has " << GST_VERSION_MAJOR << "."
                << GST_VERSION_MINOR;
#else
  ASSERT_TRUE (gst_cuda_load_library ());
  GstHarness *h = gst_harness_new_parse (
      ("dlainfer name=infer model=" + model ("colours") + " labels=" + labels_of ("colours")).c_str ());
  gst_harness_set_src_caps_str (
      h, "video/x-raw(memory:CUDAMemory),format=NV12,width=320,height=240,framerate=30/1");
  GstElement *infer = gst_harness_find_element (h, "dlainfer");
  ASSERT_NE (infer, nullptr);
  GstCudaContext *ctx = element_context (infer);
  ASSERT_NE (ctx, nullptr) << "dlainfer answered no CUDA context";
  GstCudaStream *producer = gst_cuda_stream_new (ctx);
  ASSERT_NE (producer, nullptr);

  /* BT.601 limited range (GStreamer's default for SD caps without colorimetry). */
  struct Nv12Colour {
    const char *label;
    uint8_t y, u, v;
  };
  const Nv12Colour colours[3] = {{"red", 81, 90, 240}, {"green", 145, 54, 34}, {"blue", 41, 240, 110}};
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 320, 240);
  int stale = 0, frames = 0;
  std::string first_stale;
  for (int i = 0; i < 1000; ++i) {
    const Nv12Colour &c = colours[i % 3];
    GstMemory *mem = gst_cuda_allocator_alloc (nullptr, ctx, producer, &info);
    ASSERT_NE (mem, nullptr);
    GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (mem);
    {
      dla::ScopedContext scope (gst_cuda_context_get_handle (ctx));
      GstMapInfo map;
      ASSERT_TRUE (gst_memory_map (mem, &map, GstMapFlags (GST_MAP_WRITE | GST_MAP_CUDA)));
      auto *base = static_cast<uint8_t *> (map.data);
      ASSERT_EQ (slow_fill_nv12 (base + cmem->info.offset[0], cmem->info.stride[0],
                                 base + cmem->info.offset[1], cmem->info.stride[1], 320, 240, c.y, c.u, c.v,
                                 2000000, gst_cuda_stream_get_handle (producer)),
                 0);
      gst_memory_unmap (mem, &map);
    }
    GST_MINI_OBJECT_FLAG_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC); /* written, not synchronised */
    GstBuffer *buf = gst_buffer_new ();
    gst_buffer_append_memory (buf, mem);
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12, 320, 240, 2,
                                    cmem->info.offset, cmem->info.stride);
    GST_BUFFER_PTS (buf) = GST_SECOND * i / 30;
    GstBuffer *out = gst_harness_push_and_pull (h, buf);
    ASSERT_NE (out, nullptr) << "frame " << i;
    const Result r = result_of (out);
    gst_buffer_unref (out);
    ASSERT_TRUE (r.found) << "frame " << i;
    ++frames;
    if (r.labels.empty () || r.labels[0] != c.label) {
      if (stale++ == 0)
        first_stale = "frame " + std::to_string (i) + " written " + c.label + ", classified " +
                      (r.labels.empty () ? "(nothing)" : r.labels[0]);
    }
  }
  EXPECT_EQ (frames, 1000);
  EXPECT_EQ (stale, 0) << "frames read before their producer finished: first " << first_stale;
  gst_cuda_stream_unref (producer);
  gst_object_unref (ctx);
  gst_object_unref (infer);
  gst_harness_teardown (h);
#endif
}

}  // namespace
