/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlainfer end to end on a CUDA GPU with the software DLA (swdla; DLAINFER_CUDLA_LIBRARY): real
 * pipelines (appsrc/videotestsrc ! [cudaupload] ! dlainfer ! appsink) and models whose answers
 * are known, so geometry, channel order and colour-matrix mistakes cannot pass. */
#include <cuda_runtime_api.h>
#include <gst/check/gstharness.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <tuple>

#include "dla/primary_context.h"
#include "gpu_support.h"
#include "swdla_query.h"

namespace {

using namespace element_gpu;

using ElementGpu = SwdlaTest;

#define REQUIRE_CUDAUPLOAD()                                                       \
  do {                                                                             \
    if (!cudaupload_available ())                                                  \
      GTEST_FAIL () << "cudaupload (GStreamer's nvcodec plugin) is not available"; \
  } while (0)

std::string infer (const std::string &model_name, const std::string &extra = "")
{
  return "dlainfer name=infer model=" + model (model_name) + " " + extra;
}

/* ---- colours: each format, CUDA and system memory, 1080p / 4K / odd sizes ---- */

using ColourCase = std::tuple<const char *, bool, int, int>; /* format, CUDA memory, width, height */
class Colours : public ElementGpu, public testing::WithParamInterface<ColourCase> {};

/* All 8 colours are recognised with confidence > 0.9, the meta names the element and swdla, and the
 * results are sorted. The frames come from RGBA through videoconvert into the format. */
TEST_P (Colours, AllEightRight)
{
  const char *format = std::get<0> (GetParam ());
  const bool cuda = std::get<1> (GetParam ());
  const int w = std::get<2> (GetParam ()), h = std::get<3> (GetParam ());
  if (cuda)
    REQUIRE_CUDAUPLOAD ();
  const std::string caps = "video/x-raw,format=RGBA,width=" + std::to_string (w) +
                           ",height=" + std::to_string (h) + ",framerate=30/1";
  Pipeline p ("appsrc name=src format=time caps=" + caps + " ! videoconvert ! video/x-raw,format=" + format +
              " ! " + (cuda ? "cudaupload ! video/x-raw(memory:CUDAMemory) ! " : "") +
              infer ("colours", "labels=" + labels_of ("colours")) + " ! appsink name=sink sync=false");
  ASSERT_TRUE (p.play ());
  for (int i = 0; i < 8; ++i) {
    const uint32_t rgb = kColours[i].rgb;
    ASSERT_TRUE (p.push (rgba_frame (
        w, h, [rgb] (int, int) { return rgb; }, GST_SECOND * i / 30)));
  }
  for (int i = 0; i < 8; ++i) {
    GstSample *s = p.pull ();
    ASSERT_NE (s, nullptr) << kColours[i].name;
    GstBuffer *buf = gst_sample_get_buffer (s);
    if (cuda) {
      EXPECT_TRUE (gst_is_cuda_memory (gst_buffer_peek_memory (buf, 0)))
          << "the frame must stay in CUDA memory";
    }
    EXPECT_EQ (GST_BUFFER_PTS (buf), GST_SECOND * i / 30) << "timestamps pass through";
    const Result r = result_of (buf);
    ASSERT_TRUE (r.found) << "no classification meta on frame " << i;
    EXPECT_EQ (r.backend, "swdla");
    ASSERT_FALSE (r.labels.empty ());
    ASSERT_LE (r.labels.size (), 5u);
    EXPECT_EQ (r.labels[0], kColours[i].name) << format << (cuda ? " CUDA " : " system ") << w << "x" << h;
    EXPECT_GT (r.confidences[0], 0.9f) << kColours[i].name;
    for (size_t k = 1; k < r.confidences.size (); ++k)
      EXPECT_GE (r.confidences[k - 1], r.confidences[k]) << "results sorted";
    gst_sample_unref (s);
  }
  p.stop ();
}

std::vector<ColourCase> colour_cases ()
{
  std::vector<ColourCase> out;
  for (const char *f : {"NV12", "I420", "RGBA", "BGRA", "RGBx", "BGRx"})
    for (bool cuda : {true, false})
      for (auto wh : {std::make_pair (1920, 1080), std::make_pair (3840, 2160), std::make_pair (321, 241)})
        out.emplace_back (f, cuda, wh.first, wh.second);
  return out;
}

INSTANTIATE_TEST_SUITE_P (FormatsMemoriesSizes, Colours, testing::ValuesIn (colour_cases ()),
                          [] (const testing::TestParamInfo<ColourCase> &info) {
                            return std::string (std::get<0> (info.param)) +
                                   (std::get<1> (info.param) ? "_cuda_" : "_system_") +
                                   std::to_string (std::get<2> (info.param)) + "x" +
                                   std::to_string (std::get<3> (info.param));
                          });

/* ---- geometry, channel order, colour matrix ---- */

/* The brightest quadrant is found for each quadrant, in CUDA NV12 and system RGBA, even and odd
 * sizes: a transposed, mirrored or misplaced image picks the wrong one. */
TEST_F (ElementGpu, QuadrantsProveGeometry)
{
  const bool cuda_ok = cudaupload_available ();
  for (const char *mode : {"cuda-NV12", "system-RGBA", "system-I420"}) {
    const bool cuda = std::string (mode).rfind ("cuda", 0) == 0;
    if (cuda && !cuda_ok)
      continue;
    const std::string fmt = std::string (mode).substr (std::string (mode).find ('-') + 1);
    for (auto wh : {std::make_pair (640, 480), std::make_pair (333, 199)}) {
      const int w = wh.first, h = wh.second;
      Pipeline p ("appsrc name=src format=time caps=video/x-raw,format=RGBA,width=" + std::to_string (w) +
                  ",height=" + std::to_string (h) + ",framerate=30/1 ! videoconvert ! video/x-raw,format=" +
                  fmt + " ! " + (cuda ? "cudaupload ! video/x-raw(memory:CUDAMemory) ! " : "") +
                  infer ("quadrants") + " ! appsink name=sink sync=false");
      ASSERT_TRUE (p.play ());
      for (int q = 0; q < 4; ++q)
        ASSERT_TRUE (p.push (rgba_frame (w, h, [=] (int x, int y) {
          const int qx = x >= w / 2, qy = y >= h / 2;
          return (qy * 2 + qx) == q ? 0xffffffu : 0x202020u;
        })));
      for (int q = 0; q < 4; ++q) {
        GstSample *s = p.pull ();
        ASSERT_NE (s, nullptr);
        const Result r = result_of (gst_sample_get_buffer (s));
        ASSERT_TRUE (r.found);
        EXPECT_EQ (r.ids[0], q) << mode << " " << w << "x" << h << ": bright quadrant " << q << " read as "
                                << r.labels[0];
        gst_sample_unref (s);
      }
      p.stop ();
    }
  }
}

/* Limited-range YUV of an RGB pixel with matrix (kr, kb), decoded back with (kr2, kb2): what the
 * element would see with the wrong matrix. */
void yuv_round_trip (const double rgb[3], double kr, double kb, double kr2, double kb2, double out[3])
{
  const double y = kr * rgb[0] + (1 - kr - kb) * rgb[1] + kb * rgb[2];
  const double pb = (rgb[2] - y) / (2 * (1 - kb)), pr = (rgb[0] - y) / (2 * (1 - kr));
  const double r = y + 2 * (1 - kr2) * pr, b = y + 2 * (1 - kb2) * pb;
  out[0] = r;
  out[2] = b;
  out[1] = (y - kr2 * r - kb2 * b) / (1 - kr2 - kb2);
}

/* The read-out model's output c*16 + y*4 + x is the mean of channel c over cell (y, x) of a 4x4
 * grid. A black frame with one coloured cell at (0, 0) puts R, G and B of that cell in the top 5;
 * the softmax ratios against a black cell give back the pixel values (value = pixel / 255):
 * colour matrix, range and channel order are all checked, against what a wrong matrix would
 * give. */
TEST_F (ElementGpu, ReadoutProvesChannelOrderAndMatrix)
{
  const double rgb[3] = {200, 50, 120};
  const int w = 448, h = 448;
  struct Case {
    const char *format, *colorimetry, *order;
    bool cuda;
    double kr, kb, wrong_kr, wrong_kb;
  } cases[] = {
      {"RGBA", nullptr, "rgb", false, 0, 0, 0, 0},
      {"BGRx", nullptr, "bgr", true, 0, 0, 0, 0},
      {"NV12", "bt709", "rgb", true, 0.2126, 0.0722, 0.299, 0.114},
      {"NV12", "bt601", "rgb", false, 0.299, 0.114, 0.2126, 0.0722},
      {"I420", "bt709", "bgr", false, 0.2126, 0.0722, 0.299, 0.114},
      {"I420", "bt2020", "rgb", true, 0.2627, 0.0593, 0.2126, 0.0722},
  };
  for (const Case &c : cases) {
    if (c.cuda && !cudaupload_available ())
      continue;
    std::string caps = std::string ("video/x-raw,format=") + c.format;
    if (c.colorimetry)
      caps += std::string (",colorimetry=") + c.colorimetry;
    Pipeline p (
        "appsrc name=src format=time caps=video/x-raw,format=RGBA,width=448,height=448,framerate=30/1 ! "
        "videoconvert ! " +
        caps + " ! " + (c.cuda ? "cudaupload ! video/x-raw(memory:CUDAMemory) ! " : "") +
        infer ("readout", std::string ("channel-order=") + c.order) + " ! appsink name=sink sync=false");
    ASSERT_TRUE (p.play ());
    ASSERT_TRUE (p.push (rgba_frame (w, h, [&] (int x, int y) {
      return x < w / 4 && y < h / 4 ? (uint32_t (rgb[0]) << 16 | uint32_t (rgb[1]) << 8 | uint32_t (rgb[2]))
                                    : 0u;
    })));
    GstSample *s = p.pull ();
    ASSERT_NE (s, nullptr);
    const Result r = result_of (gst_sample_get_buffer (s));
    ASSERT_TRUE (r.found);
    ASSERT_EQ (r.ids.size (), 5u);
    /* Tensor channel of R, G, B: swapped for bgr. */
    const bool bgr = std::string (c.order) == "bgr";
    const int cls[3] = {bgr ? 32 : 0, 16, bgr ? 0 : 32};
    EXPECT_EQ (r.ids[0], cls[0]) << c.format << " " << c.order << ": R (200) must be the largest value";
    EXPECT_EQ (r.labels[0], "class_" + std::to_string (cls[0])) << "class-index names without labels";
    const float reference = r.confidences[4]; /* a (near) black cell: value ~0 */
    double got[3] = {-1, -1, -1};
    for (size_t k = 0; k < 5; ++k)
      for (int ch = 0; ch < 3; ++ch)
        if (r.ids[k] == cls[ch])
          got[ch] = 255.0 * std::log (double (r.confidences[k]) / reference);
    double wrong[3] = {rgb[0], rgb[1], rgb[2]};
    if (c.colorimetry)
      yuv_round_trip (rgb, c.kr, c.kb, c.wrong_kr, c.wrong_kb, wrong);
    double err = 0, err_wrong = 0;
    for (int ch = 0; ch < 3; ++ch) {
      EXPECT_NEAR (got[ch], rgb[ch], 8.0)
          << c.format << " " << (c.colorimetry ? c.colorimetry : "") << " channel " << ch;
      err += std::fabs (got[ch] - rgb[ch]);
      err_wrong += std::fabs (got[ch] - wrong[ch]);
    }
    if (c.colorimetry) {
      EXPECT_LT (err, err_wrong) << c.format << " " << c.colorimetry
                                 << ": closer to the wrong matrix's colours";
    }
    std::printf ("%s %s %s: read back %.1f %.1f %.1f (sent 200 50 120)\n", c.format,
                 c.colorimetry ? c.colorimetry : "-", c.order, got[0], got[1], got[2]);
    gst_sample_unref (s);
    p.stop ();
  }
}

/* ---- one CUDA context ---- */

/* cudaupload adopts the element's context (the same GstCudaContext), which wraps the device's
 * primary context; the element answers context queries from READY on. */
TEST_F (ElementGpu, CudaUploadAdoptsTheElementsContext)
{
  REQUIRE_CUDAUPLOAD ();
  Pipeline p (
      "videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=320,height=240 ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! " +
      infer ("colours") + " ! appsink name=sink sync=false");
  ASSERT_EQ (gst_element_set_state (p.by_name ("infer"), GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
  GstCudaContext *ready = element_context (p.by_name ("infer"));
  ASSERT_NE (ready, nullptr) << "no context answered in READY";
  ASSERT_TRUE (p.play ());
  GstSample *s = p.pull ();
  ASSERT_NE (s, nullptr);
  GstMemory *mem = gst_buffer_peek_memory (gst_sample_get_buffer (s), 0);
  ASSERT_TRUE (gst_is_cuda_memory (mem));
  GstCudaContext *ours = element_context (p.by_name ("infer"));
  ASSERT_NE (ours, nullptr);
  EXPECT_EQ (GST_CUDA_MEMORY_CAST (mem)->context, ours) << "cudaupload made its own context";
  dla::PrimaryContext primary;
  ASSERT_TRUE (dla::PrimaryContext::Retain (0, &primary).ok ());
  EXPECT_EQ (gst_cuda_context_get_handle (ours), primary.handle ()) << "not the primary context";
  EXPECT_EQ (gst_cuda_context_get_handle (GST_CUDA_MEMORY_CAST (mem)->context), primary.handle ());
  gst_sample_unref (s);
  p.stop ();
  gst_object_unref (ours);
  gst_object_unref (ready);
}

/* Two of our elements in one pipeline hold the same GstCudaContext, the one cudaupload's memory is
 * in: the second asks its neighbours and the pipeline before it wraps the primary context. (Two
 * wrappers of one context break GStreamer 1.24's CUDA pools: a decoder's stream of one wrapper in a
 * pool of the other fails to allocate.) */
TEST_F (ElementGpu, OurElementsShareOneContext)
{
  REQUIRE_CUDAUPLOAD ();
  Pipeline p (
      "videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=320,height=240 ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! " +
      infer ("colours") + " ! dlainfer name=second model=" + model ("colours") +
      " ! appsink name=sink sync=false");
  ASSERT_TRUE (p.play ());
  GstSample *s = p.pull ();
  ASSERT_NE (s, nullptr);
  GstCudaContext *first = element_context (p.by_name ("infer"));
  GstCudaContext *second = element_context (p.by_name ("second"));
  ASSERT_NE (first, nullptr);
  EXPECT_EQ (first, second) << "each element wrapped the primary context itself";
  GstMemory *mem = gst_buffer_peek_memory (gst_sample_get_buffer (s), 0);
  ASSERT_TRUE (gst_is_cuda_memory (mem));
  EXPECT_EQ (GST_CUDA_MEMORY_CAST (mem)->context, first) << "cudaupload holds another wrapper";
  gst_sample_unref (s);
  p.stop ();
  gst_object_unref (first);
  if (second)
    gst_object_unref (second);
}

/* Memory from another GstCudaContext (a decoder that made its own) is still classified right. The
 * frames are built in that context explicitly, so the foreign path runs whatever cudaupload does. */
GstBuffer *foreign_frame (GstBufferPool *pool, const GstVideoInfo &info, uint32_t rgb)
{
  GstBuffer *buf = nullptr;
  if (gst_buffer_pool_acquire_buffer (pool, &buf, nullptr) != GST_FLOW_OK)
    return nullptr;
  GstVideoFrame f;
  if (!gst_video_frame_map (&f, &info, buf, GST_MAP_WRITE)) { /* staged on the host, uploaded at unmap */
    gst_buffer_unref (buf);
    return nullptr;
  }
  const uint8_t px[4] = {uint8_t (rgb >> 16), uint8_t (rgb >> 8), uint8_t (rgb), 255};
  for (int y = 0; y < GST_VIDEO_INFO_HEIGHT (&info); ++y) {
    auto *row = static_cast<uint8_t *> (GST_VIDEO_FRAME_PLANE_DATA (&f, 0)) +
                y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
    for (int x = 0; x < GST_VIDEO_INFO_WIDTH (&info); ++x)
      std::memcpy (row + 4 * x, px, 4);
  }
  gst_video_frame_unmap (&f);
  return buf;
}

TEST_F (ElementGpu, ForeignContextMemoryStillWorks)
{
  ASSERT_TRUE (gst_cuda_load_library ());
  GstCudaContext *foreign = gst_cuda_context_new (0);
  ASSERT_NE (foreign, nullptr);
  const char *caps_str = "video/x-raw(memory:CUDAMemory),format=RGBA,width=320,height=240,framerate=30/1";
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstVideoInfo info;
  ASSERT_TRUE (gst_video_info_from_caps (&info, caps));
  GstBufferPool *pool = gst_cuda_buffer_pool_new (foreign);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, guint (GST_VIDEO_INFO_SIZE (&info)), 3, 0);
  gst_caps_unref (caps);
  ASSERT_TRUE (gst_buffer_pool_set_config (pool, config));
  ASSERT_TRUE (gst_buffer_pool_set_active (pool, TRUE));

  Pipeline p ("appsrc name=src format=time ! " + infer ("colours", "labels=" + labels_of ("colours")) +
              " ! appsink name=sink sync=false");
  p.set_src_caps (caps_str);
  ASSERT_TRUE (p.play ());
  for (int i = 0; i < 3; ++i) {
    GstBuffer *buf = foreign_frame (pool, info, kColours[2 + i].rgb);
    ASSERT_NE (buf, nullptr);
    GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
    ASSERT_TRUE (p.push (buf));
  }
  GstCudaContext *ours = element_context (p.by_name ("infer"));
  ASSERT_NE (ours, nullptr);
  EXPECT_NE (gst_cuda_context_get_handle (ours), gst_cuda_context_get_handle (foreign))
      << "the element adopted the foreign context: the foreign path would not run";
  gst_object_unref (ours);
  for (int i = 0; i < 3; ++i) {
    GstSample *s = p.pull ();
    ASSERT_NE (s, nullptr);
    GstMemory *mem = gst_buffer_peek_memory (gst_sample_get_buffer (s), 0);
    ASSERT_TRUE (gst_is_cuda_memory (mem));
    EXPECT_EQ (gst_cuda_context_get_handle (GST_CUDA_MEMORY_CAST (mem)->context),
               gst_cuda_context_get_handle (foreign));
    const Result r = result_of (gst_sample_get_buffer (s));
    ASSERT_TRUE (r.found);
    EXPECT_EQ (r.labels[0], kColours[2 + i].name);
    gst_sample_unref (s);
  }
  p.stop ();
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_object_unref (foreign);
}

/* ---- DLA cores ---- */

TEST_F (ElementGpu, DlaCoreOne)
{
  Pipeline p (
      "videotestsrc num-buffers=2 pattern=solid-color foreground-color=0xff0000ff ! "
      "video/x-raw,format=RGBA,width=640,height=480 ! " +
      infer ("colours", "dla-core=1 labels=" + labels_of ("colours")) + " ! appsink name=sink sync=false");
  const int64_t core0 = dlainfer_test::swdla_core_tasks_before_load (0),
                core1 = dlainfer_test::swdla_core_tasks_before_load (1);
  ASSERT_TRUE (p.play ());
  for (int i = 0; i < 2; ++i) {
    GstSample *s = p.pull ();
    ASSERT_NE (s, nullptr);
    const Result r = result_of (gst_sample_get_buffer (s));
    ASSERT_TRUE (r.found);
    EXPECT_EQ (r.labels[0], "blue");
    EXPECT_EQ (r.dla_core, 1) << "the meta names the core that produced the result";
    gst_sample_unref (s);
  }
  p.stop ();
  /* Every core gives the same answer: swdla's own count shows dla-core reached cudlaCreateDevice. */
  ASSERT_GE (dlainfer_test::swdla_core_tasks (0), 0) << "swdla's task accounting is not reachable";
  EXPECT_EQ (dlainfer_test::swdla_core_tasks (1) - core1, 3) << "the warm-up task and the 2 frames'";
  EXPECT_EQ (dlainfer_test::swdla_core_tasks (0) - core0, 0);
}

/* Two elements on cores 0 and 1 in one pipeline: both results on the buffer, both right, and one
 * shared primary context. */
TEST_F (ElementGpu, TwoElementsOnCoresZeroAndOne)
{
  const std::string m = model ("colours"), l = labels_of ("colours");
  Pipeline p (
      "videotestsrc num-buffers=3 pattern=solid-color foreground-color=0xffffff00 ! "
      "video/x-raw,format=NV12,width=1280,height=720 ! " +
      std::string (cudaupload_available () ? "cudaupload ! video/x-raw(memory:CUDAMemory) ! " : "") +
      "dlainfer name=a dla-core=0 model=" + m + " labels=" + l + " ! dlainfer name=b dla-core=1 model=" + m +
      " labels=" + l + " ! appsink name=sink sync=false");
  const int64_t core0 = dlainfer_test::swdla_core_tasks_before_load (0),
                core1 = dlainfer_test::swdla_core_tasks_before_load (1);
  ASSERT_TRUE (p.play ());
  for (int i = 0; i < 3; ++i) {
    GstSample *s = p.pull ();
    ASSERT_NE (s, nullptr);
    const Result a = result_of (gst_sample_get_buffer (s), "a"),
                 b = result_of (gst_sample_get_buffer (s), "b");
    ASSERT_TRUE (a.found);
    ASSERT_TRUE (b.found);
    EXPECT_EQ (a.labels[0], "yellow");
    EXPECT_EQ (b.labels[0], "yellow");
    EXPECT_EQ (a.dla_core, 0);
    EXPECT_EQ (b.dla_core, 1);
    gst_sample_unref (s);
  }
  GstCudaContext *ca = element_context (p.by_name ("a")), *cb = element_context (p.by_name ("b"));
  ASSERT_NE (ca, nullptr);
  ASSERT_NE (cb, nullptr);
  EXPECT_EQ (gst_cuda_context_get_handle (ca), gst_cuda_context_get_handle (cb));
  gst_object_unref (ca);
  gst_object_unref (cb);
  p.stop ();
  ASSERT_GE (dlainfer_test::swdla_core_tasks (0), 0) << "swdla's task accounting is not reachable";
  /* Each element's warm-up task at start, then the 3 frames'. */
  EXPECT_EQ (dlainfer_test::swdla_core_tasks (0) - core0, 4);
  EXPECT_EQ (dlainfer_test::swdla_core_tasks (1) - core1, 4);
}

/* ---- stream changes and lifecycle ---- */

/* Mid-stream renegotiation to another resolution and format (and memory) keeps results right. */
TEST_F (ElementGpu, RenegotiatesResolutionAndFormat)
{
  const bool cuda = cudaupload_available ();
  Pipeline p (
      "appsrc name=src format=time caps=video/x-raw,format=RGBA,width=640,height=480,framerate=30/1 ! "
      "videoconvert ! capsfilter name=cf caps=video/x-raw,format=NV12 ! " +
      std::string (cuda ? "cudaupload ! video/x-raw(memory:CUDAMemory) ! " : "") +
      infer ("colours", "labels=" + labels_of ("colours")) + " ! appsink name=sink sync=false");
  ASSERT_TRUE (p.play ());
  const struct {
    int w, h;
    const char *format;
    int colour;
  } steps[] = {{640, 480, "NV12", 2}, {1920, 1080, "BGRx", 4}, {321, 241, "I420", 7}, {640, 480, "RGBA", 3}};
  int n = 0;
  for (const auto &st : steps) {
    p.set_src_caps ("video/x-raw,format=RGBA,width=" + std::to_string (st.w) +
                    ",height=" + std::to_string (st.h) + ",framerate=30/1");
    GstCaps *caps = gst_caps_from_string ((std::string ("video/x-raw,format=") + st.format).c_str ());
    g_object_set (p.by_name ("cf"), "caps", caps, nullptr);
    gst_caps_unref (caps);
    const uint32_t rgb = kColours[st.colour].rgb;
    for (int i = 0; i < 2; ++i)
      ASSERT_TRUE (p.push (rgba_frame (
          st.w, st.h, [rgb] (int, int) { return rgb; }, GST_SECOND * n++ / 30)));
    for (int i = 0; i < 2; ++i) {
      GstSample *s = p.pull ();
      ASSERT_NE (s, nullptr);
      GstVideoInfo info;
      ASSERT_TRUE (gst_video_info_from_caps (&info, gst_sample_get_caps (s)));
      EXPECT_EQ (GST_VIDEO_INFO_WIDTH (&info), st.w);
      EXPECT_STREQ (GST_VIDEO_INFO_NAME (&info), st.format);
      const Result r = result_of (gst_sample_get_buffer (s));
      ASSERT_TRUE (r.found);
      EXPECT_EQ (r.labels[0], kColours[st.colour].name) << st.w << "x" << st.h << " " << st.format;
      gst_sample_unref (s);
    }
  }
  p.stop ();
}

long rss_kib ()
{
  std::ifstream f ("/proc/self/status");
  std::string line;
  while (std::getline (f, line))
    if (line.rfind ("VmRSS:", 0) == 0)
      return std::stol (line.substr (6));
  return -1;
}

size_t gpu_used ()
{
  size_t free_b = 0, total = 0;
  cudaMemGetInfo (&free_b, &total);
  return total - free_b;
}

/* Processes with a CUDA context on device 0, from NVML (-1 when NVML cannot say). cudaMemGetInfo is
 * device-wide: its growth is this process's only when no other process holds memory there. */
int gpu_processes ()
{
  void *nvml = dlopen ("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!nvml)
    return -1;
  using Init = int (*) ();
  using Handle = int (*) (unsigned, void **);
  using Procs = int (*) (void *, unsigned *, void *);
  const auto init = reinterpret_cast<Init> (dlsym (nvml, "nvmlInit_v2"));
  const auto handle = reinterpret_cast<Handle> (dlsym (nvml, "nvmlDeviceGetHandleByIndex_v2"));
  const auto procs = reinterpret_cast<Procs> (dlsym (nvml, "nvmlDeviceGetComputeRunningProcesses_v3"));
  void *dev = nullptr;
  unsigned count = 0;
  /* With no buffer NVML answers the count (NVML_SUCCESS when 0, INSUFFICIENT_SIZE = 7 otherwise). */
  const int rc =
      init && handle && procs && init () == 0 && handle (0, &dev) == 0 ? procs (dev, &count, nullptr) : -1;
  dlclose (nvml);
  return rc == 0 || rc == 7 ? int (count) : -1;
}

/* 50 cycles NULL -> PLAYING -> EOS -> NULL: host and GPU memory stay flat (measured after the
 * first 5 cycles, when caches and pools exist). */
TEST_F (ElementGpu, FiftyStateCyclesWithoutLeaks)
{
  const bool cuda = cudaupload_available ();
  Pipeline p ("videotestsrc num-buffers=3 ! video/x-raw,format=NV12,width=640,height=480 ! " +
              std::string (cuda ? "cudaupload ! video/x-raw(memory:CUDAMemory) ! " : "") + infer ("colours") +
              " ! fakesink");
  long rss0 = 0;
  size_t gpu0 = 0;
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE (p.play ()) << "cycle " << i;
    ASSERT_TRUE (p.wait_eos ()) << "cycle " << i;
    ASSERT_EQ (gst_element_set_state (p.get (), GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    if (i == 4) {
      rss0 = rss_kib ();
      gpu0 = gpu_used ();
    }
  }
  const long rss_growth = rss_kib () - rss0;
  const long long gpu_growth = (long long)gpu_used () - (long long)gpu0;
  std::printf ("after 45 more cycles: host RSS %+ld KiB, GPU used %+lld KiB\n", rss_growth,
               gpu_growth / 1024);
  EXPECT_LT (rss_growth, 16 * 1024) << "host memory grows";
  const int others = gpu_processes () - 1;
  if (others != 0) {
    std::printf ("GPU memory growth not judged: %s\n",
                 others < 0 ? "NVML cannot list the device's processes" : "other processes use the GPU");
    return;
  }
  EXPECT_LT (gpu_growth, 16ll << 20) << "GPU memory grows";
}

/* GstHarness: timestamps, duration, offsets and flags pass through; the meta names the element. */
TEST_F (ElementGpu, HarnessKeepsBufferFields)
{
  GstHarness *h = gst_harness_new_parse (("dlainfer model=" + model ("colours")).c_str ());
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1");
  GstBuffer *in = rgba_frame (
      64, 48, [] (int, int) { return 0x00ff00u; }, 42 * GST_MSECOND);
  GST_BUFFER_DTS (in) = 41 * GST_MSECOND;
  GST_BUFFER_DURATION (in) = 7 * GST_MSECOND;
  GST_BUFFER_OFFSET (in) = 5;
  GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT | GST_BUFFER_FLAG_DELTA_UNIT);
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  ASSERT_NE (out, nullptr);
  EXPECT_EQ (GST_BUFFER_PTS (out), 42 * GST_MSECOND);
  EXPECT_EQ (GST_BUFFER_DTS (out), 41 * GST_MSECOND);
  EXPECT_EQ (GST_BUFFER_DURATION (out), 7 * GST_MSECOND);
  EXPECT_EQ (GST_BUFFER_OFFSET (out), 5u);
  EXPECT_TRUE (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_DISCONT));
  EXPECT_TRUE (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_DELTA_UNIT));
  /* h->element is the bin gst_harness_new_parse made; the meta names the dlainfer inside it. */
  GstElement *infer = gst_harness_find_element (h, "dlainfer");
  ASSERT_NE (infer, nullptr);
  const Result r = result_of (out, GST_OBJECT_NAME (infer));
  gst_object_unref (infer);
  ASSERT_TRUE (r.found);
  EXPECT_EQ (r.ids[0], 3) << "green is class 3";
  EXPECT_EQ (r.labels[0], "class_3") << "no labels file: class index names";
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

/* Interlaced caps are refused by the pad templates: linking fails with GStreamer's own caps
 * message (not a bare not-negotiated once data flows). */
TEST_F (ElementGpu, InterlacedIsRefusedAtLink)
{
  GError *err = nullptr;
  GstElement *p =
      gst_parse_launch (("videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=64,height=48,"
                         "interlace-mode=interleaved ! " +
                         infer ("colours") + " ! fakesink")
                            .c_str (),
                        &err);
  ASSERT_NE (err, nullptr) << "the interlaced caps were linked";
  EXPECT_TRUE (g_error_matches (err, GST_PARSE_ERROR, GST_PARSE_ERROR_LINK)) << err->message;
  EXPECT_NE (std::string (err->message).find ("can't handle caps"), std::string::npos) << err->message;
  EXPECT_NE (std::string (err->message).find ("interlace-mode=(string)interleaved"), std::string::npos)
      << err->message;
  g_clear_error (&err);
  if (p)
    gst_object_unref (p);
}

/* ---- failures that need a GPU: each an error on the bus, the pipeline back in NULL ---- */

struct FailureCase {
  const char *name;
  std::string props; /* dlainfer properties */
  GQuark domain;
  int code;
  std::vector<std::string> say; /* the message contains each */
};

class Failures : public ElementGpu, public testing::WithParamInterface<FailureCase> {};

TEST_P (Failures, ClearErrorAtStart)
{
  const FailureCase &c = GetParam ();
  const BusError e = start_error (
      "videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=64,height=48 ! "
      "dlainfer name=infer " +
      c.props + " ! fakesink");
  ASSERT_TRUE (e.posted) << c.name;
  EXPECT_EQ (e.source, "infer");
  EXPECT_EQ (e.domain, c.domain) << e.message;
  EXPECT_EQ (e.code, c.code) << e.message;
  for (const std::string &s : c.say)
    EXPECT_NE (e.message.find (s), std::string::npos) << "'" << s << "' missing from: " << e.message;
  std::printf ("%s: %s\n", c.name, e.message.c_str ());
}

std::vector<FailureCase> failure_cases ()
{
  const GQuark res = GST_RESOURCE_ERROR;
  const std::string three = dlainfer_test::test_data ("element-three-labels.txt");
  std::ofstream (three) << "a\nb\nc\n";
  return {
      {"truncated",
       "model=" + model ("broken-truncated"),
       res,
       GST_RESOURCE_ERROR_SETTINGS,
       {"cudlaErrorInvalidParam (1)"}},
      {"bad_version",
       "model=" + model ("broken-version"),
       res,
       GST_RESOURCE_ERROR_SETTINGS,
       {"cudlaErrorInvalidParam (1)"}},
      {"not_a_loadable", "model=" + model ("broken-magic"), res, GST_RESOURCE_ERROR_SETTINGS, {"loadable"}},
      {"wrong_input_type",
       "model=" + model ("broken-wrong-type"),
       res,
       GST_RESOURCE_ERROR_SETTINGS,
       {"--inputIOFormats"}},
      {"two_inputs",
       "model=" + model ("broken-two-inputs"),
       res,
       GST_RESOURCE_ERROR_SETTINGS,
       {"one image input"}},
      {"batch_two",
       "model=" + model ("colours-batch2"),
       res,
       GST_RESOURCE_ERROR_SETTINGS,
       {"batch 2", "batch 1"}},
      {"grey_input", "model=" + model ("readout-grey"), res, GST_RESOURCE_ERROR_SETTINGS, {"1 channel"}},
      {"labels_count",
       "model=" + model ("colours") + " labels=" + three,
       res,
       GST_RESOURCE_ERROR_SETTINGS,
       {"3 labels", "8 classes"}},
      {"dla_core_too_high",
       "model=" + model ("colours") + " dla-core=2",
       res,
       GST_RESOURCE_ERROR_SETTINGS,
       {"2 core(s)", "0..1"}},
      {"no_such_cuda_device",
       "model=" + model ("colours") + " cuda-device-id=99",
       res,
       GST_RESOURCE_ERROR_SETTINGS,
       {"99", "does not exist"}},
  };
}

INSTANTIATE_TEST_SUITE_P (Start, Failures, testing::ValuesIn (failure_cases ()),
                          [] (const testing::TestParamInfo<FailureCase> &info) {
                            return std::string (info.param.name);
                          });

/* cuDLA refuses device creation (swdla fault injection): LIBRARY/INIT with status name and number. */
TEST_F (ElementGpu, CudlaRefusesTheDevice)
{
  g_setenv ("SWDLA_FAIL_CALL", "cudlaCreateDevice:1:cudlaErrorInvalidDevice", TRUE);
  const BusError e =
      start_error ("videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=64,height=48 ! " +
                   infer ("colours") + " ! fakesink");
  g_unsetenv ("SWDLA_FAIL_CALL");
  ASSERT_TRUE (e.posted);
  EXPECT_EQ (e.domain, GST_LIBRARY_ERROR) << e.message;
  EXPECT_NE (e.message.find ("cudlaErrorInvalidDevice (8)"), std::string::npos) << e.message;
}

/* A task that fails on the DLA (the 4th: the 3rd frame's, after the warm-up task at start): STREAM/FAILED
 * naming cudlaGetLastError's status; two frames came through first; the pipeline goes back to NULL. */
TEST_F (ElementGpu, TaskErrorAtRunTime)
{
  g_setenv ("SWDLA_TASK_ERROR", "4:cudlaErrorDlaErrInvalidInput", TRUE);
  /* One task at a time: the DLA's error state is per device, so with a second task in flight (and no
   * service time) the failure could be read at the end of the task before it (element-gpu-inflight
   * covers several in flight). */
  Pipeline p ("videotestsrc num-buffers=10 ! video/x-raw,format=RGBA,width=64,height=48 ! " +
              infer ("colours", "max-in-flight=1") + " ! appsink name=sink sync=false");
  ASSERT_TRUE (p.play ());
  int frames = 0;
  while (GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (p.by_name ("sink")), 5 * GST_SECOND)) {
    ++frames;
    gst_sample_unref (s);
  }
  const BusError e = p.wait_error (5 * GST_SECOND);
  g_unsetenv ("SWDLA_TASK_ERROR");
  EXPECT_EQ (frames, 2);
  ASSERT_TRUE (e.posted);
  EXPECT_EQ (e.source, "infer");
  EXPECT_EQ (e.domain, GST_STREAM_ERROR);
  EXPECT_EQ (e.code, GST_STREAM_ERROR_FAILED);
  EXPECT_NE (e.message.find ("cudlaErrorDlaErrInvalidInput"), std::string::npos) << e.message;
  p.stop ();
}

/* A hung task ends at task-timeout (not cuDLA's 30 s default), the error reaches the bus and the
 * pipeline reaches NULL quickly. */
TEST_F (ElementGpu, HungTaskEndsAtTaskTimeout)
{
  g_setenv ("SWDLA_HANG_MS", "2:60000", TRUE); /* the first frame's: task 1 is the warm-up */
  /* One task at a time: a second task ending right after the hung one would overwrite the DLA's
   * per-device error state before the host reads it (element-gpu-inflight covers several). */
  Pipeline p ("videotestsrc num-buffers=5 ! video/x-raw,format=RGBA,width=64,height=48 ! " +
              infer ("colours", "task-timeout=500 max-in-flight=1") + " ! fakesink");
  const auto t0 = std::chrono::steady_clock::now ();
  ASSERT_TRUE (p.play ());
  const BusError e = p.wait_error (30 * GST_SECOND);
  p.stop ();
  g_unsetenv ("SWDLA_HANG_MS");
  const double s = std::chrono::duration<double> (std::chrono::steady_clock::now () - t0).count ();
  ASSERT_TRUE (e.posted) << "no error after " << s << " s";
  EXPECT_EQ (e.domain, GST_STREAM_ERROR);
  /* A timeout, not the process-fatal 911 ("restart the process"). */
  EXPECT_NE (e.message.find ("did not finish within the task timeout of 500 ms"), std::string::npos)
      << e.message;
  EXPECT_EQ (e.message.find ("restart the process"), std::string::npos) << e.message;
  EXPECT_LT (s, 10.0) << "the hang was not cut at task-timeout=500";
  std::printf ("hung task: %.2f s to NULL: %s\n", s, e.message.c_str ());
  /* The process goes on: a second pipeline classifies. */
  Pipeline next (
      "videotestsrc num-buffers=1 pattern=solid-color foreground-color=0xff00ff00 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! " +
      infer ("colours", "labels=" + labels_of ("colours")) + " ! appsink name=sink sync=false");
  ASSERT_TRUE (next.play ());
  GstSample *sample = next.pull ();
  ASSERT_NE (sample, nullptr);
  const Result r = result_of (gst_sample_get_buffer (sample));
  ASSERT_TRUE (r.found);
  EXPECT_EQ (r.labels[0], "green");
  gst_sample_unref (sample);
  next.stop ();
}

}  // namespace
