/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One CUDA context (docs/architecture.md section 4), proven with real GStreamer elements: the device's
 * primary context is retained and wrapped as a GstCudaContext, handed to cudaupload through the
 * normal need-context mechanism, the GstCudaMemory it produces belongs to that context, and a
 * kernel on our own stream in that context reads the frame correctly (ordered after cudaupload's
 * stream on GStreamer >= 1.24). */
#include <cuda_runtime_api.h>
#include <gst/app/gstappsink.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#if GST_CHECK_VERSION(1, 24, 0)
#include <gst/cuda/gstcudastream.h>
#endif
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "context_kernel.h"
#include "dla/primary_context.h"

namespace {

constexpr const char *kCaps = "video/x-raw,format=NV12,width=322,height=242";

GstBusSyncReply answer_need_context (GstBus *, GstMessage *msg, gpointer ctx)
{
  const gchar *type = nullptr;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT && gst_message_parse_context_type (msg, &type) &&
      g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) == 0) {
    GstContext *context = gst_context_new_cuda_context (GST_CUDA_CONTEXT (ctx));
    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), context);
    gst_context_unref (context);
  }
  return GST_BUS_PASS;
}

/* Runs `desc` (ending in appsink name=sink) to its first sample. */
GstSample *first_sample (const char *desc, GstCudaContext *ctx)
{
  GError *err = nullptr;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  EXPECT_EQ (err, nullptr) << (err ? err->message : "");
  if (!pipeline)
    return nullptr;
  if (ctx) {
    GstBus *bus = gst_element_get_bus (pipeline);
    gst_bus_set_sync_handler (bus, answer_need_context, ctx, nullptr);
    gst_object_unref (bus);
  }
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  EXPECT_NE (gst_element_set_state (pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 10 * GST_SECOND);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return sample;
}

/* Whether the test below found cudaupload's memory on a stream and ordered after it: the next test
 * reports a SKIP with the reason when that branch did not run (never a silent pass). Only GStreamer
 * >= 1.24 has that branch. */
#if GST_CHECK_VERSION(1, 24, 0)
bool upload_carried_a_stream = false;
#endif

TEST (OneContext, CudaUploadAdoptsPrimaryContextAndOurKernelReadsTheFrame)
{
  ASSERT_TRUE (gst_cuda_load_library ());
  GstElement *probe = gst_element_factory_make ("cudaupload", nullptr);
  if (!probe)
    GTEST_FAIL () << "cudaupload (nvcodec plugin) is missing on a CUDA machine (install or bundle nvcodec)";
  gst_object_unref (probe);

  dla::PrimaryContext primary;
  const dla::Status st = dla::PrimaryContext::Retain (0, &primary);
  ASSERT_TRUE (st.ok ()) << st.message;
  GstCudaContext *ctx =
      gst_cuda_context_new_wrapped (static_cast<CUcontext> (primary.handle ()), primary.device ());
  ASSERT_NE (ctx, nullptr);
  EXPECT_EQ (gst_cuda_context_get_handle (ctx), primary.handle ());

  const std::string src = std::string ("videotestsrc num-buffers=1 pattern=smpte ! ") + kCaps;
  GstSample *ref = first_sample ((src + " ! appsink name=sink sync=false").c_str (), nullptr);
  GstSample *dev = first_sample (
      (src + " ! cudaupload ! video/x-raw(memory:CUDAMemory) ! appsink name=sink sync=false").c_str (), ctx);
  ASSERT_NE (ref, nullptr);
  ASSERT_NE (dev, nullptr);

  GstBuffer *buf = gst_sample_get_buffer (dev);
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  ASSERT_TRUE (gst_is_cuda_memory (mem)) << "cudaupload produced system memory";
  GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (mem);
  EXPECT_EQ (cmem->context, ctx) << "cudaupload did not adopt the context we offered";
  EXPECT_EQ (gst_cuda_context_get_handle (cmem->context), primary.handle ());

  GstVideoInfo info;
  ASSERT_TRUE (gst_video_info_from_caps (&info, gst_sample_get_caps (dev)));
  GstVideoFrame frame, ref_frame;
  ASSERT_TRUE (gst_video_frame_map (&frame, &info, buf, GstMapFlags (GST_MAP_READ | GST_MAP_CUDA)));
  ASSERT_TRUE (gst_video_frame_map (&ref_frame, &info, gst_sample_get_buffer (ref), GST_MAP_READ));

  {
    dla::ScopedContext scope (primary.handle ());
    cudaStream_t stream = nullptr;
    ASSERT_EQ (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking), cudaSuccess);
#if GST_CHECK_VERSION(1, 24, 0)
    /* The memory may still be written by cudaupload's stream: order our kernel after it. */
    if (GstCudaStream *upstream = gst_cuda_memory_get_stream (cmem)) {
      cudaEvent_t written = nullptr;
      ASSERT_EQ (cudaEventCreateWithFlags (&written, cudaEventDisableTiming), cudaSuccess);
      ASSERT_EQ (cudaEventRecord (written, static_cast<cudaStream_t> (gst_cuda_stream_get_handle (upstream))),
                 cudaSuccess);
      ASSERT_EQ (cudaStreamWaitEvent (stream, written, 0), cudaSuccess);
      cudaEventDestroy (written);
      std::printf ("ordered after cudaupload's stream %p\n", gst_cuda_stream_get_handle (upstream));
      upload_carried_a_stream = true;
    }
#endif
    const int w = GST_VIDEO_INFO_WIDTH (&info), h = GST_VIDEO_INFO_HEIGHT (&info);
    const int plane_h[2] = {h, (h + 1) / 2};
    const int plane_w[2] = {w, 2 * ((w + 1) / 2)}; /* UV row in bytes */
    for (int p = 0; p < 2; ++p) {
      uint8_t *d_out = nullptr;
      const size_t bytes = size_t (plane_w[p]) * plane_h[p];
      ASSERT_EQ (cudaMalloc (reinterpret_cast<void **> (&d_out), bytes), cudaSuccess);
      ASSERT_EQ (context_test_copy_plane (
                     static_cast<const uint8_t *> (GST_VIDEO_FRAME_PLANE_DATA (&frame, p)),
                     GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p), plane_w[p], plane_h[p], d_out, stream),
                 0);
      std::vector<uint8_t> got (bytes);
      ASSERT_EQ (cudaMemcpyAsync (got.data (), d_out, bytes, cudaMemcpyDeviceToHost, stream), cudaSuccess);
      ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
      cudaFree (d_out);
      const auto *ref_plane = static_cast<const uint8_t *> (GST_VIDEO_FRAME_PLANE_DATA (&ref_frame, p));
      const int ref_stride = GST_VIDEO_FRAME_PLANE_STRIDE (&ref_frame, p);
      int mismatches = 0;
      for (int y = 0; y < plane_h[p]; ++y)
        mismatches +=
            std::memcmp (&got[size_t (y) * plane_w[p]], ref_plane + size_t (y) * ref_stride, plane_w[p]) != 0;
      EXPECT_EQ (mismatches, 0) << "rows of plane " << p << " differ from the system-memory frame";
    }
    cudaStreamDestroy (stream);
  }

  gst_video_frame_unmap (&frame);
  gst_video_frame_unmap (&ref_frame);
  gst_sample_unref (dev);
  gst_sample_unref (ref);
  gst_object_unref (ctx);
}

TEST (OneContext, StreamOrderingBranchRan)
{
#if GST_CHECK_VERSION(1, 24, 0)
  if (!upload_carried_a_stream)
    GTEST_SKIP ()
        << "cudaupload's memory carried no GstCudaStream in this build, so the ordering branch above "
           "did not run; element-gpu-stream builds that case explicitly";
#else
  GTEST_SKIP () << "GstCudaStream exists from GStreamer 1.24; this build has " << GST_VERSION_MAJOR << "."
                << GST_VERSION_MINOR;
#endif
}

#if GST_CHECK_VERSION(1, 24, 0)
/* GStreamer >= 1.24: a GstCudaMemory written on its producer's GstCudaStream without a host sync
 * (as decoders and converters leave it) is read correctly by our kernel on our own stream once our
 * stream waits for an event recorded on the producer's stream. The producer is slow (it spins
 * before writing) and each frame has a new value, so a reader not ordered after it sees the
 * previous frame's value. */
TEST (OneContext, KernelIsOrderedAfterTheUpstreamStream)
{
  ASSERT_TRUE (gst_cuda_load_library ());
  dla::PrimaryContext primary;
  const dla::Status st = dla::PrimaryContext::Retain (0, &primary);
  ASSERT_TRUE (st.ok ()) << st.message;
  GstCudaContext *ctx =
      gst_cuda_context_new_wrapped (static_cast<CUcontext> (primary.handle ()), primary.device ());
  ASSERT_NE (ctx, nullptr);
  GstCudaStream *upstream = gst_cuda_stream_new (ctx);
  ASSERT_NE (upstream, nullptr);
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 640, 480); /* the luma plane is used */
  GstMemory *mem = gst_cuda_allocator_alloc (nullptr, ctx, upstream, &info);
  ASSERT_NE (mem, nullptr);
  GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (mem);
  EXPECT_EQ (gst_cuda_memory_get_stream (cmem), upstream);

  dla::ScopedContext scope (primary.handle ());
  cudaStream_t ours = nullptr;
  cudaEvent_t written = nullptr;
  ASSERT_EQ (cudaStreamCreateWithFlags (&ours, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ (cudaEventCreateWithFlags (&written, cudaEventDisableTiming), cudaSuccess);
  const int w = 640, h = 480;
  const int64_t pitch = GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, 0);
  uint8_t *d_out = nullptr;
  ASSERT_EQ (cudaMalloc (reinterpret_cast<void **> (&d_out), size_t (w) * h), cudaSuccess);
  std::vector<uint8_t> got (size_t (w) * h);
  const auto producer = static_cast<cudaStream_t> (gst_cuda_stream_get_handle (upstream));
  int stale = 0;
  for (int frame = 0; frame < 50; ++frame) {
    const uint8_t value = uint8_t (10 + frame);
    GstMapInfo map;
    ASSERT_TRUE (gst_memory_map (mem, &map, GstMapFlags (GST_MAP_WRITE | GST_MAP_CUDA)));
    ASSERT_EQ (
        context_test_slow_fill (static_cast<uint8_t *> (map.data), pitch, w, h, value, 2000000, producer), 0);
    gst_memory_unmap (mem, &map);
    GST_MINI_OBJECT_FLAG_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC); /* written, not synced */

    ASSERT_TRUE (gst_memory_map (mem, &map, GstMapFlags (GST_MAP_READ | GST_MAP_CUDA)));
    ASSERT_EQ (cudaEventRecord (written, producer), cudaSuccess);
    ASSERT_EQ (cudaStreamWaitEvent (ours, written, 0), cudaSuccess);
    ASSERT_EQ (context_test_copy_plane (static_cast<const uint8_t *> (map.data), pitch, w, h, d_out, ours),
               0);
    ASSERT_EQ (cudaMemcpyAsync (got.data (), d_out, got.size (), cudaMemcpyDeviceToHost, ours), cudaSuccess);
    ASSERT_EQ (cudaStreamSynchronize (ours), cudaSuccess);
    gst_memory_unmap (mem, &map);
    for (uint8_t b : got)
      if (b != value) {
        ++stale;
        break;
      }
  }
  EXPECT_EQ (stale, 0) << "frames read before the upstream stream finished writing them";
  cudaFree (d_out);
  cudaEventDestroy (written);
  cudaStreamDestroy (ours);
  gst_memory_unref (mem);
  gst_cuda_stream_unref (upstream);
  gst_object_unref (ctx);
}
#endif

}  // namespace
