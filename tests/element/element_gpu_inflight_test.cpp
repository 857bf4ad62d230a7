/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frames in flight (docs/architecture.md 8) on a CUDA GPU with the software DLA: order and identity
 * under jittered service at every max-in-flight, drains (EOS, DRAIN, caps), flushes, state changes
 * with tasks in flight, downstream flows reaching upstream, a tee upstream, LATENCY and ALLOCATION
 * answers, a small fixed upstream pool, and failures with several tasks in flight. Times are
 * asserted to orders of magnitude only. */
#include <gst/check/gstharness.h>
#include <gst/video/gstvideopool.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "gpu_support.h"

namespace {

using namespace element_gpu;
using Clock = std::chrono::steady_clock;

constexpr int kW = 64, kH = 48;
const std::string kCaps = "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1";

using InFlight = SwdlaTest;

std::string infer (const std::string &extra = "")
{
  return "dlainfer name=infer model=" + model ("colours") + " labels=" + labels_of ("colours") + " " + extra;
}

GstBuffer *coloured (guint64 i)
{
  return coloured_frame (i, kW, kH);
}

/* Copies of the 8 coloured frames, restamped: cheaper than painting 10 000. */
class Frames {
 public:
  Frames ()
  {
    for (int i = 0; i < 8; ++i)
      colours_[i] = coloured (guint64 (i));
  }
  ~Frames ()
  {
    for (GstBuffer *b : colours_)
      gst_buffer_unref (b);
  }
  GstBuffer *get (guint64 i) const
  {
    GstBuffer *b = gst_buffer_copy_deep (colours_[i % 8]);
    GST_BUFFER_PTS (b) = GST_SECOND * i / 30;
    GST_BUFFER_OFFSET (b) = i;
    return b;
  }

 private:
  GstBuffer *colours_[8];
};

/* A pushed frame is frame `i`: its own offset and its own colour's result, inferred. */
void expect_frame (GstBuffer *out, guint64 i, const std::string &what)
{
  ASSERT_NE (out, nullptr) << what << ": frame " << i << " did not come out";
  EXPECT_EQ (GST_BUFFER_OFFSET (out), i) << what << ": out of order";
  const Result r = result_of (out);
  ASSERT_TRUE (r.found) << what << ": frame " << i << " has no result";
  EXPECT_FALSE (r.carried) << what << ": frame " << i;
  EXPECT_EQ (r.labels[0], kColours[i % 8].name)
      << what << ": frame " << i << " carries another frame's result";
}

/* Frames [first, last) pushed; false when one was refused. */
bool push_frames (GstHarness *h, const Frames &frames, guint64 first, guint64 last)
{
  for (guint64 i = first; i < last; ++i)
    if (gst_harness_push (h, frames.get (i)) != GST_FLOW_OK)
      return false;
  return true;
}

/* Frames [first, last) pulled, each checked. */
void pull_frames (GstHarness *h, guint64 first, guint64 last, const std::string &what)
{
  for (guint64 i = first; i < last; ++i) {
    GstBuffer *b = gst_harness_pull (h);
    expect_frame (b, i, what);
    if (b)
      gst_buffer_unref (b);
  }
}

GstHarness *harness (const std::string &extra)
{
  GstHarness *h = gst_harness_new_parse (infer (extra).c_str ());
  gst_harness_set_src_caps_str (h, kCaps.c_str ());
  return h;
}

/* A harness with max-in-flight=4 and frames 0..3 pushed (in flight while the service is long). */
GstHarness *four_in_flight (const Frames &frames)
{
  GstHarness *h = harness ("max-in-flight=4");
  EXPECT_TRUE (push_frames (h, frames, 0, 4));
  return h;
}

/* ---- order and identity ---- */

/* N frames, colours cycling, under jittered service: each comes out in input order with its own
 * frame's result. The test pulls while it pushes, so what is in flight is the element's doing. */
void run_in_order (int max_in_flight, guint64 n)
{
  const std::string what = "max-in-flight=" + std::to_string (max_in_flight);
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "200"},
                 {"SWDLA_SERVICE_JITTER_PCT", "50"},
                 {"SWDLA_SEED", std::to_string (max_in_flight)}});
  GstHarness *h = harness ("max-in-flight=" + std::to_string (max_in_flight));
  const Frames frames;
  guint64 out = 0;
  for (guint64 i = 0; i < n; ++i) {
    ASSERT_EQ (gst_harness_push (h, frames.get (i)), GST_FLOW_OK) << what << " frame " << i;
    while (GstBuffer *b = gst_harness_try_pull (h)) {
      expect_frame (b, out++, what);
      gst_buffer_unref (b);
      if (testing::Test::HasFailure ())
        break;
    }
    if (testing::Test::HasFailure ())
      break;
  }
  while (!testing::Test::HasFailure () && out < n) {
    GstBuffer *b = gst_harness_pull (h); /* up to 60 s */
    expect_frame (b, out++, what);
    if (b)
      gst_buffer_unref (b);
  }
  EXPECT_EQ (gst_harness_try_pull (h), nullptr) << what << ": more frames out than in";
  gst_harness_teardown (h);
}

TEST_F (InFlight, OrderAndIdentityAtEveryMaxInFlight)
{
  for (int m = 1; m <= 8; ++m) {
    SCOPED_TRACE ("max-in-flight=" + std::to_string (m));
    /* 10 000 at the default, 500 at each other value. */
    run_in_order (m, m == 2 ? 10000 : 500);
    if (HasFailure ())
      return;
  }
}

/* max-in-flight=1 submits the next task the moment the DLA ends one, into the engine's spare slot,
 * while the src task still reads the last: never while it runs. swdla refuses a second task queued
 * on its handle, so a streaming thread that submitted early would fail the stream. */
TEST_F (InFlight, OneInFlightNeverQueuesASecondTask)
{
  SwdlaEnv limit ({{"SWDLA_QUEUE_LIMIT", "1"}, {"SWDLA_QUEUE_FULL", "fail"}});
  run_in_order (1, 1000);
}

/* `interval`: skipped frames go through the same queue and carry the nearest preceding inferred
 * frame's result (in input order), with its age. */
TEST_F (InFlight, SkippedFramesCarryThePrecedingResult)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "500"}, {"SWDLA_SERVICE_JITTER_PCT", "50"}});
  GstHarness *h = harness ("max-in-flight=4 interval=2");
  const Frames frames;
  const guint64 n = 300;
  ASSERT_TRUE (push_frames (h, frames, 0, n));
  for (guint64 i = 0; i < n; ++i) {
    GstBuffer *b = gst_harness_pull (h);
    ASSERT_NE (b, nullptr) << i;
    EXPECT_EQ (GST_BUFFER_OFFSET (b), i);
    const Result r = result_of (b);
    ASSERT_TRUE (r.found) << i;
    const guint64 age = i % 3;
    EXPECT_EQ (r.carried, age != 0) << i;
    EXPECT_EQ (r.age, age) << i;
    EXPECT_EQ (r.labels[0], kColours[(i - age) % 8].name) << "frame " << i;
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
}

/* ---- drains ---- */

TEST_F (InFlight, EosDrainsEveryFrame)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "2000"}});
  const int n = 300;
  Pipeline p ("videotestsrc num-buffers=" + std::to_string (n) + " ! " + kCaps + " ! " +
              infer ("max-in-flight=4") + " ! appsink name=sink sync=false");
  ASSERT_TRUE (p.play ());
  int frames = 0;
  GstAppSink *sink = GST_APP_SINK (p.by_name ("sink"));
  while (GstSample *s = gst_app_sink_try_pull_sample (sink, 10 * GST_SECOND)) {
    EXPECT_TRUE (result_of (gst_sample_get_buffer (s)).found) << frames;
    ++frames;
    gst_sample_unref (s);
  }
  EXPECT_TRUE (gst_app_sink_is_eos (sink)) << "no EOS after " << frames << " frames";
  EXPECT_EQ (frames, n) << "N in, N out";
  EXPECT_TRUE (p.wait_eos (10 * GST_SECOND));
  p.stop ();
}

/* The DRAIN query returns once every frame before it was pushed. */
TEST_F (InFlight, DrainQueryWaitsForTheFramesInFlight)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "20000"}});
  const Frames frames;
  GstHarness *h = four_in_flight (frames);
  EXPECT_LT (gst_harness_buffers_received (h), 4u) << "4 tasks of 20 ms ended before the query";
  GstQuery *q = gst_query_new_drain ();
  EXPECT_TRUE (gst_pad_peer_query (h->srcpad, q));
  gst_query_unref (q);
  EXPECT_EQ (gst_harness_buffers_received (h), 4u) << "the DRAIN query passed frames in flight";
  pull_frames (h, 0, 4, "drain");
  gst_harness_teardown (h);
}

/* New caps mid-stream: the frames of the old caps are pushed before the CAPS event passes. */
TEST_F (InFlight, CapsChangeDrainsFirst)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "20000"}});
  const Frames frames;
  GstHarness *h = four_in_flight (frames);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=32,height=24,framerate=30/1");
  EXPECT_EQ (gst_harness_buffers_received (h), 4u) << "the CAPS event passed frames in flight";
  for (guint64 i = 4; i < 8; ++i) {
    const uint32_t rgb = kColours[i % 8].rgb;
    GstBuffer *b = rgba_frame (
        32, 24, [rgb] (int, int) { return rgb; }, GST_SECOND * i / 30);
    GST_BUFFER_OFFSET (b) = i;
    ASSERT_EQ (gst_harness_push (h, b), GST_FLOW_OK);
  }
  pull_frames (h, 0, 8, "caps change");
  gst_harness_teardown (h);
}

/* ---- flushing and state changes ---- */

/* A flush while tasks are in flight pushes none of them; the stream goes on after it. */
TEST_F (InFlight, FlushPushesNoneOfTheFramesInFlight)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "200000"}});
  const Frames frames;
  GstHarness *h = four_in_flight (frames);
  const auto t0 = Clock::now ();
  ASSERT_TRUE (gst_harness_push_event (h, gst_event_new_flush_start ()));
  ASSERT_TRUE (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  const double flush_s = std::chrono::duration<double> (Clock::now () - t0).count ();
  EXPECT_EQ (gst_harness_buffers_received (h), 0u) << "a frame in flight was pushed across the flush";
  /* FLUSH_STOP waited for the 4 tasks (the DLA cannot cancel): 0.8 s of service at most. */
  EXPECT_LT (flush_s, 10.0);
  /* FLUSH_STOP took the segment away. */
  GstSegment segment;
  gst_segment_init (&segment, GST_FORMAT_TIME);
  ASSERT_TRUE (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  g_setenv ("SWDLA_SERVICE_US", "1000", TRUE);
  ASSERT_TRUE (push_frames (h, frames, 100, 104));
  pull_frames (h, 100, 104, "after the flush");
  std::this_thread::sleep_for (std::chrono::milliseconds (300));
  EXPECT_EQ (gst_harness_buffers_received (h), 4u) << "a dropped frame came out late";
  gst_harness_teardown (h);
}

/* The process's resident memory (KiB). */
long rss_kib ()
{
  long pages = 0, resident = 0;
  FILE *f = std::fopen ("/proc/self/statm", "r");
  if (f) {
    if (std::fscanf (f, "%ld %ld", &pages, &resident) != 2)
      resident = 0;
    std::fclose (f);
  }
  return resident * (sysconf (_SC_PAGESIZE) / 1024);
}

/* PLAYING -> NULL with tasks in flight, 100 times: every change succeeds, nothing hangs, host memory
 * stays flat (measured from the 10th cycle, when caches and pools exist). */
TEST_F (InFlight, PlayingToNullWithTasksInFlight)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "2000"}, {"SWDLA_SERVICE_JITTER_PCT", "20"}});
  Pipeline p ("videotestsrc ! " + kCaps + " ! " + infer ("max-in-flight=4") + " ! fakesink sync=false");
  GstElement *e = p.by_name ("infer");
  long rss0 = 0;
  const auto t0 = Clock::now ();
  for (int i = 0; i < 100; ++i) {
    ASSERT_NE (gst_element_set_state (p.get (), GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE) << i;
    /* Let frames queue up (some runs stop earlier, some later). */
    std::this_thread::sleep_for (std::chrono::milliseconds (5 + 7 * (i % 5)));
    const BusError err = p.wait_error (0); /* the bus flushes in NULL: look before */
    ASSERT_FALSE (err.posted) << i << ": " << err.source << ": " << err.message;
    ASSERT_EQ (gst_element_set_state (p.get (), GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS) << i;
    if (i == 9)
      rss0 = rss_kib ();
  }
  const long rss_growth = rss_kib () - rss0;
  EXPECT_LT (rss_growth, 16 * 1024) << "host memory grows: " << rss_growth << " KiB over 90 cycles";
  const double s = std::chrono::duration<double> (Clock::now () - t0).count ();
  EXPECT_LT (s, 300.0) << "100 cycles";
  GstStructure *stats = nullptr;
  g_object_get (e, "stats", &stats, nullptr);
  guint64 frames = 0;
  gst_structure_get_uint64 (stats, "frames", &frames);
  gst_structure_free (stats);
  EXPECT_GT (frames, 0u) << "the last run pushed no frame: nothing was in flight";
  std::printf ("100 PLAYING->NULL cycles with tasks in flight: %.1f s (last run: %" G_GUINT64_FORMAT
               " frames)\n",
               s, frames);
}

/* ---- flows, tee, latency, allocation, pools ---- */

/* An appsink whose callback returns `flow` from its `after`-th sample on. */
struct FlowSink {
  GstFlowReturn flow;
  int after;
  int seen = 0;
  static GstFlowReturn on_sample (GstAppSink *sink, gpointer data)
  {
    auto *self = static_cast<FlowSink *> (data);
    GstSample *s = gst_app_sink_pull_sample (sink);
    if (s)
      gst_sample_unref (s);
    return ++self->seen > self->after ? self->flow : GST_FLOW_OK;
  }
};

/* What upstream gets back from pushing frames until one is refused (GST_FLOW_OK: none was). */
GstFlowReturn push_until_refused (GstHarness *h, int max_frames, int *pushed)
{
  const Frames frames;
  for (*pushed = 0; *pushed < max_frames; ++*pushed) {
    const GstFlowReturn ret = gst_harness_push (h, frames.get (guint64 (*pushed)));
    if (ret != GST_FLOW_OK)
      return ret;
    std::this_thread::sleep_for (std::chrono::milliseconds (2));
  }
  return GST_FLOW_OK;
}

TEST_F (InFlight, DownstreamEosAndFlushingReachUpstream)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "1000"}});
  for (GstFlowReturn flow : {GST_FLOW_EOS, GST_FLOW_FLUSHING}) {
    SCOPED_TRACE (gst_flow_get_name (flow));
    GstHarness *h =
        gst_harness_new_parse ((infer ("max-in-flight=4") + " ! appsink name=sink sync=false").c_str ());
    gst_harness_set_src_caps_str (h, kCaps.c_str ());
    FlowSink fs{flow, 3};
    GstAppSinkCallbacks cb{};
    cb.new_sample = FlowSink::on_sample;
    GstElement *sink = gst_harness_find_element (h, "appsink");
    ASSERT_NE (sink, nullptr);
    gst_app_sink_set_callbacks (GST_APP_SINK (sink), &cb, &fs, nullptr);
    gst_object_unref (sink);
    int pushed = 0;
    EXPECT_EQ (push_until_refused (h, 200, &pushed), flow);
    /* Refused within what was in flight when the 4th frame was refused downstream. */
    EXPECT_LE (pushed, 3 + 1 + 4 + 4);
    gst_harness_teardown (h);
  }
}

TEST_F (InFlight, NotLinkedReachesUpstreamAndIsPosted)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "1000"}});
  GstElement *e = gst_element_factory_make ("dlainfer", "infer");
  ASSERT_NE (e, nullptr);
  gst_object_ref_sink (e); /* ours, beside the harness's */
  g_object_set (e, "model", model ("colours").c_str (), nullptr);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (e, bus);
  GstHarness *h = gst_harness_new_with_element (e, "sink", nullptr); /* src pad left unlinked */
  gst_harness_set_src_caps_str (h, kCaps.c_str ());
  int pushed = 0;
  EXPECT_EQ (push_until_refused (h, 100, &pushed), GST_FLOW_NOT_LINKED);
  EXPECT_LE (pushed, 10);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_ERROR);
  ASSERT_NE (m, nullptr) << "NOT_LINKED was not posted";
  GError *err = nullptr;
  gchar *dbg = nullptr;
  gst_message_parse_error (m, &err, &dbg);
  EXPECT_EQ (err->domain, GST_STREAM_ERROR);
  EXPECT_NE (std::string (dbg ? dbg : "").find ("not-linked"), std::string::npos) << (dbg ? dbg : "");
  g_error_free (err);
  g_free (dbg);
  gst_message_unref (m);
  gst_harness_teardown (h);
  gst_object_unref (e);
  gst_object_unref (bus);
}

/* After a tee the buffer is shared: the element infers on its own copy; the other branch's
 * buffers carry no result. The samples are pulled after EOS, so the appsinks must not hold EOS
 * back until they are pulled (wait-on-eos, on by default). */
TEST_F (InFlight, UpstreamTeeSharesBuffers)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "1000"}});
  const int n = 200;
  Pipeline p ("videotestsrc num-buffers=" + std::to_string (n) + " ! " + kCaps +
              " ! tee name=t t. ! queue ! " + infer ("max-in-flight=4") +
              " ! appsink name=sink sync=false wait-on-eos=false t. ! queue ! appsink name=other sync=false "
              "wait-on-eos=false");
  ASSERT_TRUE (p.play ());
  EXPECT_TRUE (p.wait_eos (60 * GST_SECOND));
  for (const char *name : {"sink", "other"}) {
    GstAppSink *sink = GST_APP_SINK (p.by_name (name));
    int frames = 0;
    while (GstSample *s = gst_app_sink_try_pull_sample (sink, 0)) {
      EXPECT_EQ (result_of (gst_sample_get_buffer (s)).found, std::string (name) == "sink") << name << frames;
      ++frames;
      gst_sample_unref (s);
    }
    EXPECT_EQ (frames, n) << name;
  }
  p.stop ();
}

/* LATENCY: upstream's plus at least one task's time (the warm-up's, times max-in-flight). */
TEST_F (InFlight, LatencyAddsAtLeastATask)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "5000"}});
  Pipeline p ("videotestsrc is-live=true ! " + kCaps + " ! " + infer ("max-in-flight=2") +
              " ! fakesink sync=true");
  ASSERT_TRUE (p.play ());
  ASSERT_NE (gst_element_get_state (p.get (), nullptr, nullptr, 10 * GST_SECOND), GST_STATE_CHANGE_FAILURE);
  GstElement *e = p.by_name ("infer");
  GstPad *src = gst_element_get_static_pad (e, "src");
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GstQuery *ours = gst_query_new_latency ();
  GstQuery *up = gst_query_new_latency ();
  ASSERT_TRUE (gst_pad_query (src, ours));
  ASSERT_TRUE (gst_pad_peer_query (sink, up));
  gboolean live = FALSE, up_live = FALSE;
  GstClockTime min = 0, max = 0, up_min = 0, up_max = 0;
  gst_query_parse_latency (ours, &live, &min, &max);
  gst_query_parse_latency (up, &up_live, &up_min, &up_max);
  EXPECT_TRUE (live);
  EXPECT_GE (min, up_min + 5 * GST_MSECOND) << "less than one task of 5 ms added";
  EXPECT_LT (min, up_min + 10 * GST_SECOND);
  if (GST_CLOCK_TIME_IS_VALID (up_max)) {
    EXPECT_GE (max, up_max + (min - up_min));
  }
  std::printf ("latency: upstream %.3f ms, with dlainfer %.3f ms\n", double (up_min) / 1e6,
               double (min) / 1e6);
  gst_query_unref (ours);
  gst_query_unref (up);
  gst_object_unref (src);
  gst_object_unref (sink);
  p.stop ();
}

/* Adds a pool of min 3, max 6 to ALLOCATION queries going downstream, as a downstream element would. */
GstPadProbeReturn propose_pool (GstPad *, GstPadProbeInfo *info, gpointer)
{
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);
  if (GST_QUERY_TYPE (q) == GST_QUERY_ALLOCATION)
    gst_query_add_allocation_pool (q, nullptr, kW * kH * 4, 3, 6);
  return GST_PAD_PROBE_OK;
}

/* ALLOCATION: upstream's pools hold max-in-flight more buffers. */
TEST_F (InFlight, AllocationAddsMaxInFlightToMinBuffers)
{
  for (bool downstream_pool : {false, true}) {
    SCOPED_TRACE (downstream_pool ? "downstream proposes min 3 max 6" : "downstream proposes no pool");
    GstHarness *h = harness ("max-in-flight=5");
    GstElement *e = gst_harness_find_element (h, "dlainfer");
    ASSERT_NE (e, nullptr);
    GstPad *src = gst_element_get_static_pad (e, "src");
    if (downstream_pool)
      gst_pad_add_probe (src, GstPadProbeType (GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM | GST_PAD_PROBE_TYPE_PUSH),
                         propose_pool, nullptr, nullptr);
    GstCaps *caps = gst_caps_from_string (kCaps.c_str ());
    GstQuery *q = gst_query_new_allocation (caps, TRUE);
    EXPECT_TRUE (gst_pad_peer_query (h->srcpad, q));
    ASSERT_GE (gst_query_get_n_allocation_pools (q), 1u);
    guint size = 0, min = 0, max = 0;
    gst_query_parse_nth_allocation_pool (q, 0, nullptr, &size, &min, &max);
    EXPECT_EQ (min, downstream_pool ? 8u : 5u);
    EXPECT_EQ (max, downstream_pool ? 8u : 0u) << "max kept >= min";
    EXPECT_GE (size, guint (kW * kH * 4));
    gst_query_unref (q);
    gst_caps_unref (caps);
    gst_object_unref (src);
    gst_object_unref (e);
    gst_harness_teardown (h);
  }
}

/* max-in-flight=1 holds one frame more: the one whose task the spare slot takes. */
TEST_F (InFlight, AllocationCountsTheSpareSlotOfOneInFlight)
{
  GstHarness *h = harness ("max-in-flight=1");
  GstCaps *caps = gst_caps_from_string (kCaps.c_str ());
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  EXPECT_TRUE (gst_pad_peer_query (h->srcpad, q));
  ASSERT_GE (gst_query_get_n_allocation_pools (q), 1u);
  guint min = 0;
  gst_query_parse_nth_allocation_pool (q, 0, nullptr, nullptr, &min, nullptr);
  EXPECT_EQ (min, 2u);
  gst_query_unref (q);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

/* Upstream's pool holds 2 buffers, fewer than max-in-flight: frames still flow (the src task
 * pushes as tasks end, without waiting for the next input). */
TEST_F (InFlight, SmallFixedUpstreamPoolDoesNotDeadlock)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "1000"}});
  GstBufferPool *pool = gst_video_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = gst_caps_from_string (kCaps.c_str ());
  gst_buffer_pool_config_set_params (config, caps, kW * kH * 4, 2, 2);
  gst_caps_unref (caps);
  ASSERT_TRUE (gst_buffer_pool_set_config (pool, config));
  ASSERT_TRUE (gst_buffer_pool_set_active (pool, TRUE));
  Pipeline p ("appsrc name=src format=time caps=" + kCaps + " ! " + infer ("max-in-flight=4") +
              " ! appsink name=sink sync=false");
  ASSERT_TRUE (p.play ());
  GstAppSink *sink = GST_APP_SINK (p.by_name ("sink"));
  const int n = 300;
  int out = 0;
  const auto deadline = Clock::now () + std::chrono::seconds (60);
  auto pull_some = [&] (GstClockTime timeout) {
    while (GstSample *s = gst_app_sink_try_pull_sample (sink, timeout)) {
      GstBuffer *b = gst_sample_get_buffer (s);
      EXPECT_EQ (result_of (b).labels.empty () ? "" : result_of (b).labels[0], kColours[out % 8].name) << out;
      ++out;
      gst_sample_unref (s);
      timeout = 0;
    }
  };
  for (int i = 0; i < n && Clock::now () < deadline; ++i) {
    GstBuffer *buf = nullptr;
    GstBufferPoolAcquireParams params{};
    params.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
    while (gst_buffer_pool_acquire_buffer (pool, &buf, &params) != GST_FLOW_OK && Clock::now () < deadline)
      pull_some (10 * GST_MSECOND);
    ASSERT_NE (buf, nullptr) << "the pool's buffers never came back (frame " << i << ")";
    GstMapInfo map;
    ASSERT_TRUE (gst_buffer_map (buf, &map, GST_MAP_WRITE));
    const uint32_t rgb = kColours[i % 8].rgb;
    for (gsize px = 0; px + 3 < map.size; px += 4) {
      map.data[px] = uint8_t (rgb >> 16);
      map.data[px + 1] = uint8_t (rgb >> 8);
      map.data[px + 2] = uint8_t (rgb);
      map.data[px + 3] = 255;
    }
    gst_buffer_unmap (buf, &map);
    GST_BUFFER_PTS (buf) = GST_SECOND * guint64 (i) / 30;
    ASSERT_TRUE (p.push (buf)) << i;
    pull_some (0);
  }
  while (out < n && Clock::now () < deadline)
    pull_some (100 * GST_MSECOND);
  EXPECT_EQ (out, n) << "frames stopped with a 2-buffer upstream pool";
  p.stop ();
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}

/* ---- failures with several tasks in flight ---- */

/* Every error on the bus within `settle` after the first (or none), by source. */
std::map<std::string, int> errors_by_source (GstElement *pipeline, GstClockTime first, GstClockTime settle,
                                             std::string *message)
{
  std::map<std::string, int> out;
  GstBus *bus = gst_element_get_bus (pipeline);
  GstClockTime wait = first;
  while (GstMessage *m = gst_bus_timed_pop_filtered (bus, wait, GST_MESSAGE_ERROR)) {
    if (out.empty ()) {
      GError *err = nullptr;
      gst_message_parse_error (m, &err, nullptr);
      *message = std::string (GST_OBJECT_NAME (GST_MESSAGE_SRC (m))) + ": " + err->message;
      g_error_free (err);
    }
    ++out[GST_OBJECT_NAME (GST_MESSAGE_SRC (m))];
    gst_message_unref (m);
    wait = settle;
  }
  gst_object_unref (bus);
  return out;
}

/* A pipeline with 4 tasks in flight that fails: one error from the element, naming `expect`;
 * frames before the failed one come out; the stop is quick. Returns the frames out. */
int fail_with_tasks_in_flight (const std::string &extra, const std::string &expect, double max_stop_s)
{
  Pipeline p ("videotestsrc num-buffers=50 ! " + kCaps + " ! " + infer ("max-in-flight=4 " + extra) +
              " ! appsink name=sink sync=false");
  EXPECT_TRUE (p.play ());
  std::string first;
  const auto errors = errors_by_source (p.get (), 30 * GST_SECOND, GST_SECOND, &first);
  EXPECT_EQ (errors.count ("infer") ? errors.at ("infer") : 0, 1)
      << "one error from the element; first: " << first;
  EXPECT_EQ (first.rfind ("infer: ", 0), 0u) << "the element's error comes first: " << first;
  EXPECT_NE (first.find (expect), std::string::npos) << first;
  int frames = 0;
  while (GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (p.by_name ("sink")), 0)) {
    ++frames;
    gst_sample_unref (s);
  }
  const auto t0 = Clock::now ();
  p.stop ();
  const double stop_s = std::chrono::duration<double> (Clock::now () - t0).count ();
  EXPECT_LT (stop_s, max_stop_s);
  std::printf ("%s: %d frames out, stop %.3f s\n", first.c_str (), frames, stop_s);
  return frames;
}

TEST_F (InFlight, TaskErrorWithTasksInFlight)
{
  /* Task 6 is the 5th frame's (task 1: the warm-up at start). */
  /* 20 ms a task: the 4th frame's wait reads cudlaGetLastError long before the 5th task ends. */
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "20000"}, {"SWDLA_TASK_ERROR", "6:cudlaErrorDlaErrInvalidInput"}});
  EXPECT_EQ (fail_with_tasks_in_flight ("", "cudlaErrorDlaErrInvalidInput", 10.0), 4)
      << "the 4 frames before the failed one";
}

/* A hung task: the error at task-timeout; the stop ends within task-timeout + 1 s (asserted here
 * as an order of magnitude). */
TEST_F (InFlight, HungTaskWithTasksInFlight)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "20000"}, {"SWDLA_HANG_MS", "4:60000"}});
  EXPECT_EQ (
      fail_with_tasks_in_flight ("task-timeout=500", "did not finish within the task timeout of 500 ms", 5.0),
      2);
}

/* swdla refuses the 2nd task queued on the handle: the refused submit is named. */
TEST_F (InFlight, RefusedSubmitWithTasksInFlight)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "5000"}, {"SWDLA_QUEUE_LIMIT", "1"}, {"SWDLA_QUEUE_FULL", "fail"}});
  fail_with_tasks_in_flight ("", "cudlaSubmitTask", 10.0);
}

}  // namespace
