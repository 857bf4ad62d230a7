/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* inference-region=roi-list on a CUDA GPU with the software DLA: each object a
 * "detector" put on a frame (ROI metas on every version, ODMtd on >= 1.24) is classified from its
 * own crop and its result written back: each object's result equals the full-frame result of the
 * same crop fed as a frame of its own (every resize mode), object-class / minimum size / maximum
 * count with their counts, reclassify-interval with tracking ids (carried, age, growth, eviction),
 * batch 1, 4 and 16 loadables with partial batches and waves (their graph replays, a flush during
 * them, over two cores), zero objects in order, 10 000 boxes, the
 * element message, and the GstAnalytics relations both ways. The frames are painted: each box a
 * colour of the colours model, the rest black. */
#include <gst/check/gstharness.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gpu_support.h"
#include "gst/meta/gstdlaobject.h"
#include "objects_test_support.h"
#include "swdla_query.h"

namespace {

using namespace element_gpu;

constexpr int kW = 320, kH = 240;
const std::string kCaps = "video/x-raw,format=RGBA,width=320,height=240,framerate=30/1";

using Objects = SwdlaTest;

/* A box of the frame, painted with colour `colour` (kColours), typed and optionally tracked. */
struct Box {
  int x, y, w, h;
  int colour;
  const char *type = "car";
  gint id = 0;           /* > 0: a tracking id (gvatrack's object_id parameter) */
  bool textured = false; /* the colour's intensity varies pixel by pixel (60..100 %) */
};

uint32_t paint (const std::vector<Box> &boxes, int x, int y)
{
  for (const Box &b : boxes) {
    if (x < b.x || x >= b.x + b.w || y < b.y || y >= b.y + b.h)
      continue;
    const uint32_t c = kColours[b.colour].rgb;
    if (!b.textured)
      return c;
    /* A crop taken one pixel off, or scaled differently, reads other values. */
    const uint32_t scale = 60 + 40 * uint32_t ((x * 7 + y * 3) % 16) / 15;
    uint32_t out = 0;
    for (int shift : {16, 8, 0})
      out |= (((c >> shift) & 0xff) * scale / 100) << shift;
    return out;
  }
  return 0x000000;
}

/* Frame i: the boxes painted, one ROI meta each. */
GstBuffer *frame_with (const std::vector<Box> &boxes, guint64 i = 0, bool roi_metas = true)
{
  GstBuffer *buf = rgba_frame (
      kW, kH, [&boxes] (int x, int y) { return paint (boxes, x, y); }, GST_SECOND * i / 30);
  if (roi_metas)
    for (const Box &b : boxes) {
      GstVideoRegionOfInterestMeta *roi = gst_buffer_add_video_region_of_interest_meta (
          buf, b.type, guint (b.x), guint (b.y), guint (b.w), guint (b.h));
      /* A detector's per-frame index: no tracking id (docs/objects.md). */
      roi->id = gint (&b - boxes.data ());
      if (b.id > 0)
        gst_video_region_of_interest_meta_add_param (
            roi, gst_structure_new ("object_id", "id", G_TYPE_INT, b.id, nullptr));
    }
  return buf;
}

std::string roi_pipeline (const std::string &model_name, const std::string &extra)
{
  return "appsrc name=src format=time caps=" + kCaps +
         " ! dlainfer name=infer inference-region=roi-list model=" + model (model_name) +
         " labels=" + labels_of ("colours") + " " + extra + " ! appsink name=sink sync=false";
}

/* One object's result as the ROI meta's parameter structure holds it. */
struct ObjectResult {
  guint x = 0, y = 0, w = 0, h = 0; /* the ROI meta's */
  bool found = false;
  std::string label;
  double confidence = 0;
  bool carried = false;
  guint age = 0;
};

ObjectResult read_param (GstVideoRegionOfInterestMeta *roi, const char *attribute = "infer")
{
  /* Through the public meta library, as an application reads it. */
  ObjectResult r;
  r.x = roi->x;
  r.y = roi->y;
  r.w = roi->w;
  r.h = roi->h;
  const gchar *label = nullptr;
  gfloat confidence = 0;
  gboolean carried = FALSE;
  r.found = gst_dla_object_get_result (roi, attribute, nullptr, &label, &confidence, &carried, &r.age);
  if (r.found) {
    r.label = label;
    r.confidence = confidence;
    r.carried = carried;
  }
  return r;
}

/* Every ROI meta's result, in the metas' order. */
std::vector<ObjectResult> roi_results (GstBuffer *buf)
{
  std::vector<ObjectResult> out;
  gpointer state = nullptr;
  while (GstMeta *m =
             gst_buffer_iterate_meta_filtered (buf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))
    out.push_back (read_param (reinterpret_cast<GstVideoRegionOfInterestMeta *> (m)));
  return out;
}

/* The results of `boxes`, in their order, each found by its rectangle (whatever order the buffer
 * keeps its metas in); one not found has found = false and a zero rectangle. */
std::vector<ObjectResult> in_order (const std::vector<ObjectResult> &got, const std::vector<Box> &boxes)
{
  std::vector<ObjectResult> out;
  for (const Box &b : boxes) {
    out.emplace_back ();
    for (const ObjectResult &r : got)
      if (r.x == guint (b.x) && r.y == guint (b.y) && r.w == guint (b.w) && r.h == guint (b.h))
        out.back () = r;
  }
  return out;
}

/* Pushes the frames, pulls as many; each frame's ROI results. */
std::vector<std::vector<ObjectResult>> run (Pipeline &p, std::vector<GstBuffer *> frames)
{
  std::vector<std::vector<ObjectResult>> out;
  const size_t n = frames.size ();
  for (GstBuffer *b : frames)
    EXPECT_TRUE (p.push (b));
  for (size_t i = 0; i < n; ++i) {
    GstSample *s = p.pull ();
    EXPECT_NE (s, nullptr) << "frame " << i;
    if (!s)
      break;
    out.push_back (roi_results (gst_sample_get_buffer (s)));
    gst_sample_unref (s);
  }
  return out;
}

guint64 stat_of (GstElement *infer, const char *field)
{
  GstStructure *st = nullptr;
  g_object_get (infer, "stats", &st, nullptr);
  guint64 v = G_MAXUINT64;
  gst_structure_get_uint64 (st, field, &v);
  gst_structure_free (st);
  return v;
}

guint64 stat (Pipeline &p, const char *field)
{
  return stat_of (p.by_name ("infer"), field);
}

/* The full-frame result of the box's crop fed as a frame of its own. */
Result crop_as_frame (const std::vector<Box> &boxes, const Box &b, const std::string &props)
{
  Pipeline p ("appsrc name=src format=time caps=video/x-raw,format=RGBA,width=" + std::to_string (b.w) +
              ",height=" + std::to_string (b.h) +
              ",framerate=30/1 ! dlainfer name=infer model=" + model ("colours") +
              " labels=" + labels_of ("colours") + " " + props + " ! appsink name=sink sync=false");
  EXPECT_TRUE (p.play ());
  EXPECT_TRUE (
      p.push (rgba_frame (b.w, b.h, [&] (int x, int y) { return paint (boxes, b.x + x, b.y + y); })));
  GstSample *s = p.pull ();
  Result r;
  if (s) {
    r = result_of (gst_sample_get_buffer (s));
    gst_sample_unref (s);
  }
  p.stop ();
  return r;
}

/* Boxes on even pixels (4:2:0 siting would matter otherwise), thin, tall, small and large. */
const std::vector<Box> kBoxes = {
    {0, 0, 64, 64, 2},      {80, 10, 100, 40, 3},  {200, 0, 24, 120, 4},
    {10, 100, 150, 130, 5}, {240, 160, 80, 80, 6},
};

TEST_F (Objects, EachObjectEqualsItsCropAsAFrame)
{
  std::vector<Box> textured = kBoxes;
  for (Box &b : textured)
    b.textured = true;
  for (const char *mode : {"stretch", "letterbox", "center-crop"}) {
    const std::string props =
        std::string ("resize-mode=") + mode + " mean=\"<0.1,0.2,0.3>\" std=\"<0.5,0.6,0.7>\"";
    Pipeline p (roi_pipeline ("colours", props));
    ASSERT_TRUE (p.play ());
    const auto frames = run (p, {frame_with (textured)});
    p.stop ();
    ASSERT_EQ (frames.size (), 1u);
    ASSERT_EQ (frames[0].size (), kBoxes.size ());
    const std::vector<ObjectResult> got = in_order (frames[0], textured);
    for (size_t i = 0; i < kBoxes.size (); ++i) {
      const Result whole = crop_as_frame (textured, textured[i], props);
      ASSERT_TRUE (whole.found);
      const ObjectResult &o = got[i];
      ASSERT_TRUE (o.found) << mode << " object " << i;
      EXPECT_EQ (o.label, whole.labels[0]) << mode << " object " << i;
      EXPECT_NEAR (o.confidence, whole.confidences[0], 1e-3) << mode << " object " << i;
      EXPECT_FALSE (o.carried);
    }
  }
}

/* Stretch: the painted colour is each object's top-1 (a sanity check on the boxes themselves). */
void expect_colours (const std::vector<ObjectResult> &frame, const std::vector<Box> &boxes, const char *what)
{
  ASSERT_EQ (frame.size (), boxes.size ()) << what;
  const std::vector<ObjectResult> got = in_order (frame, boxes);
  for (size_t i = 0; i < boxes.size (); ++i) {
    ASSERT_TRUE (got[i].found) << what << " object " << i;
    EXPECT_EQ (got[i].label, kColours[boxes[i].colour].name) << what << " object " << i;
  }
}

/* n boxes in rows of 16; frame k shifts the colours by k, so that a result read from another
 * frame's slots, or frames mixed up, shows (16 % 7 and 4 % 7 are not 0: shifts within a frame
 * show too). */
std::vector<Box> grid (int n, int size = 16, int shift = 0)
{
  std::vector<Box> boxes;
  for (int i = 0; i < n; ++i)
    boxes.push_back ({(i % 16) * 20, (i / 16) * 20, size, size, 1 + (i + shift) % 7});
  return boxes;
}

/* Frames 0..n-1 of grid (objects) with colours shifted by the frame's number (none when k is odd
 * and `every_other_empty`); the boxes of each in *boxes. */
std::vector<GstBuffer *> grid_frames (int objects, guint64 n, std::vector<std::vector<Box>> *boxes,
                                      bool every_other_empty = false)
{
  std::vector<GstBuffer *> in;
  boxes->clear ();
  for (guint64 k = 0; k < n; ++k) {
    boxes->push_back (every_other_empty && k % 2 ? std::vector<Box>{} : grid (objects, 16, int (k)));
    in.push_back (frame_with (boxes->back (), k));
  }
  return in;
}

/* Batch 1, 4 and 16 with partial last batches, and waves when max-in-flight is short. */
TEST_F (Objects, BatchesAndWaves)
{
  struct Case {
    const char *model;
    int objects, max_in_flight;
    guint64 tasks;
  } cases[] = {{"colours", 5, 1, 5},
               {"colours-batch4", 6, 1, 2},
               {"colours-batch4", 9, 2, 3},
               {"colours-batch16", 17, 2, 2},
               {"colours-batch16", 40, 1, 3}};
  for (const Case &c : cases) {
    const std::string what = std::string (c.model) + " x" + std::to_string (c.objects);
    Pipeline p (roi_pipeline (c.model, "max-in-flight=" + std::to_string (c.max_in_flight)));
    ASSERT_TRUE (p.play ());
    std::vector<std::vector<Box>> boxes;
    const auto frames = run (p, grid_frames (c.objects, 3, &boxes));
    ASSERT_EQ (frames.size (), 3u);
    for (size_t k = 0; k < 3; ++k)
      expect_colours (frames[k], boxes[k], (what + " frame " + std::to_string (k)).c_str ());
    EXPECT_EQ (stat (p, "inferences"), 3 * c.tasks) << what;
    EXPECT_EQ (stat (p, "objects-classified"), guint64 (3 * c.objects)) << what;
    /* One launch a wave; the same slot's launch comes round (waves, or frames) within three
     * frames: replayed. */
    const guint64 waves = (c.tasks + guint64 (c.max_in_flight) - 1) / guint64 (c.max_in_flight);
    EXPECT_EQ (stat (p, "objects-launches"), 3 * waves) << what;
    EXPECT_GT (stat (p, "graph-launches"), 0u) << what;
    p.stop ();
  }
}

/* Zero objects: no task, pushed in order between frames that have some. */
TEST_F (Objects, ZeroObjectsPassInOrder)
{
  Pipeline p (roi_pipeline ("colours-batch4", "max-in-flight=2"));
  ASSERT_TRUE (p.play ());
  std::vector<std::vector<Box>> boxes;
  for (GstBuffer *b : grid_frames (3, 8, &boxes, true))
    ASSERT_TRUE (p.push (b));
  for (guint64 i = 0; i < 8; ++i) {
    GstSample *s = p.pull ();
    ASSERT_NE (s, nullptr);
    GstBuffer *b = gst_sample_get_buffer (s);
    EXPECT_EQ (GST_BUFFER_PTS (b), GST_SECOND * i / 30) << "frames leave in order";
    /* Each frame's own colours: a result of the frame before would read shifted ones. */
    expect_colours (roi_results (b), boxes[i], ("frame " + std::to_string (i)).c_str ());
    gst_sample_unref (s);
  }
  EXPECT_EQ (stat (p, "frames"), 8u);
  EXPECT_EQ (stat (p, "inferences"), 4u);
  p.stop ();
}

/* A wave's tasks run one after another: 8 tasks of 60 ms take 480 ms, past a task-timeout of
 * 250 ms, though no task was slow. Each task's wait gets its own timeout (16 objects, batch 1,
 * max-in-flight=8: the streaming thread waits wave 0 itself). */
TEST_F (Objects, WaveLongerThanTheTaskTimeoutIsNoTimeout)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "60000"}});
  Pipeline p (roi_pipeline ("colours", "max-in-flight=8 task-timeout=250"));
  ASSERT_TRUE (p.play ());
  std::vector<std::vector<Box>> boxes;
  const auto frames = run (p, grid_frames (16, 2, &boxes));
  const BusError err = p.wait_error (0);
  EXPECT_FALSE (err.posted) << err.source << ": " << err.message;
  ASSERT_EQ (frames.size (), 2u);
  for (size_t k = 0; k < 2; ++k)
    expect_colours (frames[k], boxes[k], ("frame " + std::to_string (k)).c_str ());
  EXPECT_EQ (stat (p, "objects-launches"), 4u);
  p.stop ();
}

/* A flush while the streaming thread waits for an earlier wave of a frame (8 objects, batch 1,
 * max-in-flight=2: four waves of two 100 ms tasks): the push ends with FLUSHING after the wave's
 * tasks ended (each wait sees the flush within its 100 ms slice; cuDLA cannot cancel), before the
 * frame's later waves; nothing of it is pushed, and the stream goes on with each frame's own
 * results. */
TEST_F (Objects, FlushDuringWaves)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "100000"}});
  GstHarness *h =
      gst_harness_new_parse (("dlainfer name=infer inference-region=roi-list model=" + model ("colours") +
                              " labels=" + labels_of ("colours") + " max-in-flight=2")
                                 .c_str ());
  gst_harness_set_src_caps_str (h, kCaps.c_str ());
  const std::vector<Box> first = grid (8);
  GstFlowReturn pushed = GST_FLOW_OK;
  std::thread pusher ([&] { pushed = gst_harness_push (h, frame_with (first, 0)); });
  /* Wave 0 (two tasks) runs until about 200 ms: the flush comes while the push waits for it. */
  std::this_thread::sleep_for (std::chrono::milliseconds (150));
  ASSERT_TRUE (gst_harness_push_event (h, gst_event_new_flush_start ()));
  ASSERT_TRUE (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  pusher.join ();
  EXPECT_EQ (pushed, GST_FLOW_FLUSHING);
  EXPECT_EQ (gst_harness_buffers_received (h), 0u) << "a frame of the flushed stream was pushed";
  /* Not all four waves ran: the flush ended the frame after its first wave. */
  GstElement *infer = gst_harness_find_element (h, "dlainfer");
  EXPECT_LE (stat_of (infer, "inferences"), 2u) << "waves after the flush ran";
  GstSegment segment;
  gst_segment_init (&segment, GST_FORMAT_TIME);
  ASSERT_TRUE (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  g_setenv ("SWDLA_SERVICE_US", "1000", TRUE);
  std::vector<std::vector<Box>> boxes;
  for (GstBuffer *b : grid_frames (8, 3, &boxes))
    ASSERT_EQ (gst_harness_push (h, b), GST_FLOW_OK);
  for (size_t k = 0; k < 3; ++k) {
    GstBuffer *out = gst_harness_pull (h);
    ASSERT_NE (out, nullptr) << "frame " << k;
    EXPECT_EQ (GST_BUFFER_PTS (out), GST_SECOND * k / 30);
    expect_colours (roi_results (out), boxes[k], ("after the flush, frame " + std::to_string (k)).c_str ());
    gst_buffer_unref (out);
  }
  gst_object_unref (infer);
  gst_harness_teardown (h);
}

/* A flush with whole frames in flight (queued, their tasks running) pushes none of them, in
 * roi-list as with full frames; the stream goes on after it with each object's own result. */
TEST_F (Objects, FlushPushesNoneOfTheFramesInFlight)
{
  /* The layout check reads each input back at submit, which would leave one task in flight. */
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "200000"}, {"SWDLA_CHECK_LAYOUT", "0"}});
  GstHarness *h =
      gst_harness_new_parse (("dlainfer name=infer inference-region=roi-list model=" + model ("colours") +
                              " labels=" + labels_of ("colours") + " max-in-flight=4")
                                 .c_str ());
  gst_harness_set_src_caps_str (h, kCaps.c_str ());
  /* Four frames of one object each: four tasks of 200 ms in flight when the flush comes. */
  for (guint64 i = 0; i < 4; ++i)
    ASSERT_EQ (gst_harness_push (h, frame_with (grid (1, 16, int (i)), 10 + i)), GST_FLOW_OK);
  EXPECT_EQ (gst_harness_buffers_received (h), 0u) << "4 tasks of 200 ms ended before the flush";
  ASSERT_TRUE (gst_harness_push_event (h, gst_event_new_flush_start ()));
  ASSERT_TRUE (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  EXPECT_EQ (gst_harness_buffers_received (h), 0u) << "a frame in flight was pushed across the flush";
  GstSegment segment;
  gst_segment_init (&segment, GST_FORMAT_TIME);
  ASSERT_TRUE (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  g_setenv ("SWDLA_SERVICE_US", "1000", TRUE);
  std::vector<std::vector<Box>> boxes;
  for (GstBuffer *b : grid_frames (3, 3, &boxes))
    ASSERT_EQ (gst_harness_push (h, b), GST_FLOW_OK);
  for (size_t k = 0; k < 3; ++k) {
    GstBuffer *out = gst_harness_pull (h);
    ASSERT_NE (out, nullptr) << "frame " << k;
    EXPECT_EQ (GST_BUFFER_PTS (out), GST_SECOND * k / 30) << "a frame of the flushed stream came out";
    expect_colours (roi_results (out), boxes[k], ("after the flush, frame " + std::to_string (k)).c_str ());
    gst_buffer_unref (out);
  }
  std::this_thread::sleep_for (std::chrono::milliseconds (300));
  EXPECT_EQ (gst_harness_buffers_received (h), 3u) << "a dropped frame came out late";
  gst_harness_teardown (h);
}

/* dla-core=-1 with waves (SWDLA_NUM_CORES=2): a wave's slots are spread over both cores' rings;
 * each frame still gets its own results in order, and both cores ran tasks. */
TEST_F (Objects, WavesOverTwoCores)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "1000"}});
  const int64_t before[2] = {dlainfer_test::swdla_core_tasks_before_load (0),
                             dlainfer_test::swdla_core_tasks_before_load (1)};
  Pipeline p (roi_pipeline ("colours-batch4", "dla-core=-1 max-in-flight=4"));
  ASSERT_TRUE (p.play ());
  std::vector<std::vector<Box>> boxes;
  /* 40 objects: ten tasks a frame, in waves of 4, 4 and 2. */
  const auto frames = run (p, grid_frames (40, 6, &boxes));
  ASSERT_EQ (frames.size (), 6u);
  for (size_t k = 0; k < 6; ++k)
    expect_colours (frames[k], boxes[k], ("frame " + std::to_string (k)).c_str ());
  EXPECT_EQ (stat (p, "inferences"), 60u);
  p.stop ();
  ASSERT_GE (dlainfer_test::swdla_core_tasks (0), 0) << "swdla's task accounting is not reachable";
  for (int c : {0, 1})
    EXPECT_GT (dlainfer_test::swdla_core_tasks (c) - before[c], 0) << "core " << c << " ran no task";
}

/* object-class, the minimum size and the maximum count, each counted in stats. */
TEST_F (Objects, SelectionRulesAndCounts)
{
  Pipeline p (
      roi_pipeline ("colours-batch4",
                    "object-class=car input-object-min-width=20 input-object-min-height=20 max-objects=2"));
  ASSERT_TRUE (p.play ());
  std::vector<Box> boxes = {
      {0, 0, 40, 40, 2},            /* kept */
      {50, 0, 40, 40, 3, "person"}, /* filtered */
      {100, 0, 16, 40, 4},          /* too narrow */
      {150, 0, 60, 60, 5},          /* kept (largest) */
      {220, 0, 30, 30, 6},          /* over the maximum (smallest of three) */
      {400, 300, 40, 40, 2},        /* outside the frame */
  };
  const auto frames = run (p, {frame_with (boxes)});
  ASSERT_EQ (frames.size (), 1u);
  ASSERT_EQ (frames[0].size (), boxes.size ());
  const std::vector<ObjectResult> got = in_order (frames[0], boxes);
  const bool classified[] = {true, false, false, true, false, false};
  for (size_t i = 0; i < boxes.size (); ++i)
    EXPECT_EQ (got[i].found, classified[i]) << "object " << i;
  EXPECT_EQ (got[3].label, "yellow");
  EXPECT_EQ (stat (p, "objects-seen"), 6u);
  EXPECT_EQ (stat (p, "objects-classified"), 2u);
  EXPECT_EQ (stat (p, "objects-filtered"), 1u);
  EXPECT_EQ (stat (p, "objects-too-small"), 1u);
  EXPECT_EQ (stat (p, "objects-over-maximum"), 1u);
  EXPECT_EQ (stat (p, "objects-degenerate"), 1u);
  p.stop ();
}

/* Tracked objects carry their result for reclassify-interval frames (age) and are classified
 * again when the box grew by 20 %. max-in-flight=1: each frame's results are stored before the
 * next frame is decided. */
TEST_F (Objects, ReclassifyIntervalAndGrowth)
{
  Pipeline p (roi_pipeline ("colours", "max-in-flight=1 reclassify-interval=2"));
  ASSERT_TRUE (p.play ());
  const Box tracked{0, 0, 40, 40, 2, "car", 7}, untracked{100, 0, 40, 40, 3};
  std::vector<GstBuffer *> in;
  for (guint64 i = 0; i < 6; ++i)
    in.push_back (frame_with ({tracked, untracked}, i));
  auto frames = run (p, in);
  ASSERT_EQ (frames.size (), 6u);
  for (size_t i = 0; i < 6; ++i) {
    ASSERT_EQ (frames[i].size (), 2u);
    const std::vector<ObjectResult> got = in_order (frames[i], {tracked, untracked});
    EXPECT_EQ (got[0].carried, i % 3 != 0) << "frame " << i;
    EXPECT_EQ (got[0].age, guint (i % 3)) << "frame " << i;
    EXPECT_EQ (got[0].label, "red");
    EXPECT_TRUE (got[1].found);
    EXPECT_FALSE (got[1].carried) << "untracked: classified on every frame";
  }
  EXPECT_EQ (stat (p, "objects-carried"), 4u);
  /* Frame 6 classifies (interval over); frame 7's box is 44x44 (1.21x the area): classified again. */
  Box grown = tracked;
  grown.w = grown.h = 44;
  frames = run (p, {frame_with ({tracked}, 6), frame_with ({grown}, 7), frame_with ({grown}, 8)});
  ASSERT_EQ (frames.size (), 3u);
  for (const auto &f : frames)
    ASSERT_TRUE (f.size () == 1 && f[0].found);
  EXPECT_FALSE (frames[0][0].carried);
  EXPECT_FALSE (frames[1][0].carried) << "grown by 20 %: classified again";
  EXPECT_TRUE (frames[2][0].carried);
  p.stop ();
}

/* dlatrack gives an untracked moving box an id; with smoothing=0.8 its label changes a few
 * classifications after its colour does (one-hot scores: the 4th), with smoothing=0 at once. */
TEST_F (Objects, TrackedByDlatrackAndSmoothed)
{
  for (const char *smoothing : {"0", "0.8"}) {
    SCOPED_TRACE (std::string ("smoothing=") + smoothing);
    Pipeline p ("appsrc name=src format=time caps=" + kCaps + " ! dlatrack min-hits=1" +
                " ! dlainfer name=infer inference-region=roi-list model=" + model ("colours") +
                " labels=" + labels_of ("colours") + " max-in-flight=1 smoothing=" + smoothing +
                " ! appsink name=sink sync=false");
    ASSERT_TRUE (p.play ());
    std::vector<GstBuffer *> in;
    for (guint64 i = 0; i < 16; ++i)
      in.push_back (frame_with ({{int (20 + 4 * i), 40, 48, 48, i < 5 ? 2 : 3}}, i)); /* red, then green */
    for (GstBuffer *b : in)
      ASSERT_TRUE (p.push (b));
    int flipped = -1;
    for (guint64 i = 0; i < 16; ++i) {
      GstSample *sample = p.pull ();
      ASSERT_NE (sample, nullptr) << "frame " << i;
      GstVideoRegionOfInterestMeta *roi = gst_dla_buffer_get_object (gst_sample_get_buffer (sample), 0);
      ASSERT_NE (roi, nullptr);
      guint64 id = 0;
      EXPECT_TRUE (gst_dla_object_get_tracking_id (roi, &id)) << "frame " << i;
      EXPECT_EQ (id, 1u) << "frame " << i;
      const ObjectResult r = read_param (roi);
      EXPECT_TRUE (r.found && !r.carried) << "frame " << i;
      if (i < 5) {
        EXPECT_EQ (r.label, "red") << "frame " << i;
      }
      if (i >= 5 && flipped < 0 && r.label == "green")
        flipped = int (i);
      gst_sample_unref (sample);
    }
    if (std::string (smoothing) == "0") {
      EXPECT_EQ (flipped, 5);
    } else {
      EXPECT_TRUE (flipped >= 6 && flipped <= 10) << "flipped at frame " << flipped;
    }
    p.stop ();
  }
}

/* A tracked object unseen for 150 frames is forgotten: back, it is classified, not carried. */
TEST_F (Objects, UnseenObjectsAreEvicted)
{
  Pipeline p (roi_pipeline ("colours", "max-in-flight=1 reclassify-interval=1000"));
  ASSERT_TRUE (p.play ());
  const Box red{0, 0, 40, 40, 2, "car", 3};
  Box blue = red;
  blue.colour = 4;
  auto frames = run (p, {frame_with ({red}, 0), frame_with ({blue}, 1)});
  ASSERT_EQ (frames.size (), 2u);
  EXPECT_EQ (frames[1][0].label, "red") << "carried, whatever the pixels say";
  EXPECT_TRUE (frames[1][0].carried);
  std::vector<GstBuffer *> gap;
  for (guint64 i = 0; i < 151; ++i)
    gap.push_back (frame_with ({}, 2 + i));
  run (p, gap);
  frames = run (p, {frame_with ({blue}, 153)});
  ASSERT_EQ (frames.size (), 1u);
  EXPECT_FALSE (frames[0][0].carried);
  EXPECT_EQ (frames[0][0].label, "blue");
  p.stop ();
}

/* 10 000 boxes on one frame: 1 024 classified (the per-frame cap), the rest counted. */
TEST_F (Objects, TenThousandBoxesAreBoundedAndCounted)
{
  Pipeline p (
      roi_pipeline ("colours-batch16", "max-in-flight=4 input-object-min-width=2 input-object-min-height=2"));
  ASSERT_TRUE (p.play ());
  /* Black (painting 10 000 boxes per pixel would be slow): the counts are what is tested. */
  GstBuffer *buf = rgba_frame (kW, kH, [] (int, int) { return 0u; });
  for (int i = 0; i < 10000; ++i)
    gst_buffer_add_video_region_of_interest_meta (buf, "car", guint (i % 100) * 3, guint (i / 100 % 80) * 3,
                                                  2, 2);
  const auto frames = run (p, {buf});
  ASSERT_EQ (frames.size (), 1u);
  size_t with_result = 0;
  for (const ObjectResult &r : frames[0])
    with_result += r.found;
  EXPECT_EQ (with_result, 1024u);
  EXPECT_EQ (stat (p, "objects-seen"), 10000u);
  EXPECT_EQ (stat (p, "objects-classified"), 1024u);
  EXPECT_EQ (stat (p, "objects-over-maximum"), 10000u - 1024u);
  EXPECT_EQ (stat (p, "inferences"), 64u);
  p.stop ();
}

/* post-messages: one "dlainfer-result" per frame listing each object with its box and label. */
TEST_F (Objects, MessageListsObjectsWithBoxes)
{
  Pipeline p (roi_pipeline ("colours-batch4", "post-messages=true"));
  ASSERT_TRUE (p.play ());
  run (p, {frame_with (kBoxes)});
  GstBus *bus = gst_element_get_bus (p.get ());
  GstMessage *m = nullptr;
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    if (gst_structure_has_name (gst_message_get_structure (m), "dlainfer-result"))
      break;
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  ASSERT_NE (m, nullptr);
  const GValue *objects = gst_structure_get_value (gst_message_get_structure (m), "objects");
  ASSERT_NE (objects, nullptr);
  ASSERT_EQ (gst_value_array_get_size (objects), kBoxes.size ());
  size_t matched = 0;
  for (guint i = 0; i < kBoxes.size (); ++i) {
    const GstStructure *o = gst_value_get_structure (gst_value_array_get_value (objects, i));
    gint x = -1, y = -1, w = -1, h = -1;
    gst_structure_get (o, "x", G_TYPE_INT, &x, "y", G_TYPE_INT, &y, "width", G_TYPE_INT, &w, "height",
                       G_TYPE_INT, &h, nullptr);
    const GValue *labels = gst_structure_get_value (o, "labels");
    ASSERT_NE (labels, nullptr);
    ASSERT_GT (gst_value_array_get_size (labels), 0u);
    for (const Box &b : kBoxes)
      if (b.x == x && b.y == y && b.w == w && b.h == h) {
        ++matched;
        EXPECT_STREQ (g_value_get_string (gst_value_array_get_value (labels, 0)), kColours[b.colour].name);
      }
  }
  EXPECT_EQ (matched, kBoxes.size ()) << "each entry has its object's box";
  gst_message_unref (m);
  p.stop ();
}

#ifdef TEST_ANALYTICS
/* ODMtd input: one ClsMtd per detection, found by RELATE_TO and CONTAIN from it, and IS_PART_OF
 * back; a ROI meta describing the same object gets its parameter structure too. */
TEST_F (Objects, AnalyticsDetectionsGetRelatedClassifications)
{
  Pipeline p (roi_pipeline ("colours-batch4", ""));
  ASSERT_TRUE (p.play ());
  GstBuffer *buf = frame_with (kBoxes, 0, false);
  GstAnalyticsRelationMeta *rmeta = gst_buffer_add_analytics_relation_meta (buf);
  std::vector<guint> ids;
  for (const Box &b : kBoxes) {
    GstAnalyticsODMtd od;
    ASSERT_TRUE (gst_analytics_relation_meta_add_od_mtd (rmeta, g_quark_from_string (b.type), b.x, b.y, b.w,
                                                         b.h, 0.9f, &od));
    ids.push_back (od.id);
  }
  /* The first detection is described by a ROI meta as well. */
  GstVideoRegionOfInterestMeta *roi = gst_buffer_add_video_region_of_interest_meta (
      buf, kBoxes[0].type, guint (kBoxes[0].x), guint (kBoxes[0].y), guint (kBoxes[0].w),
      guint (kBoxes[0].h));
  (void)roi;
  ASSERT_TRUE (p.push (buf));
  GstSample *s = p.pull ();
  ASSERT_NE (s, nullptr);
  GstBuffer *out = gst_sample_get_buffer (s);
  rmeta = gst_buffer_get_analytics_relation_meta (out);
  ASSERT_NE (rmeta, nullptr);
  for (size_t i = 0; i < kBoxes.size (); ++i) {
    for (GstAnalyticsRelTypes rel : {GST_ANALYTICS_REL_TYPE_RELATE_TO, GST_ANALYTICS_REL_TYPE_CONTAIN}) {
      gpointer state = nullptr;
      GstAnalyticsClsMtd cls;
      ASSERT_TRUE (gst_analytics_relation_meta_get_direct_related (
          rmeta, ids[i], rel, gst_analytics_cls_mtd_get_mtd_type (), &state, &cls))
          << "object " << i << " relation " << int (rel);
      EXPECT_STREQ (g_quark_to_string (gst_analytics_cls_mtd_get_quark (&cls, 0)),
                    kColours[kBoxes[i].colour].name);
      gpointer back = nullptr;
      GstAnalyticsODMtd parent;
      ASSERT_TRUE (gst_analytics_relation_meta_get_direct_related (
          rmeta, cls.id, GST_ANALYTICS_REL_TYPE_IS_PART_OF, gst_analytics_od_mtd_get_mtd_type (), &back,
          &parent));
      EXPECT_EQ (parent.id, ids[i]);
    }
  }
  const std::vector<ObjectResult> rois = roi_results (out);
  ASSERT_EQ (rois.size (), 1u);
  EXPECT_TRUE (rois[0].found);
  EXPECT_EQ (rois[0].label, kColours[kBoxes[0].colour].name);
  gst_sample_unref (s);
  p.stop ();
}
#endif

}  // namespace

namespace {

/* dlapublish at the end of the chain: each frame's JSON line has the tracked object with
 * dlainfer's result (its element's name, the label, carried and age from reclassify-interval, the
 * swdla backend), and every line is valid against docs/publish.schema.json. */
TEST_F (Objects, PublishedAsJsonLines)
{
  /* fakesink: an appsink nobody pulls from holds EOS back until its samples are taken. */
  gchar *tmp = g_dir_make_tmp ("dlapublish-gpu-XXXXXX", nullptr);
  ASSERT_NE (tmp, nullptr);
  const std::string dir = tmp, path = dir + "/out.jsonl";
  g_free (tmp);
  Pipeline p ("appsrc name=src format=time caps=" + kCaps + " ! dlatrack min-hits=1" +
              " ! dlainfer name=infer inference-region=roi-list model=" + model ("colours") +
              " labels=" + labels_of ("colours") + " max-in-flight=1 reclassify-interval=2" +
              " ! dlapublish method=file source=gpu file-path=" + path + " ! fakesink sync=false");
  ASSERT_TRUE (p.play ());
  for (guint64 i = 0; i < 6; ++i)
    ASSERT_TRUE (p.push (frame_with ({{int (20 + 2 * i), 40, 48, 48, 2}}, i))); /* red, moving */
  p.end_of_stream ();
  ASSERT_TRUE (p.wait_eos ());
  p.stop ();
  std::ifstream in (path);
  std::vector<std::string> lines;
  for (std::string l; std::getline (in, l);)
    lines.push_back (l);
  ASSERT_EQ (lines.size (), 6u);
  for (size_t i = 0; i < lines.size (); ++i) {
    SCOPED_TRACE (lines[i]);
    EXPECT_EQ (lines[i].rfind ("{\"source\":\"gpu\",\"frame\":" + std::to_string (i) + ",", 0), 0u);
    EXPECT_NE (lines[i].find ("\"id\":1,\"detection\":{\"label\":\"car\""), std::string::npos);
    EXPECT_NE (lines[i].find ("\"classification\":[{\"name\":\"infer\",\"label\":\"red\""),
               std::string::npos);
    EXPECT_NE (lines[i].find ("\"backend\":\"swdla\""), std::string::npos);
    const bool carried = i % 3 != 0; /* classified every 3rd frame */
    EXPECT_NE (lines[i].find (std::string ("\"carried\":") + (carried ? "true" : "false") +
                              ",\"age\":" + std::to_string (i % 3)),
               std::string::npos);
  }
  const std::string root = g_getenv ("DLAINFER_SOURCE_ROOT");
  const std::string cmd = "/usr/bin/python3 " + root + "/tests/publish/validate_schema.py " + root +
                          "/docs/publish.schema.json " + path;
  /* The GPU host may lack python3-jsonschema (77) or Python (127): noted, the lines are checked above. */
  const int rc = std::system (cmd.c_str ());
  const int status = WIFEXITED (rc) ? WEXITSTATUS (rc) : -1;
  if (status == 77 || status == 127)
    std::printf ("PublishedAsJsonLines: schema not checked on this host (exit %d of %s)\n", status,
                 cmd.c_str ());
  else
    EXPECT_EQ (status, 0) << cmd;
  std::system (("rm -rf '" + dir + "'").c_str ());
}

}  // namespace
