/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The nine-step hybrid flow through dla::Engine against swdla (DLAINFER_CUDLA_LIBRARY), with
 * models whose answers are known (tests/swdla/models.spec): colours, a read-out of the input,
 * every input/output layout, batch, several slots, two cores, stream ordering, the task timeout,
 * injected faults, and teardown. Run once per descriptor reading (SWDLA_DESCRIPTOR_READING). */
#include <cuda_runtime_api.h>
#include <glib.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "dla/core_queue.h"
#include "engine_test_support.h"
#include "host/classifier.h"
#include "swdla_query.h"

namespace {

using dla_test::have_model;
using dla_test::make_input;
using dla_test::open;

/* The models are this suite's own build products (meson builds them first): missing is a failure. */
#define REQUIRE_MODEL(name)                                      \
  if (!have_model (name))                                        \
  GTEST_FAIL () << "swdla test model " << dla_test::model (name) \
                << " is missing (build the swdla-models target)"

/* Colours in models.spec's class order. */
const float kCorners[8][3] = {{0, 0, 0}, {1, 1, 1}, {1, 0, 0}, {0, 1, 0},
                              {0, 0, 1}, {1, 1, 0}, {0, 1, 1}, {1, 0, 1}};

/* The classifier's view of the engine's tensors (host/classifier.h). */
dla::Status validate (const dla::Engine &e, classifier::Shape *shape)
{
  return classifier::validate (dla::host_descs (e.inputs ()), dla::host_descs (e.outputs ()), shape);
}

std::vector<uint8_t> solid (const dla::Engine &e, const float rgb[3])
{
  return make_input (
      e.input ().view, 3, [&] (int64_t, int64_t c, int64_t, int64_t) { return rgb[c]; },
      dla_test::kInt8InputScale);
}

class Engine : public testing::TestWithParam<std::string> {};

TEST_P (Engine, ColoursEveryLayout)
{
  REQUIRE_MODEL (GetParam ());
  std::unique_ptr<dla::Engine> e;
  const dla::Status st = open (GetParam (), &e);
  ASSERT_TRUE (st.ok ()) << st.message;
  EXPECT_EQ (e->backend (), "swdla");
  classifier::Shape shape;
  const dla::Status v = validate (*e, &shape);
  ASSERT_TRUE (v.ok ()) << v.message;
  EXPECT_EQ (shape.channels, 3);
  EXPECT_EQ (classifier::resolve_class_count (e->outputs ()[0].view, 8), 8);
  for (int k = 0; k < 8; ++k) {
    const dla::Status r = dla_test::run_once (*e, 0, solid (*e, kCorners[k]));
    ASSERT_TRUE (r.ok ()) << r.message;
    EXPECT_EQ (dla_test::argmax (*e, 0, 0, 8), k) << "colour " << k << "\n" << e->describe ();
    /* The first task is timed by events; every task by the host clock. (The preprocessing is the
     * caller's work now, timed by the caller's events: the element's stats.) */
    const dla::SlotTimings t = e->timings (0);
    if (k == 0) {
      EXPECT_GT (t.dla_ms, 0.f);
    }
    EXPECT_GE (t.total_ms, std::max (t.dla_ms, 0.f));
  }
}

/* A test name from a model name (gtest takes no '-'). */
std::string model_test_name (const testing::TestParamInfo<std::string> &i)
{
  std::string s = i.param;
  for (char &ch : s)
    if (ch == '-')
      ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P (Layouts, Engine,
                          testing::Values ("colours", "colours-fp16-dla_linear", "colours-fp16-dla_hwc4",
                                           "colours-int8-chw32", "colours-int8-dla_linear",
                                           "colours-int8-dla_hwc4", "colours-out-fp16-dla_linear",
                                           "colours-out-int8-chw32", "colours-out-int8-dla_linear"),
                          model_test_name);

/* The read-out model's output is a 4x4 grid of channel means (AdaptiveAvgPool2d cells): a wrong
 * row stride, plane stride or channel order cannot pass. */
class Readout : public testing::TestWithParam<std::string> {};

TEST_P (Readout, GeometryEveryLayout)
{
  REQUIRE_MODEL (GetParam ());
  const char *reading = g_getenv ("SWDLA_DESCRIPTOR_READING");
  if (GetParam () == "readout-grey" && reading &&
      std::string (reading).find ("c-padded") != std::string::npos)
    GTEST_SKIP () << "a chw16 descriptor whose c is the padded 16 cannot tell a grey input from an RGB one; "
                     "the mapping reads it as RGB (documented in descriptor_map.h)";
  std::unique_ptr<dla::Engine> e;
  const dla::Status st = open (GetParam (), &e);
  ASSERT_TRUE (st.ok ()) << st.message;
  classifier::Shape shape;
  ASSERT_TRUE (validate (*e, &shape).ok ());
  const tensor::View &v = shape.input_view;
  const int64_t C = shape.channels, H = v.h, W = v.w;
  auto f = [&] (int64_t, int64_t c, int64_t y, int64_t x) {
    return float (0.15 * double (c) + 0.5 * double (y) / double (H) + 0.3 * double (x * x) / double (W * W));
  };
  std::vector<float> kept;
  const std::vector<uint8_t> bytes = make_input (v, C, f, dla_test::kInt8InputScale, &kept);
  const dla::Status r = dla_test::run_once (*e, 0, bytes);
  ASSERT_TRUE (r.ok ()) << r.message;
  const bool int8_out = e->outputs ()[0].view.type == tensor::ElemType::kInt8;
  for (int64_t c = 0; c < C; ++c)
    for (int64_t gy = 0; gy < 4; ++gy)
      for (int64_t gx = 0; gx < 4; ++gx) {
        const int64_t y0 = gy * H / 4, y1 = ((gy + 1) * H + 3) / 4, x0 = gx * W / 4,
                      x1 = ((gx + 1) * W + 3) / 4;
        double sum = 0;
        for (int64_t y = y0; y < y1; ++y)
          for (int64_t x = x0; x < x1; ++x)
            sum += kept[size_t ((c * H + y) * W + x)];
        const double want = sum / double ((y1 - y0) * (x1 - x0));
        const float got = dla_test::output_value (*e, 0, 0, 0, c * 16 + gy * 4 + gx, 1.f / 127.f);
        EXPECT_NEAR (got, want, int8_out ? 1.0 / 127 : 4e-3)
            << "channel " << c << " cell " << gy << "," << gx;
      }
}

INSTANTIATE_TEST_SUITE_P (Layouts, Readout,
                          testing::Values ("readout", "readout-w225-fp16-chw16",
                                           "readout-w225-fp16-dla_linear", "readout-w225-fp16-dla_hwc4",
                                           "readout-w225-int8-chw32", "readout-w225-int8-dla_linear",
                                           "readout-w225-int8-dla_hwc4", "readout-out-fp16-dla_linear",
                                           "readout-out-int8-chw32", "readout-grey",
                                           "readout-grey-fp16-dla_hwc4"),
                          model_test_name);

TEST (EngineFlow, BatchOfTwo)
{
  REQUIRE_MODEL ("colours-batch2");
  std::unique_ptr<dla::Engine> e;
  const dla::Status st = open ("colours-batch2", &e);
  ASSERT_TRUE (st.ok ()) << st.message;
  classifier::Shape shape;
  ASSERT_TRUE (validate (*e, &shape).ok ());
  EXPECT_EQ (shape.batch, 2);
  const auto bytes = make_input (
      e->input ().view, 3,
      [] (int64_t n, int64_t c, int64_t, int64_t) { return kCorners[n == 0 ? 5 : 4][c]; },
      dla_test::kInt8InputScale);
  ASSERT_TRUE (dla_test::run_once (*e, 0, bytes).ok ());
  EXPECT_EQ (dla_test::argmax (*e, 0, 0, 8), 5);
  EXPECT_EQ (dla_test::argmax (*e, 0, 1, 8), 4);
}

/* Three frames in flight in three slots: each slot has its own tensors and copies. */
TEST (EngineFlow, SlotsInFlight)
{
  REQUIRE_MODEL ("colours");
  std::unique_ptr<dla::Engine> e;
  const dla::Status st = open ("colours", &e, 3);
  ASSERT_TRUE (st.ok ()) << st.message;
  ASSERT_EQ (e->num_slots (), 3);
  EXPECT_NE (e->input_ptr (0), e->input_ptr (1));
  EXPECT_EQ (e->input_ptr (3), nullptr);
  for (int round = 0; round < 3; ++round) {
    dla::Task tasks[3];
    for (int s = 0; s < 3; ++s) {
      const dla::Status sub = dla_test::start (*e, solid (*e, kCorners[(s + round * 3) % 8]), &tasks[s]);
      ASSERT_TRUE (sub.ok ()) << sub.message;
      ASSERT_EQ (tasks[s].slot (), s) << "free slots are handed out in order";
    }
    dla::Task more;
    EXPECT_EQ (e->acquire (&more).code, dla::Code::kRuntime) << "all three are in flight";
    for (int s = 0; s < 3; ++s) {
      const dla::Status c = tasks[s].wait ();
      ASSERT_TRUE (c.ok ()) << c.message;
      EXPECT_EQ (dla_test::argmax (*e, s, 0, 8), (s + round * 3) % 8) << "slot " << s << " round " << round;
      tasks[s].give_back ();
    }
  }
}

/* The element's split, on the engine: a producer thread starts `tasks` tasks (colours cycling),
 * with at most `window` not yet collected and `before_start (i, last)` run before each (`last`: the
 * task it started before); this thread waits for each in order and reads its colour back. Returns
 * how many were collected; *wrong: how many read back another's colour. */
int split_run (dla::Engine &e, int tasks, int window,
               const std::function<dla::Status (int, int last_slot)> &before_start, int *wrong)
{
  std::vector<std::vector<uint8_t>> inputs;
  for (const auto &rgb : kCorners)
    inputs.push_back (solid (e, rgb));
  const auto later = [] { return std::chrono::steady_clock::now () + std::chrono::seconds (10); };
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::pair<dla::Task, int>> queued; /* submitted, with the colour written */
  int uncollected = 0;
  bool failed = false;
  std::thread producer ([&] {
    int last_slot = -1;
    for (int i = 0; i < tasks; ++i) {
      {
        std::unique_lock<std::mutex> lock (m);
        cv.wait (lock, [&] { return uncollected < window || failed; });
        if (failed)
          return;
        ++uncollected;
      }
      dla::Status st = before_start ? before_start (i, last_slot) : dla::Status::Ok ();
      dla::Task last;
      if (st.ok ())
        st = dla_test::start (e, inputs[size_t (i % 8)], &last);
      last_slot = last.slot ();
      std::lock_guard<std::mutex> lock (m);
      if (!st.ok ()) {
        ADD_FAILURE () << "task " << i << ": " << st.message;
        failed = true;
      } else {
        queued.emplace_back (std::move (last), i % 8);
      }
      cv.notify_all ();
      if (failed)
        return;
    }
  });
  int done = 0;
  *wrong = 0;
  while (done < tasks) {
    std::pair<dla::Task, int> item;
    {
      std::unique_lock<std::mutex> lock (m);
      cv.wait_for (lock, std::chrono::seconds (30), [&] { return !queued.empty () || failed; });
      if (queued.empty ())
        break;
      item = std::move (queued.front ());
      queued.pop_front ();
    }
    const dla::Status st = item.first.wait (later ());
    if (!st.ok ()) {
      ADD_FAILURE () << "task " << done << ": " << st.message;
      break;
    }
    *wrong += dla_test::argmax (e, item.first.slot (), 0, 8) != item.second;
    item.first.give_back ();
    {
      std::lock_guard<std::mutex> lock (m);
      --uncollected;
    }
    cv.notify_all ();
    ++done;
  }
  {
    std::lock_guard<std::mutex> lock (m);
    failed = failed || done < tasks;
  }
  cv.notify_all ();
  producer.join ();
  return done;
}

/* The element's split: one thread acquires, writes and submits while another waits and reads, three
 * tasks in flight under a jittered service; every task reads back as its own colour, in order. */
TEST (EngineFlow, ProducerAndConsumerThreads)
{
  REQUIRE_MODEL ("colours");
  g_setenv ("SWDLA_SERVICE_US", "300", TRUE);
  g_setenv ("SWDLA_SERVICE_JITTER_PCT", "50", TRUE);
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e, 3).ok ());
  constexpr int kTasks = 600;
  int wrong = 0;
  EXPECT_EQ (split_run (*e, kTasks, 3, nullptr, &wrong), kTasks);
  g_unsetenv ("SWDLA_SERVICE_US");
  g_unsetenv ("SWDLA_SERVICE_JITTER_PCT");
  EXPECT_EQ (wrong, 0) << "a task read back another's colour";
}

/* One task in flight with the spare slot (max-in-flight=1): the producer awaits the task's end
 * beside its consumer and fills the spare while the consumer has not read the outputs yet; seeing
 * the end first, the await ends the task and the consumer's wait returns its status; it gives up
 * at its deadline. */
TEST (EngineFlow, SpareSlotTakesTheNextTaskWhileTheLastIsRead)
{
  REQUIRE_MODEL ("colours");
  g_setenv ("SWDLA_SERVICE_US", "20000", TRUE);
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e, 1, 0, 5000, true).ok ());
  EXPECT_EQ (e->max_tasks (), 1);
  ASSERT_EQ (e->num_slots (), 2) << "one task in flight and the spare";
  dla::Task a, b;
  ASSERT_TRUE (dla_test::start (*e, solid (*e, kCorners[3]), &a).ok ());
  const auto soon = std::chrono::steady_clock::now () + std::chrono::milliseconds (2);
  EXPECT_EQ (e->await_end (a.slot (), soon).code, dla::Code::kTimeout) << "a 20 ms task cannot end in 2 ms";
  const dla::Status ended =
      e->await_end (a.slot (), std::chrono::steady_clock::now () + std::chrono::seconds (5));
  ASSERT_TRUE (ended.ok ()) << ended.message;
  EXPECT_TRUE (e->in_flight (a.slot ())) << "ended by await_end, still the consumer's to collect";
  ASSERT_TRUE (dla_test::start (*e, solid (*e, kCorners[6]), &b).ok ()) << "the spare takes the next";
  EXPECT_NE (b.slot (), a.slot ());
  const dla::Status collected = a.wait ();
  ASSERT_TRUE (collected.ok ()) << "the consumer gets the status await_end read: " << collected.message;
  EXPECT_FALSE (e->in_flight (a.slot ())) << "collected";
  EXPECT_EQ (dla_test::argmax (*e, a.slot (), 0, 8), 3)
      << "the next task must not touch the last one's outputs";
  a.give_back ();
  EXPECT_TRUE (e->await_end (a.slot (), std::chrono::steady_clock::now ()).ok ()) << "an ended task: at once";
  ASSERT_TRUE (b.wait ().ok ());
  EXPECT_EQ (dla_test::argmax (*e, b.slot (), 0, 8), 6);
  g_unsetenv ("SWDLA_SERVICE_US");
}

/* The element's split at max-in-flight=1: the producer awaits the end of the task it submitted
 * last, then fills the spare, while the consumer waits for the same task on its own thread (two
 * tasks not yet collected at most, as the element's queue counts). Whichever sees an end first ends
 * the task, exactly once: every task reads back as its own colour, and no count of the core's queue
 * or of the scheduler is left over (a task ended twice would take another's count with it). */
TEST (EngineFlow, AwaitEndAndWaitOnTwoThreadsEndEachTaskOnce)
{
  REQUIRE_MODEL ("colours");
  g_setenv ("SWDLA_SERVICE_US", "300", TRUE);
  g_setenv ("SWDLA_SERVICE_JITTER_PCT", "50", TRUE);
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e, 1, 0, 5000, true).ok ());
  constexpr int kTasks = 400;
  const dla::CoreCounters before = e->model ()->scheduler ().counters (0);
  int awaited = 0, wrong = 0; /* awaited: written by the producer thread, read after it joined */
  const int done = split_run (
      *e, kTasks, 2,
      [&] (int i, int last_slot) {
        if (i == 0)
          return dla::Status::Ok ();
        const dla::Status st =
            e->await_end (last_slot, std::chrono::steady_clock::now () + std::chrono::seconds (10));
        awaited += st.ok ();
        return st;
      },
      &wrong);
  g_unsetenv ("SWDLA_SERVICE_US");
  g_unsetenv ("SWDLA_SERVICE_JITTER_PCT");
  EXPECT_EQ (done, kTasks);
  EXPECT_EQ (wrong, 0) << "a task read back another's colour";
  EXPECT_EQ (awaited, kTasks - 1);
  EXPECT_EQ (e->model ()->core (0).clock.queued (), 0) << "the core's queue counted a task twice or never";
  const dla::CoreCounters after = e->model ()->scheduler ().counters (0);
  EXPECT_EQ (after.queued, 0) << "the scheduler's count is off";
  EXPECT_EQ (after.tasks + after.dropped - before.tasks - before.dropped, uint64_t (kTasks))
      << "each task ends once";
  for (int slot = 0; slot < e->num_slots (); ++slot)
    EXPECT_FALSE (e->in_flight (slot)) << "slot " << slot << " left in flight";
}

/* A task given back in flight, which nobody will read (a dropped frame, a failed wave, a submit that
 * failed after queueing), frees its slot once it ended, without a wait: the next acquire finds it ended,
 * await_end frees it at once, and one that ended already is free at once. Nothing is left counted
 * on the core. */
TEST (EngineFlow, AbandonedTaskFreesItsSlotWhenItEnds)
{
  REQUIRE_MODEL ("colours");
  g_setenv ("SWDLA_SERVICE_US", "20000", TRUE);
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e, 1).ok ());
  const auto later = [] { return std::chrono::steady_clock::now () + std::chrono::seconds (5); };
  dla::Task a, b, c;
  ASSERT_TRUE (dla_test::start (*e, solid (*e, kCorners[1]), &a).ok ());
  a.give_back ();
  EXPECT_EQ (e->acquire (&b).code, dla::Code::kRuntime) << "a 20 ms task still runs: its slot is not free";
  std::this_thread::sleep_for (std::chrono::milliseconds (200));
  ASSERT_TRUE (e->acquire (&b).ok ()) << "ended: the acquire freed it";
  ASSERT_TRUE (b.submit (nullptr).ok ());
  const int b_slot = b.slot ();
  b.give_back ();
  ASSERT_TRUE (e->await_end (b_slot, later ()).ok ());
  EXPECT_FALSE (e->in_flight (b_slot)) << "given back in flight: nobody collects it";
  ASSERT_TRUE (dla_test::start (*e, solid (*e, kCorners[2]), &c).ok ()) << "await_end freed it";
  ASSERT_TRUE (c.wait (later ()).ok ());
  c.give_back ();
  ASSERT_TRUE (dla_test::run_once (*e, 0, solid (*e, kCorners[3])).ok ()) << "an ended one is free at once";
  EXPECT_EQ (dla_test::argmax (*e, 0, 0, 8), 3);
  g_unsetenv ("SWDLA_SERVICE_US");
  EXPECT_EQ (e->model ()->core (0).clock.queued (), 0) << "the core's queue still counts a task";
  EXPECT_EQ (e->model ()->scheduler ().counters (0).queued, 0) << "the scheduler still counts a task";
}

/* The DLA's error state is per device: await_end reads a task's status when it sees the end,
 * before the producer submits the next, so a failure stays with its own task. Read by the
 * consumer's waits after the next task failed, the first would report the second's failure. */
TEST (EngineFlow, AwaitEndKeepsEachTaskItsOwnStatus)
{
  REQUIRE_MODEL ("colours");
  g_setenv ("SWDLA_SERVICE_US", "2000", TRUE);
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e, 1, 0, 5000, true).ok ());
  ASSERT_TRUE (dla_test::run_once (*e, 0, solid (*e, kCorners[0])).ok ()) << "a first task, set-up costs";
  g_setenv ("SWDLA_TASK_ERROR", "2:cudlaErrorDlaErrInvalidInput", TRUE);
  const auto later = [] { return std::chrono::steady_clock::now () + std::chrono::seconds (5); };
  dla::Task a, b;
  ASSERT_TRUE (dla_test::start (*e, solid (*e, kCorners[2]), &a).ok ());
  ASSERT_TRUE (e->await_end (a.slot (), later ()).ok ());
  ASSERT_TRUE (dla_test::start (*e, solid (*e, kCorners[5]), &b).ok ());
  ASSERT_TRUE (e->await_end (b.slot (), later ()).ok ());
  const dla::Status sa = a.wait (), sb = b.wait ();
  g_unsetenv ("SWDLA_TASK_ERROR");
  g_unsetenv ("SWDLA_SERVICE_US");
  EXPECT_TRUE (sa.ok ()) << "the first task's own status: " << sa.message;
  EXPECT_EQ (dla_test::argmax (*e, a.slot (), 0, 8), 2);
  EXPECT_EQ (sb.code, dla::Code::kRuntime);
  EXPECT_NE (sb.message.find ("cudlaErrorDlaErrInvalidInput"), std::string::npos) << sb.message;
}

TEST (EngineFlow, TaskMisuseIsRefused)
{
  REQUIRE_MODEL ("colours");
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e, 1).ok ());
  dla::Task task;
  dla::Status st = task.submit (nullptr); /* never acquired */
  EXPECT_EQ (st.code, dla::Code::kRuntime);
  EXPECT_NE (st.message.find ("holds no task"), std::string::npos) << st.message;
  EXPECT_EQ (task.wait ().code, dla::Code::kRuntime);
  EXPECT_FALSE (task.in_flight ());
  ASSERT_TRUE (e->acquire (&task).ok ());
  st = task.wait ();
  EXPECT_EQ (st.code, dla::Code::kRuntime) << "waited before its submit";
  EXPECT_NE (st.message.find ("no task in flight"), std::string::npos) << st.message;
  ASSERT_TRUE (task.submit (nullptr).ok ()); /* no input event: the input is taken as written */
  EXPECT_EQ (task.submit (nullptr).code, dla::Code::kRuntime) << "double submit";
  dla::Task other;
  EXPECT_EQ (e->acquire (&other).code, dla::Code::kRuntime) << "the one slot is in flight";
  ASSERT_TRUE (task.wait ().ok ());
  EXPECT_GE (task.timings ().dla_ms, 0.f);
  EXPECT_EQ (task.host_output (1), nullptr);
  EXPECT_EQ (task.wait ().code, dla::Code::kRuntime) << "waited twice";
  /* Ended: the outputs are the handle's until it gives the slot back. */
  st = e->acquire (&other);
  EXPECT_EQ (st.code, dla::Code::kRuntime) << "an ended slot was handed out before its give-back";
  EXPECT_NE (st.message.find ("not yet released"), std::string::npos) << st.message;
  st = task.submit (nullptr);
  EXPECT_NE (st.message.find ("release () it"), std::string::npos) << st.message;
  /* Moved: the new owner holds it, the old handle is empty. */
  dla::Task moved = std::move (task);
  EXPECT_FALSE (task.valid ());
  EXPECT_EQ (moved.slot (), 0);
  {
    dla::Task dropped = std::move (moved);
  } /* dropped: the slot goes back */
  EXPECT_FALSE (moved.valid ());
  ASSERT_TRUE (e->acquire (&other).ok ()) << "given back when dropped: free again";
  EXPECT_EQ (other.slot (), 0);
  other.give_back ();
  other.give_back (); /* idempotent */
  EXPECT_FALSE (other.valid ());
}

/* A wait with a deadline that passes returns kTimeout and leaves the task in flight: it can be
 * waited for again, or polled, and ends normally. */
TEST (EngineFlow, WaitPastTheDeadline)
{
  REQUIRE_MODEL ("colours");
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e, 1).ok ());
  setenv ("SWDLA_HANG_MS", "1:300", 1); /* the next task takes 300 ms */
  dla::Task task;
  const dla::Status st = dla_test::start (*e, solid (*e, kCorners[3]), &task);
  unsetenv ("SWDLA_HANG_MS");
  ASSERT_TRUE (st.ok ()) << st.message;
  const auto t0 = std::chrono::steady_clock::now ();
  const dla::Status late = task.wait (t0 + std::chrono::milliseconds (20));
  EXPECT_EQ (late.code, dla::Code::kTimeout) << late.message;
  EXPECT_LT (std::chrono::steady_clock::now () - t0, std::chrono::milliseconds (250));
  bool done = true;
  EXPECT_TRUE (task.poll (&done).ok ());
  EXPECT_FALSE (done) << "still in flight";
  dla::Task other;
  EXPECT_EQ (e->acquire (&other).code, dla::Code::kRuntime) << "still in flight";
  const dla::Status end = task.wait ();
  ASSERT_TRUE (end.ok ()) << end.message;
  EXPECT_EQ (dla_test::argmax (*e, 0, 0, 8), 3);
}

/* poll () ends a task without blocking once its outputs are in host memory. */
TEST (EngineFlow, PollUntilDone)
{
  REQUIRE_MODEL ("colours");
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e, 1).ok ());
  dla::Task task;
  ASSERT_TRUE (dla_test::start (*e, solid (*e, kCorners[5]), &task).ok ());
  bool done = false;
  const auto limit = std::chrono::steady_clock::now () + std::chrono::seconds (10);
  dla::Status st;
  while (!done && std::chrono::steady_clock::now () < limit && (st = task.poll (&done)).ok ())
    std::this_thread::sleep_for (std::chrono::microseconds (100));
  ASSERT_TRUE (st.ok ()) << st.message;
  ASSERT_TRUE (done);
  EXPECT_EQ (dla_test::argmax (*e, 0, 0, 8), 5);
  EXPECT_GT (e->timings (0).total_ms, 0.f);
  EXPECT_EQ (task.poll (&done).code, dla::Code::kRuntime) << "polled after its end";
}

/* Stage timings come from events on the first two tasks and every kTimingPeriod-th after them, the
 * total from the host clock on every task. */
TEST (EngineFlow, StagesAreTimedOnOneTaskInAPeriod)
{
  REQUIRE_MODEL ("colours");
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e, 1).ok ());
  for (int i = 0; i <= 2 * dla::kTimingPeriod; ++i) {
    ASSERT_TRUE (dla_test::run_once (*e, 0, solid (*e, kCorners[i % 8])).ok ());
    const dla::SlotTimings t = e->timings (0);
    const bool timed = i < 2 || i % dla::kTimingPeriod == 0;
    EXPECT_EQ (t.dla_ms > 0.f, timed) << "task " << i;
    EXPECT_GT (t.total_ms, 0.f) << "task " << i;
    EXPECT_LT (t.total_ms, 10000.f) << "task " << i;
  }
}

/* The input is written on another stream (as the element's kernel is); the event handed to
 * submit () orders the DLA task after it without a host sync. */
TEST (EngineFlow, WaitForForeignStream)
{
  REQUIRE_MODEL ("colours");
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e).ok ());
  dla_test::InputWriter writer (*e);
  cudaStream_t upstream = static_cast<cudaStream_t> (writer.stream ());
  void *pinned = nullptr;
  const auto bytes = solid (*e, kCorners[6]);
  ASSERT_EQ (cudaMallocHost (&pinned, bytes.size ()), cudaSuccess);
  std::memcpy (pinned, bytes.data (), bytes.size ());
  /* A big copy first, so the input copy lands late on the upstream stream. */
  void *scratch = nullptr;
  const size_t big = 256u << 20;
  ASSERT_EQ (cudaMalloc (&scratch, big), cudaSuccess);
  dla::Task task;
  ASSERT_TRUE (e->acquire (&task).ok ());
  ASSERT_EQ (cudaMemsetAsync (scratch, 1, big, upstream), cudaSuccess);
  ASSERT_EQ (cudaMemcpyAsync (task.input (), pinned, bytes.size (), cudaMemcpyHostToDevice, upstream),
             cudaSuccess);
  ASSERT_EQ (cudaEventRecord (static_cast<cudaEvent_t> (writer.ready ()), upstream), cudaSuccess);
  ASSERT_TRUE (task.submit (writer.ready ()).ok ());
  const dla::Status st = task.wait ();
  ASSERT_TRUE (st.ok ()) << st.message;
  EXPECT_EQ (dla_test::argmax (*e, 0, 0, 8), 6);
  cudaStreamSynchronize (upstream);
  cudaFree (scratch);
  cudaFreeHost (pinned);
}

/* Two cores busy at once, each engine on its own stream and handle. */
TEST (EngineFlow, TwoCoresAtOnce)
{
  REQUIRE_MODEL ("colours");
  std::unique_ptr<dla::Engine> a, b;
  ASSERT_TRUE (open ("colours", &a, 1, 0).ok ());
  const dla::Status st = open ("colours", &b, 1, 1);
  ASSERT_TRUE (st.ok ()) << st.message;
  EXPECT_EQ (a->primary_context (), b->primary_context ());
  const int64_t core0 = dlainfer_test::swdla_core_tasks (0), core1 = dlainfer_test::swdla_core_tasks (1);
  ASSERT_GE (core0, 0) << "swdla's task accounting is not reachable";
  for (int k = 0; k < 8; ++k) {
    dla::Task ta, tb;
    ASSERT_TRUE (dla_test::start (*a, solid (*a, kCorners[k]), &ta).ok ());
    ASSERT_TRUE (dla_test::start (*b, solid (*b, kCorners[7 - k]), &tb).ok ());
    ASSERT_TRUE (ta.wait ().ok ());
    ASSERT_TRUE (tb.wait ().ok ());
    EXPECT_EQ (dla_test::argmax (*a, 0, 0, 8), k);
    EXPECT_EQ (dla_test::argmax (*b, 0, 0, 8), 7 - k);
    ta.give_back ();
    tb.give_back ();
  }
  /* Every core computes the same answer: only swdla's own count shows the core reached the device. */
  EXPECT_EQ (dlainfer_test::swdla_core_tasks (0) - core0, 8);
  EXPECT_EQ (dlainfer_test::swdla_core_tasks (1) - core1, 8);
}

/* The core an engine is opened on is the one its tasks run on, and no other. */
TEST (EngineFlow, TasksRunOnTheChosenCore)
{
  REQUIRE_MODEL ("colours");
  for (int core : {1, 0}) {
    std::unique_ptr<dla::Engine> e;
    ASSERT_TRUE (open ("colours", &e, 1, core).ok ());
    const int64_t before[2] = {dlainfer_test::swdla_core_tasks (0), dlainfer_test::swdla_core_tasks (1)};
    for (int k = 0; k < 3; ++k)
      ASSERT_TRUE (dla_test::run_once (*e, 0, solid (*e, kCorners[k])).ok ());
    EXPECT_EQ (dlainfer_test::swdla_core_tasks (core) - before[core], 3) << "core " << core;
    EXPECT_EQ (dlainfer_test::swdla_core_tasks (1 - core) - before[1 - core], 0) << "core " << 1 - core;
  }
}

/* On every core, an engine's tasks in flight are shared out over the cores (a sharer's memory is
 * its frames in flight, not that many per core): 2 in flight on two cores is one slot on each. A
 * core whose slot holds an ended task not yet released takes no task: the next goes to the other
 * core, though the scheduler's tie would send it to the first. */
TEST (EngineFlow, TasksInFlightSharedOutOverTheCores)
{
  REQUIRE_MODEL ("colours");
  for (const auto &want : {std::make_pair (1, 2), std::make_pair (2, 2), std::make_pair (3, 4),
                           std::make_pair (4, 4), std::make_pair (8, 8)}) {
    std::unique_ptr<dla::Engine> e;
    ASSERT_TRUE (open ("colours", &e, want.first, dla::kEveryCore).ok ());
    ASSERT_EQ (e->cores (), 2);
    EXPECT_EQ (e->num_slots (), want.second) << want.first << " in flight";
  }
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e, 2, dla::kEveryCore).ok ());
  dla::Task a, b, c;
  ASSERT_TRUE (dla_test::start (*e, solid (*e, kCorners[2]), &a).ok ());
  ASSERT_TRUE (a.wait ().ok ());
  ASSERT_TRUE (dla_test::start (*e, solid (*e, kCorners[4]), &b).ok ());
  EXPECT_NE (e->core_of (b.slot ()), e->core_of (a.slot ()))
      << "the core whose one slot is unread took the task";
  EXPECT_EQ (e->acquire (&c).code, dla::Code::kRuntime) << "both slots are busy";
  EXPECT_EQ (dla_test::argmax (*e, a.slot (), 0, 8), 2) << "the task on the other core touched a's outputs";
  a.give_back ();
  ASSERT_TRUE (b.wait ().ok ());
  EXPECT_EQ (dla_test::argmax (*e, b.slot (), 0, 8), 4);
  b.give_back ();
}

TEST (EngineOpenErrors, CoreOutOfRangeNamesTheCount)
{
  REQUIRE_MODEL ("colours");
  std::unique_ptr<dla::Engine> e;
  const dla::Status st = open ("colours", &e, 1, 2);
  EXPECT_EQ (st.code, dla::Code::kSettings);
  EXPECT_NE (st.message.find ("DLA core 2 does not exist"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("reports 2 core(s), use 0..1"), std::string::npos) << st.message;
}

TEST (EngineOpenErrors, BrokenModelsNameTheCallAndStatus)
{
  for (const char *name : {"broken-truncated", "broken-magic", "broken-version"}) {
    REQUIRE_MODEL (name);
    std::unique_ptr<dla::Engine> e;
    const dla::Status st = open (name, &e);
    EXPECT_EQ (st.code, dla::Code::kModel) << name;
    if (std::string (name) == "broken-magic")
      EXPECT_NE (st.message.find ("not a DLA loadable"), std::string::npos) << st.message;
    else
      EXPECT_NE (st.message.find ("cudlaModuleLoadFromMemory failed: cudlaErrorInvalidParam (1)"),
                 std::string::npos)
          << name << ": " << st.message;
  }
}

TEST (EngineOpenErrors, NvidiaLoadableOnSwdla)
{
  REQUIRE_MODEL ("broken-nvda");
  std::unique_ptr<dla::Engine> e;
  const dla::Status st = open ("broken-nvda", &e);
  EXPECT_EQ (st.code, dla::Code::kModel);
  EXPECT_NE (st.message.find ("is an NVIDIA DLA loadable"), std::string::npos) << st.message;
}

TEST (EngineOpenErrors, EmptyModel)
{
  REQUIRE_MODEL ("broken-zero-size");
  std::unique_ptr<dla::Engine> e;
  const dla::Status st = open ("broken-zero-size", &e);
  EXPECT_EQ (st.code, dla::Code::kModel);
  EXPECT_NE (st.message.find ("is empty"), std::string::npos) << st.message;
}

TEST (EngineOpenErrors, UnwritableInputType)
{
  REQUIRE_MODEL ("broken-wrong-type");
  std::unique_ptr<dla::Engine> e;
  const dla::Status st = open ("broken-wrong-type", &e);
  EXPECT_EQ (st.code, dla::Code::kModel);
  EXPECT_NE (st.message.find ("FLOAT (1)"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("--inputIOFormats=fp16:chw16"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("Raw descriptor: name='image'"), std::string::npos) << st.message;
}

TEST (EngineOpenErrors, TwoInputsAreNotAClassifier)
{
  REQUIRE_MODEL ("broken-two-inputs");
  std::unique_ptr<dla::Engine> e;
  const dla::Status st = open ("broken-two-inputs", &e);
  ASSERT_TRUE (st.ok ()) << st.message;
  classifier::Shape shape;
  const dla::Status v = validate (*e, &shape);
  EXPECT_EQ (v.code, dla::Code::kModel);
  EXPECT_NE (v.message.find ("2 inputs ('image', 'extra')"), std::string::npos) << v.message;
}

/* Everything is released in order: more opens than the 16 handles a core allows. */
TEST (EngineLifetime, OpenCloseManyTimes)
{
  REQUIRE_MODEL ("colours");
  for (int i = 0; i < 24; ++i) {
    std::unique_ptr<dla::Engine> e;
    const dla::Status st = open ("colours", &e, 2);
    ASSERT_TRUE (st.ok ()) << "open " << i << ": " << st.message;
    if (i % 2) {
      dla::Task task;
      ASSERT_TRUE (e->acquire (&task).ok ());
      ASSERT_TRUE (task.submit (nullptr).ok ()); /* destroyed with a task in flight: drained first */
    }
  }
}

TEST (EngineLifetime, DescribeForModelInfo)
{
  REQUIRE_MODEL ("colours");
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e).ok ());
  const std::string d = e->describe ();
  for (const char *needle : {"backend=swdla", "dla-core=0/2", "input 'image': fp16 chw16 1x",
                             "output 'logits'", "raw: name='image'"})
    EXPECT_NE (d.find (needle), std::string::npos) << needle << " missing from:\n" << d;
  EXPECT_NE (e->cudla_version (), "");
  EXPECT_EQ (e->cuda_device (), 0);
  EXPECT_NE (e->primary_context (), nullptr);
}

/* An AfterTask whose work cannot be queued (the raw tensors' de-padding, docs/tensors.md 4): the
 * submit fails naming that work, its CUDA status and its fix, not the DLA task; not fatal. */
TEST (EngineFlow, AfterTaskFailureNamesItsWork)
{
  REQUIRE_MODEL ("colours");
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e).ok ());
  int calls = 0;
  dla::AfterTask after;
  after.skip_host_copy = {true};
  after.what = "the test's work";
  after.fix = "the test's fix";
  after.queue = [&calls] (int, const std::vector<const void *> &outputs, void *) {
    ++calls;
    return int (outputs.size () == 1 && outputs[0] ? cudaErrorInvalidValue : cudaErrorUnknown);
  };
  e->set_after_task (after);
  dla::Task task;
  ASSERT_TRUE (e->acquire (&task).ok ());
  const dla::Status st = task.submit (nullptr);
  EXPECT_EQ (calls, 1);
  EXPECT_EQ (st.code, dla::Code::kRuntime) << st.message;
  EXPECT_NE (st.message.find ("the test's work failed (DLA core 0): cudaErrorInvalidValue"),
             std::string::npos)
      << st.message;
  EXPECT_NE (st.message.find ("the test's fix"), std::string::npos) << st.message;
  EXPECT_EQ (st.message.find ("queueing the DLA task"), std::string::npos) << st.message;
  EXPECT_FALSE (e->failed ()) << "a refused launch is no fault of the process";
}

/* Faults injected by swdla (tests/swdla/README.md): each reaches the caller with name and number. */
class Faults : public testing::Test {
 protected:
  void TearDown () override
  {
    for (const char *v : {"SWDLA_FAIL_CALL", "SWDLA_TASK_ERROR", "SWDLA_HANG_MS"})
      unsetenv (v);
  }
};

TEST_F (Faults, SubmitFailsWithItsStatus)
{
  REQUIRE_MODEL ("colours");
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e).ok ());
  setenv ("SWDLA_FAIL_CALL", "cudlaSubmitTask:1:cudlaErrorUmd", 1);
  dla::Task task;
  ASSERT_TRUE (e->acquire (&task).ok ());
  const dla::Status st = task.submit (nullptr);
  EXPECT_EQ (st.code, dla::Code::kRuntime);
  EXPECT_NE (st.message.find ("cudlaSubmitTask failed: cudlaErrorUmd (7)"), std::string::npos) << st.message;
  unsetenv ("SWDLA_FAIL_CALL");
  EXPECT_TRUE (dla_test::run_once (*e, 0, solid (*e, kCorners[2])).ok ())
      << "the engine goes on after a refused submit";
}

/* max-in-flight=1 with the spare: the producer saw the last task end, and its outputs are not read
 * yet; the next submit is refused. The refused slot is free again and the frame after takes it,
 * never the slot whose outputs are still to be read. */
TEST_F (Faults, RefusedSubmitGivesTheSpareBack)
{
  REQUIRE_MODEL ("colours");
  setenv ("SWDLA_SERVICE_US", "20000", 1);
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e, 1, 0, 5000, true).ok ());
  const auto later = [] { return std::chrono::steady_clock::now () + std::chrono::seconds (5); };
  dla::Task a, refused, c;
  ASSERT_TRUE (dla_test::start (*e, solid (*e, kCorners[3]), &a).ok ());
  ASSERT_TRUE (e->await_end (a.slot (), later ()).ok ());
  setenv ("SWDLA_FAIL_CALL", "cudlaSubmitTask:1:cudlaErrorUmd", 1);
  ASSERT_TRUE (e->acquire (&refused).ok ());
  EXPECT_EQ (refused.submit (nullptr).code, dla::Code::kRuntime);
  unsetenv ("SWDLA_FAIL_CALL");
  ASSERT_TRUE (dla_test::start (*e, solid (*e, kCorners[6]), &c).ok ());
  EXPECT_NE (c.slot (), a.slot ()) << "the slot whose outputs are still to be read was handed out";
  ASSERT_TRUE (a.wait (later ()).ok ());
  EXPECT_EQ (dla_test::argmax (*e, a.slot (), 0, 8), 3);
  ASSERT_TRUE (c.wait (later ()).ok ());
  EXPECT_EQ (dla_test::argmax (*e, c.slot (), 0, 8), 6);
  unsetenv ("SWDLA_SERVICE_US");
}

TEST_F (Faults, CreateDeviceFailsWithItsStatus)
{
  REQUIRE_MODEL ("colours");
  setenv ("SWDLA_FAIL_CALL", "cudlaCreateDevice:1:cudlaErrorOutOfResources", 1);
  std::unique_ptr<dla::Engine> e;
  const dla::Status st = open ("colours", &e);
  EXPECT_EQ (st.code, dla::Code::kInit);
  EXPECT_NE (st.message.find ("cudlaCreateDevice failed: cudlaErrorOutOfResources (2)"), std::string::npos)
      << st.message;
  EXPECT_NE (
      st.message.find ("at most 16 device handles per DLA core; elements that run the same model can share "
                       "one engine (one handle per core) by setting the same model-instance-id (other cuDLA "
                       "users in the process count too); or run fewer elements on this core"),
      std::string::npos)
      << st.message;
}

TEST_F (Faults, MemRegisterFailsWithItsStatus)
{
  REQUIRE_MODEL ("colours");
  setenv ("SWDLA_FAIL_CALL", "cudlaMemRegister:2:cudlaErrorInvalidAddress", 1);
  std::unique_ptr<dla::Engine> e;
  const dla::Status st = open ("colours", &e);
  EXPECT_EQ (st.code, dla::Code::kInit);
  EXPECT_NE (st.message.find ("cudlaMemRegister failed: cudlaErrorInvalidAddress (4)"), std::string::npos)
      << st.message;
}

TEST_F (Faults, TaskErrorReportedByGetLastError)
{
  REQUIRE_MODEL ("colours");
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e).ok ());
  setenv ("SWDLA_TASK_ERROR", "1:0x40000003", 1);
  const dla::Status st = dla_test::run_once (*e, 0, solid (*e, kCorners[1]));
  EXPECT_EQ (st.code, dla::Code::kRuntime);
  EXPECT_NE (st.message.find ("cudlaGetLastError reports cudlaErrorDlaErrNoMem (0x40000003)"),
             std::string::npos)
      << st.message;
}

TEST_F (Faults, HungTaskEndsAtTheTimeout)
{
  REQUIRE_MODEL ("colours");
  std::unique_ptr<dla::Engine> e;
  ASSERT_TRUE (open ("colours", &e, 1, 0, 300).ok ());
  ASSERT_TRUE (e->has_task_timeout ()) << "swdla exports cudlaSetTaskTimeoutInMs; the loader did not find it";
  setenv ("SWDLA_HANG_MS", "1:20000", 1);
  const auto t0 = std::chrono::steady_clock::now ();
  const dla::Status st = dla_test::run_once (*e, 0, solid (*e, kCorners[1]));
  const double s = std::chrono::duration<double> (std::chrono::steady_clock::now () - t0).count ();
  EXPECT_LT (s, 10.0) << "the 300 ms timeout did not end the 20 s hang";
  /* A timeout, not the process-fatal 911: a regression that poisons the process on every hang fails. */
  EXPECT_EQ (st.code, dla::Code::kTimeout) << st.message;
  EXPECT_NE (st.message.find ("cudlaErrorDlaErrEngineTimeout (0x40000006)"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("300 ms"), std::string::npos) << st.message;
  unsetenv ("SWDLA_HANG_MS");
  /* The process goes on: a new engine classifies right after the hung one. */
  e.reset ();
  std::unique_ptr<dla::Engine> next;
  ASSERT_TRUE (open ("colours", &next).ok ());
  const dla::Status again = dla_test::run_once (*next, 0, solid (*next, kCorners[2]));
  ASSERT_TRUE (again.ok ()) << again.message;
  EXPECT_EQ (dla_test::argmax (*next, 0, 0, 8), 2);
}

}  // namespace
