/* One loaded model shared by many streams (issue #23, model-instance-id) on a CUDA GPU with the
 * software DLA, two cores (SWDLA_NUM_CORES): sharers hold one device handle and one module per
 * core (swdla counts them: swdlaCoreHandleCount, swdlaCoreModuleCount), only the first needs
 * `model`; model-defining settings that differ are refused naming both elements; several streams
 * sharing keep their order and their own results; a sharer joining and leaving 100 times leaves
 * the others running right; 16 engines on a core work and the 17th is refused naming the limit
 * and model-instance-id; a 911 fails every sharer (its own variant: it poisons the process). */
#include <gst/check/gstharness.h>

#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gpu_support.h"
#include "swdla_query.h"

namespace {

using namespace element_gpu;

constexpr int kW = 64, kH = 48;
const std::string kCaps = "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1";

class Share : public testing::Test {
 protected:
  void SetUp () override
  {
    const std::string why = swdla_missing ();
    if (!why.empty ())
      GTEST_FAIL () << why;
  }
};

/* A dlainfer named `name` in a harness; `extra`: its other properties. */
GstHarness *sharer (const std::string &name, const std::string &extra)
{
  const std::string desc = "dlainfer name=" + name + " labels=" + labels_of ("colours") + " " + extra;
  GstHarness *h = gst_harness_new_parse (desc.c_str ());
  gst_harness_set_src_caps_str (h, kCaps.c_str ());
  return h;
}

std::string first_of (const std::string &id)
{
  return "model-instance-id=" + id + " model=" + model ("colours") + " dla-core=-1";
}

/* `n` frames through `h`, each pulled before the next is pushed but `ahead` kept in flight: in
 * input order, each with its own colour's result from element `name`. Returns frames checked. */
int run (GstHarness *h, const std::string &name, int n, const std::atomic<bool> *stop = nullptr,
         int ahead = 3)
{
  int in = 0, out = 0;
  auto check = [&] (GstBuffer *b) {
    EXPECT_EQ (GST_BUFFER_OFFSET (b), guint64 (out)) << name << ": out of order";
    const Result r = result_of (b, name);
    EXPECT_TRUE (r.found) << name << ": frame " << out << " has no result";
    if (r.found)
      EXPECT_EQ (r.labels[0], kColours[out % 8].name) << name << ": frame " << out << " has another's result";
    gst_buffer_unref (b);
    ++out;
  };
  while ((stop ? !stop->load () : in < n) && !testing::Test::HasFailure ()) {
    if (gst_harness_push (h, coloured_frame (guint64 (in), kW, kH)) != GST_FLOW_OK) {
      ADD_FAILURE () << name << ": push of frame " << in << " refused";
      break;
    }
    ++in;
    while (in - out > ahead) {
      GstBuffer *b = gst_harness_pull (h);
      if (!b)
        break;
      check (b);
    }
  }
  while (out < in && !testing::Test::HasFailure ()) {
    GstBuffer *b = gst_harness_pull (h);
    EXPECT_NE (b, nullptr) << name << ": frame " << out << " did not come out";
    if (!b)
      break;
    check (b);
  }
  return out;
}

/* Three elements on one id hold one handle and one module per core; three without an id, three. */
TEST_F (Share, OneLoadedModelPerCore)
{
  GstHarness *h0 = sharer ("infer0", first_of ("one"));
  GstHarness *h1 = sharer ("infer1", "model-instance-id=one");
  GstHarness *h2 = sharer ("infer2", "model-instance-id=one max-in-flight=4");
  run (h0, "infer0", 16);
  run (h1, "infer1", 16);
  run (h2, "infer2", 16);
  ASSERT_FALSE (HasFailure ());
  for (int core : {0, 1}) {
    EXPECT_EQ (dlainfer_test::swdla_core_handles (core), 1) << "core " << core;
    EXPECT_EQ (dlainfer_test::swdla_core_modules (core), 1) << "core " << core;
  }
  gst_harness_teardown (h0); /* the first leaving disturbs no other */
  run (h1, "infer1", 16);
  run (h2, "infer2", 16);
  EXPECT_EQ (dlainfer_test::swdla_core_handles (0), 1);
  gst_harness_teardown (h1);
  gst_harness_teardown (h2);
  EXPECT_EQ (dlainfer_test::swdla_core_handles (0), 0) << "the model lives as long as its last element";
  EXPECT_EQ (dlainfer_test::swdla_core_modules (1), 0);

  std::vector<GstHarness *> alone;
  for (int i = 0; i < 3; ++i) {
    alone.push_back (sharer ("alone" + std::to_string (i), "model=" + model ("colours") + " dla-core=-1"));
    run (alone.back (), "alone" + std::to_string (i), 4);
  }
  EXPECT_EQ (dlainfer_test::swdla_core_handles (0), 3) << "without model-instance-id: one engine each";
  EXPECT_EQ (dlainfer_test::swdla_core_modules (1), 3);
  for (GstHarness *h : alone)
    gst_harness_teardown (h);
}

/* dla-core=-1 on one and 0 on another: refused at start, naming both elements and the setting. */
TEST_F (Share, DifferingSettingsRefusedNamingBoth)
{
  GstHarness *first = sharer ("first", first_of ("cams"));
  run (first, "first", 4);
  const BusError e = start_error (
      "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! "
      "dlainfer name=second model-instance-id=cams dla-core=0 ! fakesink");
  ASSERT_TRUE (e.posted);
  EXPECT_EQ (e.source, "second");
  for (const char *needle :
       {"second cannot share model-instance-id 'cams' with first", "dla-core (first: -1, second: 0)"})
    EXPECT_NE (e.message.find (needle), std::string::npos) << needle << " missing from: " << e.message;
  const BusError other = start_error (
      "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! dlainfer name=third "
      "model-instance-id=cams model=" +
      model ("colours") + ".other ! fakesink");
  ASSERT_TRUE (other.posted);
  EXPECT_NE (other.message.find ("model (first: "), std::string::npos) << other.message;
  run (first, "first", 8); /* the refusals did not disturb it */
  gst_harness_teardown (first);
}

/* Four streams at once on one id over two cores, jittered service: each keeps its order and its
 * own results, and every sharer's frames ran. */
TEST_F (Share, SeveralStreamsKeepOrderAndResults)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "500"}, {"SWDLA_SERVICE_JITTER_PCT", "80"}});
  std::vector<GstHarness *> hs;
  for (int i = 0; i < 4; ++i)
    hs.push_back (sharer ("s" + std::to_string (i), i == 0 ? first_of ("four") : "model-instance-id=four"));
  std::vector<int> done (hs.size ());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < hs.size (); ++i)
    threads.emplace_back ([&, i] () { done[i] = run (hs[i], "s" + std::to_string (i), 150); });
  for (std::thread &t : threads)
    t.join ();
  for (size_t i = 0; i < hs.size (); ++i) {
    EXPECT_EQ (done[i], 150) << "s" << i;
    gst_harness_teardown (hs[i]);
  }
}

/* Two streams run while a third sharer starts, runs a few frames and stops, 100 times: the two
 * keep running with their own results, and the model stays one per core. */
TEST_F (Share, JoiningAndLeavingDisturbsNoOther)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "300"}});
  GstHarness *a = sharer ("a", first_of ("churn"));
  GstHarness *b = sharer ("b", "model-instance-id=churn");
  std::atomic<bool> stop{false};
  int done_a = 0, done_b = 0;
  std::thread ta ([&] () { done_a = run (a, "a", 0, &stop); });
  std::thread tb ([&] () { done_b = run (b, "b", 0, &stop); });
  for (int i = 0; i < 100 && !HasFailure (); ++i) {
    GstHarness *c = sharer ("c", "model-instance-id=churn");
    run (c, "c", 3);
    EXPECT_EQ (dlainfer_test::swdla_core_handles (0), 1) << "join " << i;
    gst_harness_teardown (c);
  }
  stop = true;
  ta.join ();
  tb.join ();
  EXPECT_GE (done_a, 100) << "a stalled while others joined and left";
  EXPECT_GE (done_b, 100) << "b stalled while others joined and left";
  gst_harness_teardown (a);
  gst_harness_teardown (b);
}

/* 16 engines on core 0 work; the 17th is refused with the limit and model-instance-id as the
 * remedy; 17 elements sharing one id hold one handle. */
TEST_F (Share, SixteenEnginesOnACoreThenRefused)
{
  std::vector<GstHarness *> hs;
  for (int i = 0; i < 16; ++i) {
    hs.push_back (sharer ("e" + std::to_string (i), "model=" + model ("colours")));
    EXPECT_EQ (run (hs.back (), "e" + std::to_string (i), 2), 2) << "engine " << i;
  }
  const BusError e = start_error (
      "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! "
      "dlainfer name=e16 model=" +
      model ("colours") + " ! fakesink");
  ASSERT_TRUE (e.posted);
  for (const char *needle : {"e16: DLA core 0 has no device handle left",
                             "at most 16 device handles per DLA core", "model-instance-id"})
    EXPECT_NE (e.message.find (needle), std::string::npos) << needle << " missing from: " << e.message;
  for (GstHarness *h : hs)
    gst_harness_teardown (h);
  hs.clear ();
  for (int i = 0; i < 17; ++i) {
    const std::string name = "m" + std::to_string (i);
    hs.push_back (sharer (name, i == 0 ? "model-instance-id=many model=" + model ("colours")
                                       : std::string ("model-instance-id=many")));
    EXPECT_EQ (run (hs.back (), name, 2), 2) << name;
  }
  EXPECT_EQ (dlainfer_test::swdla_core_handles (0), 1);
  for (GstHarness *h : hs)
    gst_harness_teardown (h);
}

/* A 911 on a task of one sharer poisons the process: every sharer reports the fatal error. Its own
 * variant (element-gpu-share-fatal). */
TEST_F (Share, FatalFailsEverySharer)
{
  SwdlaEnv env ({{"SWDLA_EXTERNAL_DEVICE_ERROR", "6"}, {"SWDLA_SERVICE_US", "20000"}});
  Pipeline p ("videotestsrc num-buffers=20 ! video/x-raw,format=RGBA,width=64,height=48 ! dlainfer name=f0 " +
              first_of ("fatal") +
              " ! fakesink videotestsrc num-buffers=20 ! video/x-raw,format=RGBA,width=64,height=48 ! "
              "dlainfer name=f1 model-instance-id=fatal ! fakesink");
  ASSERT_TRUE (p.play ());
  std::set<std::string> failed;
  GstBus *bus = gst_element_get_bus (p.get ());
  while (GstMessage *m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_ERROR)) {
    GError *err = nullptr;
    gst_message_parse_error (m, &err, nullptr);
    if (std::string (err->message).find ("restart the process") != std::string::npos)
      failed.insert (GST_OBJECT_NAME (GST_MESSAGE_SRC (m)));
    g_error_free (err);
    gst_message_unref (m);
    if (failed.size () == 2)
      break;
  }
  gst_object_unref (bus);
  p.stop ();
  EXPECT_EQ (failed, (std::set<std::string>{"f0", "f1"})) << "every sharer reports the fatal error";
}

}  // namespace
