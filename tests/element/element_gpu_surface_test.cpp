/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The dlainfer surface end to end on a CUDA GPU with the software DLA (swdla): each preprocessing
 * property seen in the input tensor through the read-out model (its 48 outputs are the means of
 * each channel over a 4x4 grid of the tensor: with activation=none, top-k=0 and a very low
 * threshold the meta carries the tensor's low-resolution copy), interval carrying results, top-k
 * and threshold, bus messages, stats, model-info, an INT8 input with input-scale, GstAnalytics. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gpu_support.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

namespace {

using namespace element_gpu;

using Surface = SwdlaTest;

uint32_t rgb (int r, int g, int b)
{
  return uint32_t (r) << 16 | uint32_t (g) << 8 | uint32_t (b);
}

/* The read-out model's outputs as the meta carries them when nothing is dropped or changed. */
const char *const kRawScores = "activation=none top-k=0 threshold=-1000000";

/* The 48 read-out values by class id: [c * 16 + y * 4 + x]. */
using Grid = std::array<float, 48>;

Grid grid_of (const Result &r)
{
  Grid g;
  g.fill (NAN);
  EXPECT_EQ (r.ids.size (), 48u) << "expected every read-out value";
  for (size_t k = 0; k < r.ids.size (); ++k)
    if (r.ids[k] >= 0 && r.ids[k] < 48)
      g[size_t (r.ids[k])] = r.confidences[k];
  return g;
}

float cell (const Grid &g, int c, int y, int x)
{
  return g[size_t (c * 16 + y * 4 + x)];
}

/* One w x h RGBA frame (system memory, or CUDA memory through cudaupload) through dlainfer with
 * `props`; the result of the frame. */
Result run_frame (const std::string &model_name, const std::string &props, int w, int h,
                  const std::function<uint32_t (int, int)> &fill, bool cuda = false)
{
  if (cuda && !cudaupload_available ()) {
    ADD_FAILURE () << "cudaupload missing";
    return Result ();
  }
  Pipeline p ("appsrc name=src format=time caps=video/x-raw,format=RGBA,width=" + std::to_string (w) +
              ",height=" + std::to_string (h) + ",framerate=30/1 ! " +
              (cuda ? "cudaupload ! video/x-raw(memory:CUDAMemory) ! " : "") + "dlainfer name=infer model=" +
              model (model_name) + " " + props + " ! appsink name=sink sync=false");
  if (!p.play ()) {
    ADD_FAILURE () << "cannot play: " << props;
    return Result ();
  }
  EXPECT_TRUE (p.push (rgba_frame (w, h, fill)));
  GstSample *s = p.pull ();
  if (!s)
    return Result ();
  Result r = result_of (gst_sample_get_buffer (s));
  gst_sample_unref (s);
  p.stop ();
  EXPECT_TRUE (r.found) << props;
  return r;
}

Grid readout (const std::string &props, int w, int h, const std::function<uint32_t (int, int)> &fill,
              bool cuda = false, const std::string &model_name = "readout")
{
  return grid_of (run_frame (model_name, std::string (kRawScores) + " " + props, w, h, fill, cuda));
}

/* Every cell of channel c near `want`. */
void expect_channel (const Grid &g, int c, float want, float tol, const std::string &what)
{
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x)
      EXPECT_NEAR (cell (g, c, y, x), want, tol)
          << what << ": channel " << c << " cell (" << y << ", " << x << ")";
}

/* ---- preprocessing, seen in the tensor ---- */

/* mean and std: (pixel / 255 - mean[c]) / std[c] per tensor channel, for CUDA and system memory. */
TEST_F (Surface, MeanAndStdNormalise)
{
  const auto fill = [] (int, int) { return rgb (200, 100, 50); };
  const float v[3] = {200.f / 255, 100.f / 255, 50.f / 255};
  for (bool cuda : {false, true}) {
    if (cuda && !cudaupload_available ())
      continue;
    const std::string mem = cuda ? "CUDA" : "system";
    const Grid plain = readout ("", 320, 240, fill, cuda);
    for (int c = 0; c < 3; ++c)
      expect_channel (plain, c, v[c], 0.01f, mem + " default mean 0, std 1");
    const float mean[3] = {0.5f, 0.1f, 0.1f}, stdv[3] = {0.25f, 0.5f, 2.f};
    const Grid norm = readout ("mean=\"<0.5,0.1,0.1>\" std=\"<0.25,0.5,2>\"", 320, 240, fill, cuda);
    for (int c = 0; c < 3; ++c)
      expect_channel (norm, c, (v[c] - mean[c]) / stdv[c], 0.01f, mem + " mean/std");
    std::printf ("%s mean/std: read %.3f %.3f %.3f, want %.3f %.3f %.3f\n", mem.c_str (),
                 cell (norm, 0, 0, 0), cell (norm, 1, 0, 0), cell (norm, 2, 0, 0), (v[0] - mean[0]) / stdv[0],
                 (v[1] - mean[1]) / stdv[1], (v[2] - mean[2]) / stdv[2]);
  }
}

/* bgr puts blue in tensor channel 0; mean applies per tensor channel (after the swap). */
TEST_F (Surface, ChannelOrderSwapsRedAndBlue)
{
  const auto fill = [] (int, int) { return rgb (200, 100, 50); };
  const Grid g = readout ("channel-order=bgr mean=\"<0.1,0,0>\"", 320, 240, fill);
  expect_channel (g, 0, 50.f / 255 - 0.1f, 0.01f, "bgr: channel 0 is blue minus mean[0]");
  expect_channel (g, 1, 100.f / 255, 0.01f, "bgr: channel 1 is green");
  expect_channel (g, 2, 200.f / 255, 0.01f, "bgr: channel 2 is red");
}

/* A 448x224 frame: red by vertical stripe i = x / 112, green by horizontal band j = y / 56. */
const int kRx[4] = {40, 100, 160, 220};
const int kGy[4] = {30, 90, 150, 210};
uint32_t stripes_and_bands (int x, int y)
{
  return rgb (kRx[x / 112], kGy[y / 56], 0);
}

struct ModeCase {
  const char *name, *props;
  /* Expected pixel values (0..255) of R, G, B in grid cell (y, x). */
  std::function<std::array<float, 3> (int y, int x)> want;
};

class ResizeModes : public Surface, public testing::WithParamInterface<ModeCase> {};

/* Each resize mode puts the frame where the kernel's conventions say (preprocess.h): the grid
 * tells stretch, letterbox (and its pad value) and center-crop (and its crop fraction) apart. */
TEST_P (ResizeModes, GridShowsTheGeometry)
{
  const ModeCase &m = GetParam ();
  for (bool cuda : {false, true}) {
    if (cuda && !cudaupload_available ())
      continue;
    const Grid g = readout (m.props, 448, 224, stripes_and_bands, cuda);
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 4; ++x) {
        const std::array<float, 3> w = m.want (y, x);
        for (int c = 0; c < 3; ++c)
          EXPECT_NEAR (cell (g, c, y, x), w[size_t (c)] / 255.f, 0.02f)
              << m.name << (cuda ? " CUDA" : " system") << ": channel " << c << " cell (" << y << ", " << x
              << ")";
      }
    std::printf ("%s: red row 0 %.3f %.3f %.3f %.3f, green column 0 %.3f %.3f %.3f %.3f\n", m.name,
                 cell (g, 0, 0, 0), cell (g, 0, 0, 1), cell (g, 0, 0, 2), cell (g, 0, 0, 3),
                 cell (g, 1, 0, 0), cell (g, 1, 1, 0), cell (g, 1, 2, 0), cell (g, 1, 3, 0));
  }
}

std::array<float, 3> letterbox_cell (int y, int x, uint32_t pad)
{
  if (y == 0 || y == 3) /* content 224x112 at rows 56..168: the outer rows are padding */
    return {float (pad >> 16 & 0xff), float (pad >> 8 & 0xff), float (pad & 0xff)};
  /* Content row 1 shows bands 0-1, row 2 bands 2-3 (the frame's height halved). */
  return {float (kRx[x]), (kGy[2 * (y - 1)] + kGy[2 * (y - 1) + 1]) / 2.f, 0.f};
}

INSTANTIATE_TEST_SUITE_P (
    Modes, ResizeModes,
    testing::Values (
        /* The whole frame squeezed to 224x224: stripe i in column i, band j in row j. */
        ModeCase{"stretch", "resize-mode=stretch",
                 [] (int y, int x) {
                   return std::array<float, 3>{float (kRx[x]), float (kGy[y]), 0.f};
                 }},
        ModeCase{"letterbox_black", "resize-mode=letterbox",
                 [] (int y, int x) { return letterbox_cell (y, x, 0x000000); }},
        ModeCase{"letterbox_pad_value", "resize-mode=letterbox pad-value=0x20a0e0",
                 [] (int y, int x) { return letterbox_cell (y, x, 0x20a0e0); }},
        /* crop-fraction 1: short side 224 kept, the centre 224 columns (x 112..336): stripes 1, 2. */
        ModeCase{"center_crop_1", "resize-mode=center-crop crop-fraction=1.0",
                 [] (int y, int x) {
                   return std::array<float, 3>{float (kRx[1 + x / 2]), float (kGy[y]), 0.f};
                 }},
        /* crop-fraction 0.5: resized to 896x448, centre 224x224 = frame x 168..280, y 56..168. */
        ModeCase{"center_crop_half", "resize-mode=center-crop crop-fraction=0.5",
                 [] (int y, int x) {
                   return std::array<float, 3>{float (kRx[1 + x / 2]), float (kGy[1 + y / 2]), 0.f};
                 }}),
    [] (const testing::TestParamInfo<ModeCase> &info) { return std::string (info.param.name); });

/* A 4x downscale of a pattern of period 4 (columns 1, 2 of each 4 white): plain bilinear samples
 * between two white columns (1.0); antialias averages the pattern (0.5). */
TEST_F (Surface, AntialiasAveragesFineDetail)
{
  const auto fill = [] (int x, int) { return (x % 4 == 1 || x % 4 == 2) ? 0xffffffu : 0u; };
  const Grid sharp = readout ("antialias=false", 896, 896, fill);
  const Grid smooth = readout ("antialias=true", 896, 896, fill);
  for (int c = 0; c < 3; ++c) {
    expect_channel (sharp, c, 1.f, 0.03f, "antialias=false");
    expect_channel (smooth, c, 0.5f, 0.05f, "antialias=true");
  }
  std::printf ("antialias off %.3f, on %.3f\n", cell (sharp, 0, 1, 1), cell (smooth, 0, 1, 1));
}

/* ---- post-processing ---- */

/* Cell (y, x) has red 10 + 15 * (y * 4 + x); green and blue 0. */
uint32_t ramp (int x, int y, int w, int h)
{
  const int k = (y * 4 / h) * 4 + x * 4 / w;
  return rgb (10 + 15 * k, 0, 0);
}

/* top-k keeps the k best, sorted; threshold drops the rest; activation changes the values. */
TEST_F (Surface, TopKOrderAndThreshold)
{
  const int w = 448, h = 448;
  const auto fill = [] (int x, int y) { return ramp (x, y, 448, 448); };
  {
    const Result r = run_frame ("readout", "activation=none top-k=3 threshold=-1000000", w, h, fill);
    ASSERT_EQ (r.ids.size (), 3u);
    EXPECT_EQ (r.ids, (std::vector<int>{15, 14, 13})) << "the three brightest red cells, best first";
    EXPECT_NEAR (r.confidences[0], 235.f / 255, 0.01f);
    EXPECT_NEAR (r.confidences[1], 220.f / 255, 0.01f);
    EXPECT_NEAR (r.confidences[2], 205.f / 255, 0.01f);
    EXPECT_EQ (r.labels[0], "class_15");
  }
  {
    /* Red cells 8..15 are >= 130 / 255 > 0.5; cell 7 (115) and green/blue (0) are below. */
    const Result r = run_frame ("readout", "activation=none top-k=0 threshold=0.5", w, h, fill);
    ASSERT_EQ (r.ids.size (), 8u);
    for (size_t k = 0; k < r.ids.size (); ++k) {
      EXPECT_EQ (r.ids[k], int (15 - k));
      EXPECT_GE (r.confidences[k], 0.5f);
      if (k) {
        EXPECT_GT (r.confidences[k - 1], r.confidences[k]);
      }
    }
  }
  {
    const Result r = run_frame ("readout", "activation=sigmoid top-k=1", w, h, fill);
    ASSERT_EQ (r.ids.size (), 1u);
    EXPECT_EQ (r.ids[0], 15);
    EXPECT_NEAR (r.confidences[0], 1.f / (1.f + std::exp (-235.f / 255)), 0.005f);
  }
  {
    /* softmax (default): the default top-k 5, summing to less than 1. */
    const Result r = run_frame ("readout", "", w, h, fill);
    ASSERT_EQ (r.ids.size (), 5u);
    float sum = 0;
    for (size_t k = 0; k < 5; ++k) {
      sum += r.confidences[k];
      if (k) {
        EXPECT_GE (r.confidences[k - 1], r.confidences[k]);
      }
    }
    EXPECT_EQ (r.ids[0], 15);
    EXPECT_LT (sum, 1.f);
  }
  {
    /* A threshold above every confidence: an empty result is still a meta. */
    const Result r = run_frame ("readout", "threshold=0.99", w, h, fill);
    EXPECT_TRUE (r.found);
    EXPECT_TRUE (r.ids.empty ());
  }
}

/* ---- interval ---- */

/* interval=2: frames 0, 3, 6 run the model; 1-2, 4-5, 7-8 carry the last result with ages 1, 2. */
TEST_F (Surface, IntervalCarriesResultsWithAge)
{
  Pipeline p (
      "appsrc name=src format=time caps=video/x-raw,format=RGBA,width=320,height=240,framerate=30/1 ! "
      "dlainfer name=infer interval=2 model=" +
      model ("colours") + " labels=" + labels_of ("colours") + " ! appsink name=sink sync=false");
  ASSERT_TRUE (p.play ());
  for (int i = 0; i < 9; ++i) {
    const uint32_t c = kColours[i % 8].rgb;
    ASSERT_TRUE (p.push (rgba_frame (
        320, 240, [c] (int, int) { return c; }, GST_SECOND * i / 30)));
  }
  for (int i = 0; i < 9; ++i) {
    GstSample *s = p.pull ();
    ASSERT_NE (s, nullptr);
    const Result r = result_of (gst_sample_get_buffer (s));
    gst_sample_unref (s);
    ASSERT_TRUE (r.found) << "frame " << i << ": every frame has a result";
    const int inferred = i - i % 3;
    EXPECT_EQ (r.carried, i % 3 != 0) << "frame " << i;
    EXPECT_EQ (r.age, unsigned (i % 3)) << "frame " << i;
    ASSERT_FALSE (r.labels.empty ());
    EXPECT_EQ (r.labels[0], kColours[inferred % 8].name) << "frame " << i << " carries frame " << inferred;
  }
  GstStructure *st = nullptr;
  g_object_get (p.by_name ("infer"), "stats", &st, nullptr);
  guint64 frames = 0, inferences = 0, skipped = 0;
  gst_structure_get (st, "frames", G_TYPE_UINT64, &frames, "inferences", G_TYPE_UINT64, &inferences,
                     "skipped", G_TYPE_UINT64, &skipped, nullptr);
  EXPECT_EQ (frames, 9u);
  EXPECT_EQ (inferences, 3u);
  EXPECT_EQ (skipped, 6u);
  gst_structure_free (st);
  p.stop ();
}

/* ---- bus messages ---- */

struct Message {
  guint64 timestamp = 0;
  std::vector<int> ids;
  std::vector<std::string> labels;
  std::vector<float> confidences;
  std::string source;
};

std::vector<Message> result_messages (GstElement *pipeline)
{
  std::vector<Message> out;
  GstBus *bus = gst_element_get_bus (pipeline);
  while (GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT)) {
    const GstStructure *s = gst_message_get_structure (msg);
    if (s && gst_structure_has_name (s, "dlainfer-result")) {
      Message m;
      m.source = GST_OBJECT_NAME (GST_MESSAGE_SRC (msg));
      gst_structure_get_uint64 (s, "timestamp", &m.timestamp);
      const GValue *ids = gst_structure_get_value (s, "class-ids");
      const GValue *labels = gst_structure_get_value (s, "labels");
      const GValue *conf = gst_structure_get_value (s, "confidences");
      EXPECT_TRUE (ids && labels && conf);
      if (ids && labels && conf) {
        for (guint i = 0; i < gst_value_array_get_size (ids); ++i)
          m.ids.push_back (g_value_get_int (gst_value_array_get_value (ids, i)));
        for (guint i = 0; i < gst_value_array_get_size (labels); ++i)
          m.labels.emplace_back (g_value_get_string (gst_value_array_get_value (labels, i)));
        for (guint i = 0; i < gst_value_array_get_size (conf); ++i)
          m.confidences.push_back (g_value_get_float (gst_value_array_get_value (conf, i)));
      }
      out.push_back (std::move (m));
    }
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return out;
}

/* post-messages=true: one "dlainfer-result" per inference (none for carried frames) with the
 * frame's timestamp and the same results as the meta. */
TEST_F (Surface, BusMessagesPerInference)
{
  Pipeline p (
      "appsrc name=src format=time caps=video/x-raw,format=RGBA,width=320,height=240,framerate=30/1 ! "
      "dlainfer name=infer post-messages=true interval=1 model=" +
      model ("colours") + " labels=" + labels_of ("colours") + " ! appsink name=sink sync=false");
  ASSERT_TRUE (p.play ());
  const int colour[4] = {2, 3, 4, 5};
  for (int i = 0; i < 4; ++i) {
    const uint32_t c = kColours[colour[i]].rgb;
    ASSERT_TRUE (p.push (rgba_frame (
        320, 240, [c] (int, int) { return c; }, GST_SECOND * i / 30)));
  }
  std::vector<Result> metas;
  for (int i = 0; i < 4; ++i) {
    GstSample *s = p.pull ();
    ASSERT_NE (s, nullptr);
    metas.push_back (result_of (gst_sample_get_buffer (s)));
    gst_sample_unref (s);
  }
  /* Read before waiting for EOS: that wait drops every other message on the bus. The element posts
   * each result before pushing its frame, so all are there once the 4 frames are pulled. */
  const std::vector<Message> msgs = result_messages (p.get ());
  p.end_of_stream ();
  ASSERT_TRUE (p.wait_eos ());
  ASSERT_EQ (msgs.size (), 2u) << "frames 0 and 2 were inferred; 1 and 3 carried";
  for (size_t k = 0; k < 2; ++k) {
    const int frame = int (2 * k);
    const Message &m = msgs[k];
    EXPECT_EQ (m.source, "infer");
    EXPECT_EQ (m.timestamp, GST_SECOND * frame / 30);
    ASSERT_FALSE (m.labels.empty ());
    EXPECT_EQ (m.labels[0], kColours[colour[frame]].name);
    EXPECT_EQ (m.ids.size (), m.labels.size ());
    EXPECT_EQ (m.confidences.size (), m.labels.size ());
    EXPECT_EQ (m.ids, metas[size_t (frame)].ids) << "the message says what the meta says";
    EXPECT_EQ (m.confidences, metas[size_t (frame)].confidences);
    for (size_t i = 1; i < m.confidences.size (); ++i)
      EXPECT_GE (m.confidences[i - 1], m.confidences[i]);
  }
  p.stop ();

  /* Default: no messages. */
  Pipeline q (
      "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=64,height=48 ! dlainfer name=infer model=" +
      model ("colours") + " ! fakesink");
  ASSERT_TRUE (q.play ());
  ASSERT_TRUE (q.wait_eos ());
  EXPECT_TRUE (result_messages (q.get ()).empty ()) << "post-messages is off by default";
  q.stop ();
}

/* ---- stats ---- */

guint64 stat_u64 (const GstStructure *s, const char *f)
{
  guint64 v = G_MAXUINT64;
  EXPECT_TRUE (gst_structure_get_uint64 (s, f, &v)) << f;
  return v;
}

double stat_ms (const GstStructure *s, const char *f)
{
  double v = -1;
  EXPECT_TRUE (gst_structure_get_double (s, f, &v)) << f;
  return v;
}

/* Counts match the frames pushed; the DLA time reflects a 3 ms service time per task; stats stay
 * readable after the pipeline stops. */
TEST_F (Surface, StatsCountAndTime)
{
  g_setenv ("SWDLA_SERVICE_US", "3000", TRUE);
  Pipeline p ("videotestsrc num-buffers=10 ! video/x-raw,format=NV12,width=640,height=480 ! " +
              std::string (cudaupload_available () ? "cudaupload ! video/x-raw(memory:CUDAMemory) ! " : "") +
              "dlainfer name=infer interval=1 model=" + model ("colours") + " ! fakesink");
  ASSERT_TRUE (p.play ());
  ASSERT_TRUE (p.wait_eos ());
  g_unsetenv ("SWDLA_SERVICE_US");
  GstElement *infer = p.by_name ("infer");
  GstStructure *s = nullptr;
  g_object_get (infer, "stats", &s, nullptr);
  ASSERT_NE (s, nullptr);
  gchar *text = gst_structure_to_string (s);
  std::printf ("stats: %s\n", text);
  g_free (text);
  EXPECT_EQ (stat_u64 (s, "frames"), 10u);
  EXPECT_EQ (stat_u64 (s, "inferences"), 5u);
  EXPECT_EQ (stat_u64 (s, "skipped"), 5u);
  EXPECT_EQ (stat_u64 (s, "errors"), 0u);
  /* Buffers come round again (cudaupload's pool, or the one upload staging buffer): their kernel
   * launches are replayed from graphs, never the first. */
  EXPECT_GE (stat_u64 (s, "graph-launches"), 1u);
  EXPECT_LT (stat_u64 (s, "graph-launches"), 5u);
  EXPECT_GE (stat_ms (s, "dla-mean-ms"), 2.5) << "3 ms of service time per task";
  EXPECT_LT (stat_ms (s, "dla-mean-ms"), 500.0);
  EXPECT_GE (stat_ms (s, "dla-max-ms"), stat_ms (s, "dla-mean-ms"));
  EXPECT_GT (stat_ms (s, "preprocess-mean-ms"), 0.0);
  EXPECT_GE (stat_ms (s, "preprocess-max-ms"), stat_ms (s, "preprocess-mean-ms"));
  EXPECT_GE (stat_ms (s, "postprocess-mean-ms"), 0.0);
  EXPECT_LT (stat_ms (s, "postprocess-mean-ms"), 50.0);
  /* dla is timed on 1 inference in 32, total on all: compared where both saw the same task. */
  EXPECT_GE (stat_ms (s, "total-max-ms"), stat_ms (s, "dla-max-ms"));
  p.stop ();
  GstStructure *after = nullptr;
  g_object_get (infer, "stats", &after, nullptr);
  EXPECT_EQ (stat_u64 (after, "frames"), 10u) << "kept after stop";
  gst_structure_free (after);
  gst_structure_free (s);

  /* A restart starts from zero. */
  ASSERT_TRUE (p.play ());
  ASSERT_TRUE (p.wait_eos ());
  g_object_get (infer, "stats", &s, nullptr);
  EXPECT_EQ (stat_u64 (s, "frames"), 10u) << "reset at start";
  gst_structure_free (s);
  p.stop ();
}

/* `model-info` is notified once per start, `stats` at most once a second while frames flow and
 * at EOS: never per frame. */
TEST_F (Surface, StatsAndModelInfoNotify)
{
  Pipeline p (
      "videotestsrc num-buffers=30 ! video/x-raw,format=NV12,width=64,height=48 ! dlainfer name=infer "
      "model=" +
      model ("colours") + " ! fakesink");
  GstElement *infer = p.by_name ("infer");
  std::atomic<int> stats{0}, info{0};
  auto count = +[] (GObject *, GParamSpec *, gpointer n) { ++*static_cast<std::atomic<int> *> (n); };
  g_signal_connect (infer, "notify::stats", G_CALLBACK (count), &stats);
  g_signal_connect (infer, "notify::model-info", G_CALLBACK (count), &info);
  const gint64 start = g_get_monotonic_time ();
  ASSERT_TRUE (p.play ());
  ASSERT_TRUE (p.wait_eos ());
  const double seconds = double (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  EXPECT_EQ (info.load (), 1) << "once after start";
  EXPECT_GE (stats.load (), 1) << "at EOS";
  EXPECT_LE (stats.load (), 1 + int (seconds) + 1) << "at most once a second, and at EOS (30 frames)";
  p.stop ();
}

/* A task error (the 3rd frame's: task 1 is the warm-up at start) counts as an error frame; the
 * frames in flight behind it are not counted. */
TEST_F (Surface, StatsCountErrors)
{
  g_setenv ("SWDLA_TASK_ERROR", "4:cudlaErrorDlaErrInvalidInput", TRUE);
  Pipeline p (
      "videotestsrc num-buffers=10 ! video/x-raw,format=RGBA,width=64,height=48 ! dlainfer name=infer "
      "max-in-flight=1 model=" + /* one task at a time: the DLA's error state is per device */
      model ("colours") +
      " ! fakesink");
  ASSERT_TRUE (p.play ());
  const BusError e = p.wait_error (20 * GST_SECOND);
  g_unsetenv ("SWDLA_TASK_ERROR");
  EXPECT_TRUE (e.posted);
  GstStructure *s = nullptr;
  g_object_get (p.by_name ("infer"), "stats", &s, nullptr);
  EXPECT_EQ (stat_u64 (s, "inferences"), 2u);
  EXPECT_EQ (stat_u64 (s, "errors"), 1u);
  EXPECT_EQ (stat_u64 (s, "frames"), 3u);
  gst_structure_free (s);
  p.stop ();
}

/* ---- model-info ---- */

const GstStructure *tensor_at (const GstStructure *info, const char *field, guint i)
{
  const GValue *a = gst_structure_get_value (info, field);
  if (!a || i >= gst_value_array_get_size (a))
    return nullptr;
  return gst_value_get_structure (gst_value_array_get_value (a, i));
}

gint64 i64 (const GstStructure *s, const char *f)
{
  gint64 v = -1;
  EXPECT_TRUE (gst_structure_get_int64 (s, f, &v)) << f;
  return v;
}

/* model-info names the model's tensors as swdla's FORMAT.md documents them, the core, the backend
 * and the cuDLA version; it is NULL again after stop. */
TEST_F (Surface, ModelInfoMatchesTheModel)
{
  struct {
    const char *model, *props, *in_layout, *in_type;
    gint64 c, h, w, in_size;
    const char *out_name;
    gint64 classes, out_size;
  } cases[] = {
      {"colours", "dla-core=1", "chw16", "fp16", 3, 224, 224, 1605632, "logits", 8, 32},
      {"readout-w225-int8-chw32", "dla-core=0 input-scale=0.0078740157", "chw32", "int8", 3, 150, 225,
       150 * 225 * 32, "cells", 48, 96},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE (c.model);
    Pipeline p (
        "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! dlainfer name=infer " +
        std::string (c.props) + " model=" + model (c.model) + " ! appsink name=sink sync=false");
    GstElement *infer = p.by_name ("infer");
    ASSERT_TRUE (p.play ());
    GstSample *sample = p.pull ();
    ASSERT_NE (sample, nullptr);
    gst_sample_unref (sample);
    GstStructure *info = nullptr;
    g_object_get (infer, "model-info", &info, nullptr);
    ASSERT_NE (info, nullptr);
    gchar *text = gst_structure_to_string (info);
    std::printf ("model-info: %s\n", text);
    g_free (text);
    EXPECT_STREQ (gst_structure_get_string (info, "backend"), "swdla");
    EXPECT_EQ (std::string (gst_structure_get_string (info, "model")), model (c.model));
    EXPECT_FALSE (std::string (gst_structure_get_string (info, "cudla-version")).empty ());
    EXPECT_NE (std::string (gst_structure_get_string (info, "library")).find ("libcudla.so.1"),
               std::string::npos);
    EXPECT_NE (std::string (gst_structure_get_string (info, "description")).find ("backend=swdla"),
               std::string::npos);
    gint core = -1, classes = -1;
    gst_structure_get_int (info, "dla-core", &core);
    gst_structure_get_int (info, "classes", &classes);
    EXPECT_EQ (core, std::string (c.props).find ("dla-core=1") != std::string::npos ? 1 : 0);
    EXPECT_EQ (classes, c.classes);
    const GstStructure *in = tensor_at (info, "inputs", 0);
    ASSERT_NE (in, nullptr);
    EXPECT_STREQ (gst_structure_get_string (in, "name"), "image");
    EXPECT_STREQ (gst_structure_get_string (in, "layout"), c.in_layout);
    EXPECT_STREQ (gst_structure_get_string (in, "type"), c.in_type);
    EXPECT_EQ (i64 (in, "n"), 1);
    EXPECT_EQ (i64 (in, "c"), c.c);
    EXPECT_EQ (i64 (in, "h"), c.h);
    EXPECT_EQ (i64 (in, "w"), c.w);
    EXPECT_EQ (i64 (in, "size"), c.in_size);
    const std::string raw = gst_structure_get_string (in, "raw");
    EXPECT_NE (raw.find ("name='image'"), std::string::npos) << raw;
    EXPECT_NE (raw.find ("size=" + std::to_string (c.in_size)), std::string::npos) << raw;
    EXPECT_EQ (tensor_at (info, "inputs", 1), nullptr);
    const GstStructure *out = tensor_at (info, "outputs", 0);
    ASSERT_NE (out, nullptr);
    EXPECT_STREQ (gst_structure_get_string (out, "name"), c.out_name);
    EXPECT_EQ (i64 (out, "c"), c.classes);
    EXPECT_EQ (i64 (out, "h"), 1);
    EXPECT_EQ (i64 (out, "w"), 1);
    EXPECT_EQ (i64 (out, "size"), c.out_size);
    gst_structure_free (info);
    p.stop ();
    g_object_get (infer, "model-info", &info, nullptr);
    EXPECT_EQ (info, nullptr) << "no model open after stop";
  }
}

/* ---- INT8 input ---- */

/* An INT8 chw32 input model classifies every colour with input-scale = its scale (1/127), and
 * refuses to start without input-scale, saying what to set. */
TEST_F (Surface, Int8InputWithInputScale)
{
  Pipeline p (
      "appsrc name=src format=time caps=video/x-raw,format=RGBA,width=320,height=240,framerate=30/1 ! "
      "dlainfer name=infer input-scale=0.0078740157 model=" +
      model ("colours-int8-chw32") + " labels=" + labels_of ("colours") + " ! appsink name=sink sync=false");
  ASSERT_TRUE (p.play ());
  for (int i = 0; i < 8; ++i) {
    const uint32_t c = kColours[i].rgb;
    ASSERT_TRUE (p.push (rgba_frame (320, 240, [c] (int, int) { return c; })));
  }
  for (int i = 0; i < 8; ++i) {
    GstSample *s = p.pull ();
    ASSERT_NE (s, nullptr);
    const Result r = result_of (gst_sample_get_buffer (s));
    gst_sample_unref (s);
    ASSERT_TRUE (r.found);
    ASSERT_FALSE (r.labels.empty ());
    EXPECT_EQ (r.labels[0], kColours[i].name);
    EXPECT_GT (r.confidences[0], 0.9f) << kColours[i].name;
  }
  p.stop ();

  const BusError e = start_error (
      "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! "
      "dlainfer name=infer model=" +
      model ("colours-int8-chw32") + " ! fakesink");
  ASSERT_TRUE (e.posted);
  EXPECT_EQ (e.domain, GST_RESOURCE_ERROR);
  EXPECT_EQ (e.code, GST_RESOURCE_ERROR_SETTINGS);
  EXPECT_NE (e.message.find ("input-scale"), std::string::npos) << e.message;
}

/* One red frame through the colours model `model_name` with `props`; its result (found false, and a
 * failure recorded, when no sample came). */
Result red_through (const std::string &model_name, const std::string &props)
{
  Pipeline p (
      "appsrc name=src format=time caps=video/x-raw,format=RGBA,width=320,height=240,framerate=30/1 ! "
      "dlainfer name=infer " +
      props + " model=" + model (model_name) + " labels=" + labels_of ("colours") +
      " ! appsink name=sink sync=false");
  const uint32_t red = kColours[2].rgb;
  if (!p.play () || !p.push (rgba_frame (320, 240, [red] (int, int) { return red; }))) {
    ADD_FAILURE () << "the pipeline did not take the frame: " << props;
    return Result ();
  }
  GstSample *smp = p.pull ();
  if (!smp) {
    ADD_FAILURE () << "no sample: " << props;
    return Result ();
  }
  Result r = result_of (gst_sample_get_buffer (smp));
  gst_sample_unref (smp);
  p.stop ();
  return r;
}

Result red_through_int8_output (const std::string &props)
{
  return red_through ("colours-out-int8-chw32", props);
}

/* tensor-meta=true classifies from the GPU's de-padded (dequantised) scores, false from the host
 * copy: the same classes and confidences for every output layout and type, output-scale and
 * activation (a scale applied twice keeps the argmax: only the confidences tell). */
TEST_F (Surface, TensorMetaConfidencesEqualTheHostPath)
{
  const struct {
    const char *model;
    std::vector<const char *> scales;
  } outputs[] = {
      {"colours", {""}},
      {"colours-out-fp16-dla_linear", {""}},
      {"colours-out-int8-chw32", {" output-scale=0.125", " output-scale=0.0625", " output-scale=1"}},
      {"colours-out-int8-dla_linear", {" output-scale=0.125", " output-scale=0.5"}}};
  for (const auto &o : outputs)
    for (const char *scale : o.scales)
      for (const char *post : {"", " activation=sigmoid top-k=0", kRawScores}) {
        const std::string props = std::string (post) + scale;
        SCOPED_TRACE (std::string (o.model) + ":" + props);
        const Result host = red_through (o.model, props + " tensor-meta=false");
        const Result meta = red_through (o.model, props + " tensor-meta=true");
        ASSERT_TRUE (host.found && meta.found);
        ASSERT_FALSE (host.ids.empty ());
        EXPECT_EQ (host.ids, meta.ids);
        ASSERT_EQ (host.confidences.size (), meta.confidences.size ());
        for (size_t i = 0; i < host.confidences.size (); ++i)
          EXPECT_NEAR (meta.confidences[i], host.confidences[i],
                       1e-6f * (1.f + std::fabs (host.confidences[i])))
              << "result " << i << " (class " << host.ids[i] << "): tensor-meta's confidence differs";
      }
}

/* An INT8 output model (scale 1/8) classifies with output-scale, whose value scales the logits
 * before the softmax (half the scale: a flatter distribution), and refuses to start without it. */
TEST_F (Surface, Int8OutputWithOutputScale)
{
  float top[2] = {0.f, 0.f};
  const char *scales[2] = {"0.125", "0.0625"};
  for (int k = 0; k < 2; ++k) {
    const Result r = red_through_int8_output ("output-scale=" + std::string (scales[k]));
    ASSERT_TRUE (r.found);
    ASSERT_FALSE (r.labels.empty ());
    EXPECT_EQ (r.labels[0], "red");
    top[k] = r.confidences[0];
  }
  EXPECT_GT (top[0], 0.9f);
  EXPECT_LT (top[1], top[0]) << "output-scale is not applied to the logits";

  /* Raw scores (no activation): each is the INT8 output q times output-scale, exactly: halving the
   * scale halves every score, and every score over its scale is a whole q in [-128, 127]. */
  std::vector<float> raw[2];
  for (int k = 0; k < 2; ++k) {
    const Result r = red_through_int8_output (std::string (kRawScores) + " output-scale=" + scales[k]);
    ASSERT_EQ (r.ids.size (), 8u);
    raw[k].assign (8, 0.f);
    for (size_t i = 0; i < 8; ++i)
      raw[k][size_t (r.ids[i])] = r.confidences[i];
  }
  for (int c = 0; c < 8; ++c) {
    EXPECT_FLOAT_EQ (raw[0][c], 2.f * raw[1][c]) << "class " << c;
    const float q = raw[0][c] / 0.125f;
    EXPECT_EQ (q, std::round (q)) << "class " << c << ": score " << raw[0][c] << " is not a whole q x 0.125";
    EXPECT_TRUE (q >= -128.f && q <= 127.f) << "class " << c << ": q " << q;
  }
  EXPECT_GT (raw[0][2], 0.f) << "red's score";

  const BusError e = start_error (
      "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! "
      "dlainfer name=infer model=" +
      model ("colours-out-int8-chw32") + " ! fakesink");
  ASSERT_TRUE (e.posted);
  EXPECT_EQ (e.domain, GST_RESOURCE_ERROR);
  EXPECT_EQ (e.code, GST_RESOURCE_ERROR_SETTINGS);
  EXPECT_NE (e.message.find ("output-scale"), std::string::npos) << e.message;
}

/* input-scale is what the kernel divides by: the model's own scale gives pixel / 255 back, twice
 * the scale gives half of it (q halves, the model still multiplies by 1/127). */
TEST_F (Surface, InputScaleVisibleInTheTensor)
{
  const auto fill = [] (int, int) { return rgb (200, 100, 50); };
  const float v[3] = {200.f / 255, 100.f / 255, 50.f / 255};
  const Grid right = readout ("input-scale=0.0078740157", 448, 224, fill, false, "readout-w225-int8-chw32");
  const Grid twice = readout ("input-scale=0.0157480315", 448, 224, fill, false, "readout-w225-int8-chw32");
  for (int c = 0; c < 3; ++c) {
    expect_channel (right, c, v[c], 0.02f, "input-scale 1/127");
    expect_channel (twice, c, v[c] / 2, 0.02f, "input-scale 2/127");
  }
}

/* ---- the meta downstream ---- */

/* The meta survives videoconvert (a copy into a new buffer) and is found by element name. */
TEST_F (Surface, MetaSurvivesDownstreamConversion)
{
  Pipeline p (
      "videotestsrc num-buffers=2 pattern=solid-color foreground-color=0xffff0000 ! "
      "video/x-raw,format=RGBA,width=320,height=240 ! dlainfer name=infer model=" +
      model ("colours") + " labels=" + labels_of ("colours") +
      " ! videoconvert ! video/x-raw,format=I420 ! videoscale ! "
      "video/x-raw,width=160,height=120 ! appsink name=sink sync=false");
  ASSERT_TRUE (p.play ());
  GstSample *s = p.pull ();
  ASSERT_NE (s, nullptr);
  GstBuffer *buf = gst_sample_get_buffer (s);
  GstDlaClassificationMeta *m = gst_buffer_get_dla_classification_meta_for_element (buf, "infer");
  ASSERT_NE (m, nullptr) << "the meta was dropped by videoconvert/videoscale";
  ASSERT_GT (gst_dla_classification_meta_get_n_results (m), 0u);
  EXPECT_STREQ (gst_dla_classification_meta_get_label (m, 0), "red");
  EXPECT_STREQ (gst_dla_classification_meta_get_backend (m), "swdla");
  EXPECT_FALSE (gst_dla_classification_meta_get_carried (m));
  EXPECT_EQ (gst_dla_classification_meta_get_dla_core (m), 0) << "the core that produced it survives too";
  gst_sample_unref (s);
  p.stop ();
}

#ifdef HAVE_GST_ANALYTICS

/* GStreamer >= 1.24: the same results as a GstAnalyticsClsMtd (label quarks and confidences, best
 * first), on inferred and carried frames. */
TEST_F (Surface, AnalyticsClassification)
{
  Pipeline p (
      "videotestsrc num-buffers=2 pattern=solid-color foreground-color=0xff0000ff ! "
      "video/x-raw,format=RGBA,width=320,height=240 ! dlainfer name=infer interval=1 model=" +
      model ("colours") + " labels=" + labels_of ("colours") + " ! appsink name=sink sync=false");
  ASSERT_TRUE (p.play ());
  for (int i = 0; i < 2; ++i) {
    GstSample *s = p.pull ();
    ASSERT_NE (s, nullptr);
    GstBuffer *buf = gst_sample_get_buffer (s);
    const Result r = result_of (buf);
    ASSERT_TRUE (r.found);
    GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buf);
    ASSERT_NE (rmeta, nullptr) << "frame " << i;
    gpointer state = nullptr;
    GstAnalyticsMtd mtd;
    int found = 0;
    while (gst_analytics_relation_meta_iterate (rmeta, &state, gst_analytics_cls_mtd_get_mtd_type (), &mtd)) {
      auto *cls = reinterpret_cast<GstAnalyticsClsMtd *> (&mtd);
      ++found;
      ASSERT_EQ (gst_analytics_cls_mtd_get_length (cls), r.ids.size ());
      for (gsize k = 0; k < r.ids.size (); ++k) {
        EXPECT_STREQ (g_quark_to_string (gst_analytics_cls_mtd_get_quark (cls, k)), r.labels[k].c_str ());
        EXPECT_FLOAT_EQ (gst_analytics_cls_mtd_get_level (cls, k), r.confidences[k]);
      }
    }
    EXPECT_EQ (found, 1) << "frame " << i;
    EXPECT_EQ (r.labels[0], "blue");
    gst_sample_unref (s);
  }
  p.stop ();
}

#endif

}  // namespace
