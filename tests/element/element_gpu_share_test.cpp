/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One loaded model shared by many streams (model-instance-id) on a CUDA GPU with the
 * software DLA, two cores (SWDLA_NUM_CORES): sharers hold one device handle and one module per
 * core (swdla counts them: swdlaCoreHandleCount, swdlaCoreModuleCount); only one needs `model`,
 * any one (parsed pipelines start their branches last-first), and the others take its labels;
 * model-defining settings that differ are refused naming both elements; several streams sharing
 * keep their order and their own results; a sharer joining and leaving 100 times leaves the others
 * running at rate; 16 engines on a core work and the 17th is refused naming the limit and
 * model-instance-id; with tensor-meta each sharer's frames carry their own raw tensors; a 911 fails
 * every sharer (its own variant: it poisons the process); a hung task fails only its own element. */
#include <gst/check/gstharness.h>

#include <algorithm>
#include <atomic>
#include <chrono>
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

using Share = SwdlaTest;

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
 * input order, each with its own colour's result from element `name` (frame i: colour i + shift),
 * and its colour's raw tensor when `tensors` (colour_tensors ()) are given. Returns frames checked. */
using Clock = std::chrono::steady_clock;
using ColourTensors = std::vector<std::vector<float>>;

int run (GstHarness *h, const std::string &name, int n, const std::atomic<bool> *stop = nullptr,
         int ahead = 3, std::vector<Clock::time_point> *times = nullptr,
         const ColourTensors *tensors = nullptr, int shift = 0)
{
  int in = 0, out = 0;
  auto check = [&] (GstBuffer *b) {
    if (times)
      times->push_back (Clock::now ());
    const guint64 colour = guint64 (out + shift) % 8;
    EXPECT_EQ (GST_BUFFER_OFFSET (b), guint64 (out + shift)) << name << ": out of order";
    const Result r = result_of (b, name);
    EXPECT_TRUE (r.found) << name << ": frame " << out << " has no result";
    if (r.found) {
      EXPECT_EQ (r.labels[0], kColours[colour].name) << name << ": frame " << out << " has another's result";
    }
    if (tensors) {
      EXPECT_TRUE (same_tensor (tensor_values (b), (*tensors)[colour]))
          << name << ": frame " << out << " has another's tensor";
    }
    gst_buffer_unref (b);
    ++out;
  };
  while ((stop ? !stop->load () : in < n) && !testing::Test::HasFailure ()) {
    if (gst_harness_push (h, coloured_frame (guint64 (in + shift), kW, kH)) != GST_FLOW_OK) {
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

/* tensor-meta on two sharers of one model over two cores (docs/tensors.md 4: each sharer's own
 * AfterTask, under the model's shared lock), at once, with a third sharer without it: each frame's
 * tensor is its own colour's (the two run colours four apart, so a tensor from the other sharer's
 * frame shows), and the third's results are unchanged. */
TEST_F (Share, TensorMetaPerSharer)
{
  const ColourTensors want =
      colour_tensors ("model=" + model ("colours") + " dla-core=0 max-in-flight=1", kW, kH);
  ASSERT_EQ (want.size (), 8u);
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "300"}, {"SWDLA_SERVICE_JITTER_PCT", "80"}});
  std::vector<GstHarness *> hs = {sharer ("t0", first_of ("tensors") + " tensor-meta=true max-in-flight=3"),
                                  sharer ("t1", "model-instance-id=tensors tensor-meta=true max-in-flight=2"),
                                  sharer ("t2", "model-instance-id=tensors")};
  std::vector<int> done (hs.size ());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < hs.size (); ++i)
    threads.emplace_back ([&, i] () {
      done[i] = run (hs[i], "t" + std::to_string (i), 96, nullptr, 3, nullptr, i < 2 ? &want : nullptr,
                     int (4 * i));
    });
  for (std::thread &t : threads)
    t.join ();
  for (size_t i = 0; i < hs.size (); ++i) {
    EXPECT_EQ (done[i], 96) << "t" << i;
    gst_harness_teardown (hs[i]);
  }
}

/* Outputs of `times` in [from, to) per second, and the longest gap between two of them there. */
struct Rate {
  double per_s = 0;
  double max_gap_ms = 0;
};
Rate rate_in (const std::vector<Clock::time_point> &times, Clock::time_point from, Clock::time_point to)
{
  Rate r;
  int n = 0;
  Clock::time_point last = from;
  for (const Clock::time_point &t : times) {
    if (t < from || t >= to)
      continue;
    ++n;
    r.max_gap_ms = std::max (r.max_gap_ms, std::chrono::duration<double, std::milli> (t - last).count ());
    last = t;
  }
  r.per_s = n / std::chrono::duration<double> (to - from).count ();
  return r;
}

/* Two streams run while a third sharer starts, runs a few frames and stops, 100 times: the two
 * keep their rate (at least half of what they ran before the churn, no output gap over 100 ms:
 * a join or leave that held the model's lock across its allocations stalls them longer) and
 * their own results, and the model stays one per core. */
TEST_F (Share, JoiningAndLeavingDisturbsNoOther)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "300"}});
  GstHarness *a = sharer ("a", first_of ("churn"));
  GstHarness *b = sharer ("b", "model-instance-id=churn");
  std::atomic<bool> stop{false};
  std::vector<Clock::time_point> times_a, times_b;
  std::thread ta ([&] () { run (a, "a", 0, &stop, 3, &times_a); });
  std::thread tb ([&] () { run (b, "b", 0, &stop, 3, &times_b); });
  const Clock::time_point warm = Clock::now () + std::chrono::milliseconds (200);
  std::this_thread::sleep_for (std::chrono::milliseconds (1200));
  const Clock::time_point churn = Clock::now ();
  for (int i = 0; i < 100 && !HasFailure (); ++i) {
    GstHarness *c = sharer ("c", "model-instance-id=churn");
    run (c, "c", 3);
    EXPECT_EQ (dlainfer_test::swdla_core_handles (0), 1) << "join " << i;
    gst_harness_teardown (c);
  }
  const Clock::time_point churned = Clock::now ();
  stop = true;
  ta.join ();
  tb.join ();
  for (auto *s : {&times_a, &times_b}) {
    const char *name = s == &times_a ? "a" : "b";
    const Rate before = rate_in (*s, warm, churn), during = rate_in (*s, churn, churned);
    EXPECT_GT (before.per_s, 100.) << name << " hardly ran before the churn";
    EXPECT_GE (during.per_s, 0.5 * before.per_s)
        << name << ": " << during.per_s << " frames/s while others joined and left, " << before.per_s
        << " before";
    EXPECT_LT (during.max_gap_ms, 100.) << name << " stalled while others joined and left";
  }
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

/* What a parsed pipeline of `n` branches, one dlainfer each on one id, makes of its frames: the
 * frames each element's sink saw with that element's result, and the labels of those results. */
struct BranchResults {
  std::vector<int> with_result;
  std::vector<std::set<std::string>> labels;
  std::vector<std::string> model_info;
};

void count_results (GstElement *sink, GstBuffer *buf, GstPad *, gpointer data)
{
  auto *r = static_cast<BranchResults *> (data);
  const int i = std::stoi (GST_OBJECT_NAME (sink) + 1); /* k<i> */
  const Result res = result_of (buf, "infer" + std::to_string (i));
  if (!res.found)
    return;
  ++r->with_result[size_t (i)];
  r->labels[size_t (i)].insert (res.labels[0]);
}

/* GStreamer starts a parsed pipeline's branches last-first: whichever branch's element sets
 * `model` (the first written or the last), the others wait for it and every element classifies
 * every frame, with the definer's labels (they set none). */
TEST_F (Share, ParsedPipelineAnyElementMayHaveModel)
{
  constexpr int kBranches = 3, kFrames = 20;
  for (int definer : {0, kBranches - 1}) {
    std::string desc;
    for (int i = 0; i < kBranches; ++i) {
      const std::string mine = i == definer ? first_of ("parsed") + " labels=" + labels_of ("colours")
                                            : std::string ("model-instance-id=parsed");
      desc += "videotestsrc num-buffers=" + std::to_string (kFrames) +
              " pattern=red ! video/x-raw,format=RGBA,width=64,height=48 ! dlainfer name=infer" +
              std::to_string (i) + " " + mine + " ! fakesink name=k" + std::to_string (i) +
              " signal-handoffs=true ";
    }
    Pipeline p (desc);
    BranchResults r{std::vector<int> (kBranches), std::vector<std::set<std::string>> (kBranches), {}};
    for (int i = 0; i < kBranches; ++i)
      g_signal_connect (p.by_name (("k" + std::to_string (i)).c_str ()), "handoff",
                        G_CALLBACK (count_results), &r);
    ASSERT_TRUE (p.play ()) << "model on branch " << definer;
    ASSERT_TRUE (p.wait_eos ()) << "model on branch " << definer;
    for (int i = 0; i < kBranches; ++i) {
      GstStructure *info = nullptr;
      g_object_get (p.by_name (("infer" + std::to_string (i)).c_str ()), "model-info", &info, nullptr);
      EXPECT_NE (info, nullptr) << "infer" << i << ": no model-info";
      if (info)
        gst_structure_free (info);
    }
    p.stop ();
    for (int i = 0; i < kBranches; ++i) {
      EXPECT_EQ (r.with_result[size_t (i)], kFrames) << "infer" << i << ", model on branch " << definer;
      EXPECT_EQ (r.labels[size_t (i)], std::set<std::string>{"red"})
          << "infer" << i << " classifies with the definer's labels (model on branch " << definer << ")";
    }
    EXPECT_EQ (dlainfer_test::swdla_core_handles (0), 0) << "gone with the pipeline";
  }
}

/* No element of the id sets `model`: each fails at its first frame, naming the id and the
 * property. */
TEST_F (Share, NoElementWithModelNamesTheIdAndProperty)
{
  const BusError e = start_error (
      "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! "
      "dlainfer name=lonely model-instance-id=nobody ! fakesink");
  ASSERT_TRUE (e.posted);
  EXPECT_EQ (e.source, "lonely");
  for (const char *needle : {"model-instance-id 'nobody'", "set the 'model' property"})
    EXPECT_NE (e.message.find (needle), std::string::npos) << needle << " missing from: " << e.message;
}

/* A 911 on a task of one sharer poisons the process: every sharer reports the fatal error. Its own
 * variant (element-gpu-share-fatal). The sinks do not preroll (async=false): a sharer whose first
 * task faults never prerolls its sink, the pipeline stays in PAUSED, and the other sink would hold
 * the other sharer's first frame there, its src task inside the push, until the pipeline stops. */
TEST_F (Share, FatalFailsEverySharer)
{
  SwdlaEnv env ({{"SWDLA_EXTERNAL_DEVICE_ERROR", "6"}, {"SWDLA_SERVICE_US", "20000"}});
  Pipeline p (
      "videotestsrc num-buffers=20 ! video/x-raw,format=RGBA,width=64,height=48 ! dlainfer name=f0 " +
      first_of ("fatal") +
      " ! fakesink async=false videotestsrc num-buffers=20 ! video/x-raw,format=RGBA,width=64,height=48 ! "
      "dlainfer name=f1 model-instance-id=fatal ! fakesink async=false");
  ASSERT_TRUE (p.play ());
  std::set<std::string> failed;
  std::string errors; /* every error posted, for the failure message */
  GstBus *bus = gst_element_get_bus (p.get ());
  while (GstMessage *m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_ERROR)) {
    GError *err = nullptr;
    gst_message_parse_error (m, &err, nullptr);
    errors += std::string ("\n  ") + GST_OBJECT_NAME (GST_MESSAGE_SRC (m)) + ": " + err->message;
    if (std::string (err->message).find ("restart the process") != std::string::npos)
      failed.insert (GST_OBJECT_NAME (GST_MESSAGE_SRC (m)));
    g_error_free (err);
    gst_message_unref (m);
    if (failed.size () == 2)
      break;
  }
  gst_object_unref (bus);
  p.stop ();
  EXPECT_EQ (failed, (std::set<std::string>{"f0", "f1"}))
      << "every sharer reports the fatal error; the errors posted:" << errors;
}

/* Buffers that reached a fakesink (its handoff signal). */
void count_handoff (GstElement *, GstBuffer *, GstPad *, gpointer data)
{
  ++*static_cast<std::atomic<int> *> (data);
}

/* A hung task on a core two sharers use ends at task-timeout and fails only the element whose frame
 * it held: the other's frames queued behind it on the same core wait (its element's own deadline
 * counts the tasks queued before each of them), then go on, every one of them out. swdla counts its
 * tasks over the process: the 8th is some frame's of either sharer (tasks 1 and 2 are the warm-ups). */
TEST_F (Share, HungTaskFailsOnlyItsOwner)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "20000"}, {"SWDLA_HANG_MS", "8:60000"}});
  constexpr int kFrames = 20;
  const std::string branch = "videotestsrc num-buffers=" + std::to_string (kFrames) +
                             " ! video/x-raw,format=RGBA,width=64,height=48 ! dlainfer name=h";
  Pipeline p (branch + "0 model-instance-id=hung model=" + model ("colours") +
              " dla-core=0 task-timeout=500 ! fakesink name=k0 signal-handoffs=true " + branch +
              "1 model-instance-id=hung ! fakesink name=k1 signal-handoffs=true");
  std::atomic<int> out[2] = {{0}, {0}};
  for (int i : {0, 1})
    g_signal_connect (p.by_name (i ? "k1" : "k0"), "handoff", G_CALLBACK (count_handoff), &out[i]);
  ASSERT_TRUE (p.play ());
  std::set<std::string> failed;
  std::string why;
  GstBus *bus = gst_element_get_bus (p.get ());
  const auto limit = Clock::now () + std::chrono::seconds (20);
  /* Until one failed and the other pushed every frame, or an unexpected second failure. */
  while (Clock::now () < limit && failed.size () < 2 &&
         !(failed.size () == 1 && out[failed.count ("h0") ? 1 : 0] == kFrames)) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 50 * GST_MSECOND, GST_MESSAGE_ERROR);
    if (!m)
      continue;
    /* The failed branch's source reports its own "Internal data stream error" after it. */
    const std::string from = GST_OBJECT_NAME (GST_MESSAGE_SRC (m));
    if (from == "h0" || from == "h1") {
      GError *err = nullptr;
      gst_message_parse_error (m, &err, nullptr);
      failed.insert (from);
      why = err->message;
      g_error_free (err);
    }
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  p.stop ();
  ASSERT_EQ (failed.size (), 1u) << "exactly the hung task's element fails; " << out[0] << " / " << out[1]
                                 << " frames out; last error: " << why;
  EXPECT_NE (why.find ("did not finish within the task timeout of 500 ms"), std::string::npos) << why;
  const int other = failed.count ("h0") ? 1 : 0;
  EXPECT_EQ (out[other].load (), kFrames) << "h" << other << " stopped behind the other's hung task";
  EXPECT_LT (out[1 - other].load (), kFrames) << "the failed element pushed every frame";
}

}  // namespace
