/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Both DLA cores from one element on a CUDA GPU with the software DLA, which emulates
 * two cores (SWDLA_NUM_CORES) and counts the tasks each ran (swdlaCoreTaskCount): dla-core=-1
 * gives both work and names, per frame, the core that produced the result, consistently with
 * swdla's counts and `stats`; a single core number sends everything there; a core that refuses the
 * handle or the loadable fails the start naming the core and the status; frames leave in input
 * order with their own results under jittered service, a submit cost and a per-handle queue limit;
 * with tensor-meta, each frame's raw tensor is its own on either core. */
#include <gst/check/gstharness.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "gpu_support.h"
#include "swdla_query.h"

namespace {

using namespace element_gpu;

constexpr int kW = 64, kH = 48;
const std::string kCaps = "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1";

using Cores = SwdlaTest;

std::string infer (const std::string &extra)
{
  return "dlainfer name=infer model=" + model ("colours") + " labels=" + labels_of ("colours") + " " + extra;
}

GstHarness *harness (const std::string &extra)
{
  GstHarness *h = gst_harness_new_parse (infer (extra).c_str ());
  gst_harness_set_src_caps_str (h, kCaps.c_str ());
  return h;
}

/* swdla's task counts of cores 0 and 1 now. */
struct CoreTasks {
  int64_t n[2] = {dlainfer_test::swdla_core_tasks_before_load (0),
                  dlainfer_test::swdla_core_tasks_before_load (1)};
};

/* What one run saw: frames per core the metas named. */
struct FramesRun {
  std::map<int, int> meta_cores;
  guint64 out = 0;
};

/* `n` frames pushed while pulling; each must come out in input order with its own colour's result
 * and a core in `allowed`. */
FramesRun run_frames (GstHarness *h, guint64 n, const std::vector<int> &allowed, const std::string &what)
{
  FramesRun run;
  std::vector<GstBuffer *> colours;
  for (guint64 i = 0; i < 8; ++i)
    colours.push_back (coloured_frame (i, kW, kH));
  auto check = [&] (GstBuffer *b) {
    const guint64 i = run.out++;
    EXPECT_EQ (GST_BUFFER_OFFSET (b), i) << what << ": out of order";
    const Result r = result_of (b);
    EXPECT_TRUE (r.found) << what << ": frame " << i << " has no result";
    if (r.found) {
      EXPECT_EQ (r.labels[0], kColours[i % 8].name) << what << ": frame " << i << " has another's result";
      EXPECT_NE (std::find (allowed.begin (), allowed.end (), r.dla_core), allowed.end ())
          << what << ": frame " << i << " names core " << r.dla_core;
      ++run.meta_cores[r.dla_core];
    }
    gst_buffer_unref (b);
  };
  for (guint64 i = 0; i < n && !testing::Test::HasFailure (); ++i) {
    GstBuffer *b = gst_buffer_copy_deep (colours[i % 8]);
    GST_BUFFER_PTS (b) = GST_SECOND * i / 30;
    GST_BUFFER_OFFSET (b) = i;
    EXPECT_EQ (gst_harness_push (h, b), GST_FLOW_OK) << what << " frame " << i;
    while (GstBuffer *out = gst_harness_try_pull (h))
      check (out);
  }
  while (!testing::Test::HasFailure () && run.out < n) {
    GstBuffer *b = gst_harness_pull (h);
    EXPECT_NE (b, nullptr) << what << ": frame " << run.out << " did not come out";
    if (!b)
      break;
    check (b);
  }
  for (GstBuffer *b : colours)
    gst_buffer_unref (b);
  return run;
}

/* The harness's dlainfer (the harness wraps what it parsed in a bin). */
struct Infer {
  explicit Infer (GstHarness *h) : e (gst_harness_find_element (h, "dlainfer")) {}
  ~Infer ()
  {
    if (e)
      gst_object_unref (e);
  }
  GstElement *e;
};

/* `stats`' cores: core -> tasks. */
std::map<int, guint64> stats_cores (GstHarness *h, std::map<int, double> *busy_ms = nullptr)
{
  const Infer infer (h);
  GstStructure *s = nullptr;
  if (infer.e)
    g_object_get (infer.e, "stats", &s, nullptr);
  std::map<int, guint64> tasks;
  const GValue *cores = s ? gst_structure_get_value (s, "cores") : nullptr;
  EXPECT_TRUE (cores && GST_VALUE_HOLDS_ARRAY (cores)) << "stats has no cores array";
  for (guint i = 0; cores && i < gst_value_array_get_size (cores); ++i) {
    const GstStructure *c = gst_value_get_structure (gst_value_array_get_value (cores, i));
    int core = -1;
    guint64 n = 0;
    double busy = 0;
    EXPECT_TRUE (gst_structure_get_int (c, "core", &core) && gst_structure_get_uint64 (c, "tasks", &n) &&
                 gst_structure_get_double (c, "busy-ms", &busy));
    tasks[core] = n;
    if (busy_ms)
      (*busy_ms)[core] = busy;
  }
  if (s)
    gst_structure_free (s);
  return tasks;
}

/* model-info's dla-cores. */
std::vector<int> model_info_cores (GstHarness *h)
{
  const Infer infer (h);
  GstStructure *s = nullptr;
  if (infer.e)
    g_object_get (infer.e, "model-info", &s, nullptr);
  std::vector<int> cores;
  const GValue *v = s ? gst_structure_get_value (s, "dla-cores") : nullptr;
  EXPECT_TRUE (v && GST_VALUE_HOLDS_ARRAY (v)) << "model-info has no dla-cores";
  for (guint i = 0; v && i < gst_value_array_get_size (v); ++i)
    cores.push_back (g_value_get_int (gst_value_array_get_value (v, i)));
  if (s)
    gst_structure_free (s);
  return cores;
}

/* dla-core=-1: both cores run tasks, each frame's meta names one of them, and the metas' counts,
 * `stats` and swdla's own counts agree core by core (swdla's include the warm-up task). */
TEST_F (Cores, EveryCoreReceivesWork)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "1000"}});
  const CoreTasks before;
  GstHarness *h = harness ("dla-core=-1 max-in-flight=4");
  const guint64 n = 200;
  const FramesRun run = run_frames (h, n, {0, 1}, "dla-core=-1");
  ASSERT_FALSE (HasFailure ());
  EXPECT_EQ (model_info_cores (h), (std::vector<int>{0, 1}));
  const std::map<int, guint64> stats = stats_cores (h);
  gst_harness_teardown (h);

  ASSERT_GE (dlainfer_test::swdla_core_tasks (0), 0) << "swdla's task accounting is not reachable";
  const int64_t ran[2] = {dlainfer_test::swdla_core_tasks (0) - before.n[0],
                          dlainfer_test::swdla_core_tasks (1) - before.n[1]};
  EXPECT_EQ (ran[0] + ran[1], int64_t (n) + 1) << "the frames' tasks and one warm-up";
  /* Four in flight over two equal cores: the scheduler alternates; neither is left idle. */
  EXPECT_GE (ran[0], int64_t (n) / 4) << "core 0 ran " << ran[0] << " of " << n;
  EXPECT_GE (ran[1], int64_t (n) / 4) << "core 1 ran " << ran[1] << " of " << n;
  /* The warm-up found both cores idle: a tie, so core 0 ran it. */
  for (int c : {0, 1}) {
    const int meta = run.meta_cores.count (c) ? run.meta_cores.at (c) : 0;
    const guint64 counted = stats.count (c) ? stats.at (c) : 0;
    EXPECT_EQ (counted, guint64 (meta)) << "core " << c << ": stats and the metas disagree";
    EXPECT_EQ (meta + (c == 0 ? 1 : 0), ran[c])
        << "core " << c << ": the metas name it " << meta << " times, swdla ran " << ran[c] << " tasks there";
  }
}

/* A single core number keeps its meaning: everything on core 1, nothing on core 0, and the
 * element shows core 1 alone. */
TEST_F (Cores, SingleCoreSendsEverythingThere)
{
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "300"}});
  const CoreTasks before;
  GstHarness *h = harness ("dla-core=1 max-in-flight=4");
  const guint64 n = 100;
  run_frames (h, n, {1}, "dla-core=1");
  ASSERT_FALSE (HasFailure ());
  EXPECT_EQ (model_info_cores (h), (std::vector<int>{1}));
  const std::map<int, guint64> stats = stats_cores (h);
  EXPECT_EQ (stats, (std::map<int, guint64>{{1, n}}));
  gst_harness_teardown (h);
  EXPECT_EQ (dlainfer_test::swdla_core_tasks (1) - before.n[1], int64_t (n) + 1);
  EXPECT_EQ (dlainfer_test::swdla_core_tasks (0) - before.n[0], 0);
}

/* A core that refuses is an error at start naming the core and cuDLA's status, never a silent run
 * on the others. swdla's fault injection counts the calls from when the setting takes its value:
 * with dla-core=-1 the second call is core 1's. */
void expect_refused_core (const std::string &fault, const std::vector<std::string> &needles)
{
  SwdlaEnv env ({{"SWDLA_FAIL_CALL", fault}});
  const BusError e =
      start_error ("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48 ! " +
                   infer ("dla-core=-1") + " ! fakesink");
  ASSERT_TRUE (e.posted) << fault << ": the start did not fail";
  for (const std::string &n : needles)
    EXPECT_NE (e.message.find (n), std::string::npos)
        << fault << ": '" << n << "' missing from: " << e.message;
}

TEST_F (Cores, CoreRefusingTheLoadableIsNamed)
{
  expect_refused_core (
      "cudlaModuleLoadFromMemory:2:cudlaErrorInvalidParam",
      {"core 1", "cudlaModuleLoadFromMemory failed", "cudlaErrorInvalidParam (", "dla-core"});
}

TEST_F (Cores, CoreRefusingAHandleIsNamed)
{
  expect_refused_core ("cudlaCreateDevice:2:cudlaErrorOutOfResources",
                       {"core 1", "cudlaCreateDevice failed", "cudlaErrorOutOfResources (", "dla-core"});
}

/* Order and identity over two cores under per-task jittered service (so tasks overtake each other
 * across cores), a submit cost, and a per-handle queue limit that blocks the submit, at several
 * max-in-flight. */
TEST_F (Cores, OrderAndResultsUnderJitter)
{
  struct Case {
    int max_in_flight;
    const char *submit_cpu_us, *queue_limit;
  } cases[] = {{1, "0", "0"}, {2, "0", "0"}, {3, "50", "0"}, {4, "0", "1"}, {8, "20", "2"}};
  for (const Case &c : cases) {
    const std::string what = "max-in-flight=" + std::to_string (c.max_in_flight) +
                             " submit-cpu-us=" + c.submit_cpu_us + " queue-limit=" + c.queue_limit;
    SCOPED_TRACE (what);
    SwdlaEnv env ({{"SWDLA_SERVICE_US", "300"},
                   {"SWDLA_SERVICE_JITTER_PCT", "80"},
                   {"SWDLA_SEED", std::to_string (c.max_in_flight)},
                   {"SWDLA_SUBMIT_CPU_US", c.submit_cpu_us},
                   {"SWDLA_QUEUE_LIMIT", c.queue_limit},
                   {"SWDLA_QUEUE_FULL", "block"}});
    GstHarness *h = harness ("dla-core=-1 max-in-flight=" + std::to_string (c.max_in_flight));
    const FramesRun run = run_frames (h, 400, {0, 1}, what);
    EXPECT_EQ (gst_harness_try_pull (h), nullptr) << what << ": more frames out than in";
    gst_harness_teardown (h);
    if (c.max_in_flight >= 2) {
      EXPECT_EQ (run.meta_cores.size (), 2u) << what << ": one core did all the work";
    }
    if (HasFailure ())
      return;
  }
}

/* stats' tensor-copies (tensors copied because downstream held every pooled buffer). */
guint64 tensor_copies (GstHarness *h)
{
  const Infer infer (h);
  GstStructure *s = nullptr;
  if (infer.e)
    g_object_get (infer.e, "stats", &s, nullptr);
  guint64 n = 0;
  EXPECT_TRUE (s && gst_structure_get_uint64 (s, "tensor-copies", &n)) << "stats has no tensor-copies";
  if (s)
    gst_structure_free (s);
  return n;
}

/* tensor-meta with dla-core=-1 (docs/tensors.md 4): each frame's tensor is its own colour's (a
 * reference run on one core, a frame at a time), whichever core ran it, under jittered service.
 * The first 32 are held downstream, past the pools' bound (2 cores x 4 + 16 = 24): they keep their
 * values (no buffer still downstream is written again: later frames go to the slots' spare
 * buffers and are copied), and once they are back the pools serve again (few copies). */
TEST_F (Cores, TensorMetaOnEveryCore)
{
  const std::vector<std::vector<float>> want =
      colour_tensors ("model=" + model ("colours") + " dla-core=0 max-in-flight=1", kW, kH);
  ASSERT_EQ (want.size (), 8u);
  SwdlaEnv env ({{"SWDLA_SERVICE_US", "300"}, {"SWDLA_SERVICE_JITTER_PCT", "80"}, {"SWDLA_SEED", "7"}});
  GstHarness *h = harness ("dla-core=-1 max-in-flight=4 tensor-meta=true");
  constexpr guint64 kHeld = 32, kFrames = 64;
  std::vector<GstBuffer *> held;
  std::map<int, int> cores;
  guint64 out = 0;
  auto check = [&] (GstBuffer *b) {
    const guint64 i = out++;
    EXPECT_EQ (GST_BUFFER_OFFSET (b), i) << "out of order";
    EXPECT_TRUE (same_tensor (tensor_values (b), want[i % 8]))
        << "frame " << i << ", " << kColours[i % 8].name;
    ++cores[result_of (b).dla_core];
    held.push_back (b);
    if (i >= kHeld - 1) {
      for (size_t k = 0; k < held.size (); ++k) /* still their own after the later frames ran */
        EXPECT_TRUE (same_tensor (tensor_values (held[k]), want[(i + 1 - held.size () + k) % 8]))
            << "held frame " << i + 1 - held.size () + k << " was written again";
      for (GstBuffer *x : held)
        gst_buffer_unref (x);
      held.clear ();
    }
  };
  for (guint64 i = 0; i < kFrames && !HasFailure (); ++i) {
    EXPECT_EQ (gst_harness_push (h, coloured_frame (i, kW, kH)), GST_FLOW_OK) << "frame " << i;
    while (GstBuffer *b = gst_harness_try_pull (h))
      check (b);
  }
  while (out < kFrames && !HasFailure ()) {
    GstBuffer *b = gst_harness_pull (h);
    ASSERT_NE (b, nullptr) << "frame " << out << " did not come out";
    check (b);
  }
  const guint64 copies = tensor_copies (h);
  gst_harness_teardown (h);
  EXPECT_EQ (cores.size (), 2u) << "one core did all the work";
  EXPECT_GT (copies, 0u) << "32 held never went past the pools' bound of 24";
  EXPECT_LT (copies, kHeld) << "the pools did not serve again once the held tensors were back";
}

}  // namespace
