/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* NVMM input end to end on a GPU host (docs/nvmm.md 7): frames through the stand-in's surfaces
 * (block-linear CUDA arrays and pitch-linear memory) give the DLA the same input tensors, byte for
 * byte, and the same results as the same frames through cudaupload; every EGL map and CUDA
 * registration is undone, with frames in flight, flushes and state changes; the library's absence
 * is a caps-time error naming the way out. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <glib/gstdio.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gpu_support.h"
#include "tests/nvmm/stand_in/nvmm_convert.h"

namespace {

using namespace element_gpu;

const char *const kRawScores = "activation=none top-k=0 threshold=-1000000";

class Nvmm : public SwdlaTest {
 protected:
  void SetUp () override
  {
    SwdlaTest::SetUp ();
    ASSERT_TRUE (nvmm_stand_in::register_convert ())
        << "the NVMM stand-in is missing: DLAINFER_NVBUFSURFACE_LIBRARY="
        << (g_getenv ("DLAINFER_NVBUFSURFACE_LIBRARY") ? g_getenv ("DLAINFER_NVBUFSURFACE_LIBRARY")
                                                       : "(unset)");
    ASSERT_TRUE (cudaupload_available ());
  }
};

std::vector<uint64_t> counters ()
{
  std::vector<uint64_t> c (kStandInCounterCount);
  nvmm_stand_in::calls ()->counters (c.data ());
  return c;
}

/* Frame i of `format` (NV12 or RGBA), w x h, in system memory: a gradient that moves with i, so
 * every sample position and every frame differ. */
GstBuffer *frame (const char *format, int w, int h, guint64 i)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (format), guint (w), guint (h));
  GstBuffer *buf = gst_buffer_new_allocate (nullptr, GST_VIDEO_INFO_SIZE (&info), nullptr);
  GstMapInfo map;
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); ++p) {
    uint8_t *plane = map.data + GST_VIDEO_INFO_PLANE_OFFSET (&info, p);
    const int rows = p == 0 ? h : (h + 1) / 2;
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < GST_VIDEO_INFO_PLANE_STRIDE (&info, p); ++x)
        plane[y * GST_VIDEO_INFO_PLANE_STRIDE (&info, p) + x] =
            uint8_t (x * 7 + y * 13 + int (i) * 29 + int (p) * 50);
  }
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = GST_SECOND * i / 30;
  return buf;
}

std::string caps_of (const char *format, int w, int h)
{
  return std::string ("video/x-raw,format=") + format + ",width=" + std::to_string (w) +
         ",height=" + std::to_string (h) + ",framerate=30/1";
}

std::vector<std::string> files_in (const std::string &dir, const std::string &part)
{
  std::vector<std::string> out;
  GDir *d = g_dir_open (dir.c_str (), 0, nullptr);
  for (const char *n = d ? g_dir_read_name (d) : nullptr; n; n = g_dir_read_name (d))
    if (std::string (n).find (part) != std::string::npos)
      out.push_back (n);
  if (d)
    g_dir_close (d);
  std::sort (out.begin (), out.end ());
  return out;
}

std::string read_all (const std::string &path)
{
  std::ifstream f (path, std::ios::binary);
  return std::string (std::istreambuf_iterator<char> (f), std::istreambuf_iterator<char> ());
}

/* `frames` frames through `memory_path` (the caps-changing part before dlainfer) into dlainfer
 * `props` with input dumps in `dump`: each frame's result. */
std::vector<Result> run (const char *format, int w, int h, const std::string &memory_path,
                         const std::string &props, const std::string &dump, int frames)
{
  Pipeline p ("appsrc name=src format=time caps=" + caps_of (format, w, h) + " ! " + memory_path +
              " ! dlainfer name=infer " + props + " dump-dir=" + dump +
              " dump-count=" + std::to_string (frames) + " ! appsink name=sink sync=false");
  std::vector<Result> out;
  if (!p.play ()) {
    ADD_FAILURE () << "cannot play through " << memory_path << ": " << p.wait_error ().message;
    return out;
  }
  for (int i = 0; i < frames; ++i) {
    GstSample *s = p.push (frame (format, w, h, guint64 (i))) ? p.pull () : nullptr;
    if (!s) {
      ADD_FAILURE () << "no frame " << i << " through " << memory_path;
      return out;
    }
    out.push_back (result_of (gst_sample_get_buffer (s)));
    gst_sample_unref (s);
  }
  p.stop ();
  return out;
}

struct Case {
  const char *format;
  int w, h;
  const char *model, *resize;
  const char *extra = ""; /* more properties: an INT8 input's scale */
};

/* The same frames via NVMM (block-linear and pitch-linear) and via CUDA memory: the DLA reads
 * byte-identical input tensors and the results are identical. */
TEST_F (Nvmm, SameInputTensorsAndResultsAsCudaMemory)
{
  const Case cases[] = {
      {"RGBA", 160, 90, "readout", "stretch"},
      {"NV12", 160, 90, "readout", "stretch"},
      {"NV12", 101, 57, "readout", "letterbox"},
      {"RGBA", 101, 57, "readout", "center-crop"},
      {"NV12", 320, 180, "colours-int8-chw32", "letterbox", " input-scale=0.0078740157"},
      {"RGBA", 64, 48, "colours-int8-chw32", "stretch", " input-scale=0.0078740157"},
  };
  gchar *root = g_dir_make_tmp ("dlainfer-nvmm-XXXXXX", nullptr);
  ASSERT_NE (root, nullptr);
  int n = 0;
  for (const Case &c : cases) {
    const std::string props =
        "model=" + model (c.model) + " resize-mode=" + c.resize + c.extra + " " + kRawScores;
    const std::string what = std::string (c.format) + " " + std::to_string (c.w) + "x" +
                             std::to_string (c.h) + " " + c.model + " " + c.resize;
    const std::string base = std::string (root) + "/" + std::to_string (n++);
    const std::vector<Result> want =
        run (c.format, c.w, c.h, "cudaupload ! video/x-raw(memory:CUDAMemory)", props, base + "-cuda", 4);
    ASSERT_EQ (want.size (), 4u) << what;
    for (bool block_linear : {true, false}) {
      const std::string dir = base + (block_linear ? "-array" : "-pitch");
      const std::string conv = std::string ("nvmmstandinconvert block-linear=") +
                               (block_linear ? "true" : "false") + " ! video/x-raw(memory:NVMM)";
      const std::vector<Result> got = run (c.format, c.w, c.h, conv, props, dir, 4);
      ASSERT_EQ (got.size (), want.size ()) << what;
      for (size_t i = 0; i < got.size (); ++i) {
        EXPECT_EQ (got[i].ids, want[i].ids) << what << " frame " << i;
        EXPECT_EQ (got[i].confidences, want[i].confidences) << what << " frame " << i;
      }
      const std::vector<std::string> a = files_in (base + "-cuda", "-input-"), b = files_in (dir, "-input-");
      ASSERT_EQ (a.size (), 4u) << what;
      ASSERT_EQ (a, b) << what;
      for (size_t i = 0; i < a.size (); ++i)
        EXPECT_TRUE (read_all (base + "-cuda/" + a[i]) == read_all (dir + "/" + b[i]))
            << what << (block_linear ? " block-linear " : " pitch-linear ") << a[i] << " differs";
    }
  }
  /* What the DLA read never came from dataPtr: the stand-in's points at a page nothing can read. */
  EXPECT_EQ (counters ()[kStandInViolations], 0u) << nvmm_stand_in::calls ()->last_refusal ();
  gchar *rm = g_strdup_printf ("rm -rf '%s'", root);
  EXPECT_EQ (system (rm), 0);
  g_free (rm);
  g_free (root);
}

/* Many frames with frames in flight, a flush and state changes: each surface is registered once
 * per run (decoders recycle a fixed set), and every EGL map and registration is undone by the
 * time the pipeline is in NULL (NVMM_SOAK_FRAMES, default 3000; the soak is 100 000). */
TEST_F (Nvmm, RegistrationsBalancedWithFlushesAndStateChanges)
{
  const char *env = g_getenv ("NVMM_SOAK_FRAMES");
  const int frames = env ? std::max (10, atoi (env)) : 3000;
  const std::vector<uint64_t> before = counters ();
  for (bool block_linear : {true, false}) {
    Pipeline p ("appsrc name=src format=time caps=" + caps_of ("NV12", 128, 72) +
                " ! nvmmstandinconvert pool-size=6 block-linear=" + (block_linear ? "true" : "false") +
                " ! dlainfer name=infer max-in-flight=4 model=" + model ("readout") +
                " ! appsink name=sink sync=false");
    ASSERT_TRUE (p.play ());
    /* Four frames pushed before any is pulled: frames in flight all along. */
    constexpr int kBatch = 4;
    for (int i = 0; i + kBatch <= frames; i += kBatch) {
      for (int k = 0; k < kBatch; ++k)
        ASSERT_TRUE (p.push (frame ("NV12", 128, 72, guint64 (i + k))));
      if (i / kBatch == frames / kBatch / 3) {
        /* Dropped in flight: appsrc sends the flush downstream (and drops what it queued), which
         * ends dlainfer's waits; nothing of this batch is pulled. */
        ASSERT_TRUE (gst_element_send_event (p.by_name ("src"), gst_event_new_flush_start ()));
        ASSERT_TRUE (gst_element_send_event (p.by_name ("src"), gst_event_new_flush_stop (TRUE)));
        continue;
      }
      if (i / kBatch == 2 * frames / kBatch / 3) {
        ASSERT_NE (gst_element_set_state (p.get (), GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
        ASSERT_NE (gst_element_set_state (p.get (), GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
      }
      for (int k = 0; k < kBatch; ++k) {
        GstSample *s = p.pull ();
        ASSERT_NE (s, nullptr) << "frame " << i + k;
        gst_sample_unref (s);
      }
    }
    p.stop ();
  }
  const std::vector<uint64_t> after = counters ();
  auto delta = [&] (int k) { return after[size_t (k)] - before[size_t (k)]; };
  EXPECT_EQ (after[kStandInViolations], before[kStandInViolations])
      << nvmm_stand_in::calls ()->last_refusal ();
  EXPECT_EQ (delta (kStandInEglMaps), delta (kStandInEglUnmaps));
  EXPECT_EQ (delta (kStandInRegisters), delta (kStandInUnregisters));
  EXPECT_EQ (after[kStandInLiveResources], 0u);
  EXPECT_EQ (after[kStandInLiveEglImages], 0u);
  EXPECT_EQ (after[kStandInLiveSurfaces], 0u);
  /* Cached: a registration per surface per run, not per frame (6 surfaces, 2 runs). */
  EXPECT_GE (delta (kStandInRegisters), 2u);
  EXPECT_LE (delta (kStandInRegisters), 12u) << "registrations are not cached per surface";
}

/* memory:NVMM without the library: a caps-time error naming the file and the way out. */
TEST_F (Nvmm, NoLibraryIsACapsError)
{
  SwdlaEnv env ({{"DLAINFER_NVBUFSURFACE_LIBRARY", "/nonexistent/libnvbufsurface.so"}});
  Pipeline p ("appsrc name=src format=time caps=" + caps_of ("RGBA", 64, 48) +
              " ! nvmmstandinconvert ! video/x-raw(memory:NVMM) ! dlainfer name=infer model=" +
              model ("readout") + " ! appsink name=sink sync=false");
  ASSERT_TRUE (p.play ());
  EXPECT_TRUE (p.push (frame ("RGBA", 64, 48, 0)));
  const BusError e = p.wait_error ();
  ASSERT_TRUE (e.posted);
  EXPECT_NE (e.message.find ("/nonexistent/libnvbufsurface.so"), std::string::npos) << e.message;
  EXPECT_NE (e.message.find ("cudaupload"), std::string::npos) << e.message;
  p.stop ();
}

}  // namespace
