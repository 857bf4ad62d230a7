/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla's environment: status names and numbers, the fault-injection syntax, the nth-call /
 * nth-task counters that restart when a variable changes, the service-time jitter sequence, the
 * per-handle queue limit's decisions, the submit CPU burn, and the cache of what every submit
 * reads. */
#include "settings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "dla/abi/cudla_abi.h"

namespace {

TEST (Config, Statuses)
{
  int32_t s = 0;
  EXPECT_TRUE (swdla::parse_status ("7", &s));
  EXPECT_EQ (s, 7);
  EXPECT_TRUE (swdla::parse_status ("0x40000006", &s));
  EXPECT_EQ (s, cudlaErrorDlaErrEngineTimeout);
  EXPECT_TRUE (swdla::parse_status ("cudlaErrorUmd", &s));
  EXPECT_EQ (s, cudlaErrorUmd);
  EXPECT_FALSE (swdla::parse_status ("cudlaErrorNope", &s));
  EXPECT_FALSE (swdla::parse_status ("-1", &s));
  EXPECT_EQ (swdla::status_text (8), "cudlaErrorInvalidDevice (8)");
  EXPECT_EQ (swdla::status_text (0x40000006), "cudlaErrorDlaErrEngineTimeout (0x40000006)");
  EXPECT_EQ (swdla::status_text (42), "unknown status 42");
}

TEST (Config, CallFaultSyntax)
{
  std::vector<swdla::CallFault> f;
  std::string why;
  ASSERT_TRUE (
      swdla::parse_call_faults ("cudlaMemRegister:2:cudlaErrorOutOfResources,cudlaSubmitTask:1:7", &f, &why));
  ASSERT_EQ (f.size (), 2u);
  EXPECT_EQ (f[0].entry, "cudlaMemRegister");
  EXPECT_EQ (f[0].nth, 2u);
  EXPECT_EQ (f[0].status, cudlaErrorOutOfResources);
  EXPECT_EQ (f[1].status, 7);
  EXPECT_FALSE (swdla::parse_call_faults ("cudlaMemRegister:0:7", &f, &why));
  EXPECT_FALSE (swdla::parse_call_faults ("MemRegister:1:7", &f, &why));
  EXPECT_FALSE (swdla::parse_call_faults ("cudlaMemRegister:1", &f, &why));
  EXPECT_NE (why.find ("expected"), std::string::npos);
}

TEST (Config, TaskFaultSyntax)
{
  swdla::TaskFault t;
  std::string why;
  ASSERT_TRUE (swdla::parse_task_fault ("3:0x40000007", true, &t, &why));
  EXPECT_EQ (t.nth, 3u);
  EXPECT_EQ (t.value, 0x40000007);
  ASSERT_TRUE (swdla::parse_task_fault ("2", false, &t, &why));
  EXPECT_EQ (t.value, 0);
  EXPECT_FALSE (swdla::parse_task_fault ("2", true, &t, &why));
  EXPECT_FALSE (swdla::parse_task_fault ("x:5", true, &t, &why));
}

TEST (Config, CallCounterRestartsWhenTheVariableChanges)
{
  swdla::Faults faults;
  setenv ("SWDLA_FAIL_CALL", "cudlaGetVersion:2:5", 1);
  EXPECT_EQ (faults.on_call ("cudlaGetVersion"), 0);
  EXPECT_EQ (faults.on_call ("cudlaDeviceGetCount"), 0); /* counted apart */
  EXPECT_EQ (faults.on_call ("cudlaGetVersion"), 5);
  EXPECT_EQ (faults.on_call ("cudlaGetVersion"), 0);
  setenv ("SWDLA_FAIL_CALL", "cudlaGetVersion:1:6", 1);
  EXPECT_EQ (faults.on_call ("cudlaGetVersion"), 6);
  unsetenv ("SWDLA_FAIL_CALL");
  EXPECT_EQ (faults.on_call ("cudlaGetVersion"), 0);
}

TEST (Config, TaskPlans)
{
  swdla::Faults faults;
  setenv ("SWDLA_TASK_ERROR", "2:0x40000003", 1);
  setenv ("SWDLA_EXTERNAL_DEVICE_ERROR", "3", 1);
  setenv ("SWDLA_HANG_MS", "1:250", 1);
  const auto t1 = faults.on_task (), t2 = faults.on_task (), t3 = faults.on_task (), t4 = faults.on_task ();
  EXPECT_EQ (t1.hang_ms, 250);
  EXPECT_EQ (t1.task_error, 0);
  EXPECT_EQ (t2.task_error, cudlaErrorDlaErrNoMem);
  EXPECT_EQ (t3.external_error, cudlaErrorDlaErrInvalidInput); /* the default code */
  EXPECT_EQ (t4.task_error + t4.external_error + t4.hang_ms, 0);
  unsetenv ("SWDLA_TASK_ERROR");
  unsetenv ("SWDLA_EXTERNAL_DEVICE_ERROR");
  unsetenv ("SWDLA_HANG_MS");
}

TEST (Config, Cores)
{
  unsetenv ("SWDLA_NUM_CORES");
  EXPECT_EQ (swdla::num_cores (), 2);
  setenv ("SWDLA_NUM_CORES", "5", 1);
  EXPECT_EQ (swdla::num_cores (), 5);
  setenv ("SWDLA_NUM_CORES", "17", 1); /* out of range: warned, default */
  EXPECT_EQ (swdla::num_cores (), 2);
  unsetenv ("SWDLA_NUM_CORES");
}

/* Restores (unsets) the variables a test sets, whatever its assertions did. */
struct Unset {
  std::vector<const char *> vars;
  ~Unset ()
  {
    for (const char *v : vars)
      unsetenv (v);
  }
};

TEST (Jitter, DrawsStayWithinTheBandAndCoverIt)
{
  const uint64_t base = 10000000; /* 10 ms */
  uint64_t lo = UINT64_MAX, hi = 0;
  double sum = 0;
  const int n = 20000;
  for (int k = 1; k <= n; ++k) {
    const uint64_t t = swdla::jittered_ns (base, 20, 42, uint64_t (k));
    ASSERT_GE (t, 8000000u) << "draw " << k;
    ASSERT_LE (t, 12000000u) << "draw " << k;
    lo = std::min (lo, t);
    hi = std::max (hi, t);
    sum += double (t);
  }
  EXPECT_LT (lo, 8050000u) << "the band's lower edge is reached";
  EXPECT_GT (hi, 11950000u) << "the band's upper edge is reached";
  EXPECT_NEAR (sum / n, double (base), 0.01 * double (base)) << "uniform around the base";
  /* ten equal bins of the band hold about a tenth each */
  std::vector<int> bins (10);
  for (int k = 1; k <= n; ++k)
    ++bins[std::min<size_t> (9, (swdla::jittered_ns (base, 20, 42, uint64_t (k)) - 8000000u) / 400000u)];
  for (int b : bins)
    EXPECT_NEAR (b, n / 10, n / 40);
}

TEST (Jitter, ReproducibleFromTheSeed)
{
  std::vector<uint64_t> a, b, c;
  for (uint64_t k = 1; k <= 50; ++k) {
    a.push_back (swdla::jittered_ns (1000000, 50, 7, k));
    b.push_back (swdla::jittered_ns (1000000, 50, 7, k));
    c.push_back (swdla::jittered_ns (1000000, 50, 8, k));
  }
  EXPECT_EQ (a, b);
  EXPECT_NE (a, c) << "another seed, another sequence";
  EXPECT_GT (std::set<uint64_t> (a.begin (), a.end ()).size (), 45u) << "tasks take different times";
  EXPECT_EQ (swdla::jittered_ns (1000000, 0, 7, 3), 1000000u) << "no jitter: the service time itself";
  EXPECT_EQ (swdla::jittered_ns (0, 50, 7, 3), 0u) << "no service time: nothing to jitter";
  for (uint64_t k = 1; k <= 1000; ++k) {
    const uint64_t t = swdla::jittered_ns (1000000, 100, 9, k);
    ASSERT_LE (t, 2000000u); /* 100 %: 0 .. twice the base */
  }
}

/* A ServiceTime fed as submit.cpp feeds it: the settings through a SettingsCache, so these tests
 * also prove the cache sees each change of the environment between two tasks. */
struct Service {
  swdla::SettingsCache cache;
  swdla::ServiceTime time;
  uint64_t next_ns (int64_t batch = 1) { return time.next_ns (cache.get (), batch); }
};

TEST (Jitter, ServiceTimeFollowsTheEnvironment)
{
  Unset u{{"SWDLA_SERVICE_US", "SWDLA_SERVICE_JITTER_PCT", "SWDLA_SEED"}};
  Service st;
  unsetenv ("SWDLA_SERVICE_US");
  unsetenv ("SWDLA_SERVICE_JITTER_PCT");
  unsetenv ("SWDLA_SEED");
  EXPECT_EQ (st.next_ns (), 0u) << "unset: no service time";
  setenv ("SWDLA_SERVICE_US", "500", 1);
  EXPECT_EQ (st.next_ns (), 500000u) << "no jitter unless asked";
  EXPECT_EQ (st.next_ns (), 500000u);
  setenv ("SWDLA_SERVICE_JITTER_PCT", "20", 1);
  setenv ("SWDLA_SEED", "1234", 1);
  std::vector<uint64_t> got;
  for (int i = 0; i < 5; ++i)
    got.push_back (st.next_ns ());
  for (uint64_t k = 1; k <= 5; ++k)
    EXPECT_EQ (got[k - 1], swdla::jittered_ns (500000, 20, 1234, k)) << "task " << k << " gets draw " << k;
  setenv ("SWDLA_SEED", "99", 1);
  EXPECT_EQ (st.next_ns (), swdla::jittered_ns (500000, 20, 99, 1)) << "a new seed starts again";
  setenv ("SWDLA_SEED", "1234", 1);
  EXPECT_EQ (st.next_ns (), got[0]) << "and the old seed repeats its sequence";
  setenv ("SWDLA_SERVICE_JITTER_PCT", "101", 1); /* out of range: warned, no jitter */
  EXPECT_EQ (st.next_ns (), 500000u);
  setenv ("SWDLA_SERVICE_JITTER_PCT", "20", 1);
  setenv ("SWDLA_SEED", "not-a-seed", 1); /* warned, seed 1 */
  EXPECT_EQ (st.next_ns (), swdla::jittered_ns (500000, 20, 1, 1));
  EXPECT_EQ (swdla::seed (), 1u);
  setenv ("SWDLA_SEED", "0x10", 1);
  EXPECT_EQ (swdla::seed (), 16u);
}

/* A batch of N costs N per-item times on top of the task's; out of range: warned, 0. */
TEST (Jitter, ServiceTimePerItem)
{
  Unset u{{"SWDLA_SERVICE_US", "SWDLA_SERVICE_PER_ITEM_US", "SWDLA_SERVICE_JITTER_PCT"}};
  Service st;
  unsetenv ("SWDLA_SERVICE_JITTER_PCT");
  setenv ("SWDLA_SERVICE_US", "1000", 1);
  unsetenv ("SWDLA_SERVICE_PER_ITEM_US");
  EXPECT_EQ (st.next_ns (16), 1000000u) << "unset: batching is free";
  setenv ("SWDLA_SERVICE_PER_ITEM_US", "100", 1);
  EXPECT_EQ (st.next_ns (1), 1100000u);
  EXPECT_EQ (st.next_ns (4), 1400000u);
  EXPECT_EQ (st.next_ns (16), 2600000u);
  EXPECT_EQ (st.next_ns (0), 1100000u) << "a batch below 1 counts as 1";
  unsetenv ("SWDLA_SERVICE_US");
  EXPECT_EQ (st.next_ns (16), 1600000u) << "per item alone";
  setenv ("SWDLA_SERVICE_PER_ITEM_US", "-5", 1); /* out of range: warned, 0 */
  EXPECT_EQ (st.next_ns (16), 0u);
  EXPECT_EQ (swdla::service_per_item_us (), 0);
}

TEST (QueueLimit, Settings)
{
  Unset u{{"SWDLA_QUEUE_LIMIT", "SWDLA_QUEUE_FULL"}};
  unsetenv ("SWDLA_QUEUE_LIMIT");
  unsetenv ("SWDLA_QUEUE_FULL");
  swdla::QueueLimit q = swdla::queue_limit ();
  EXPECT_EQ (q.limit, 0u) << "no limit by default";
  EXPECT_EQ (q.full, swdla::QueueFull::kBlock);
  setenv ("SWDLA_QUEUE_LIMIT", "3", 1);
  setenv ("SWDLA_QUEUE_FULL", "fail", 1);
  q = swdla::queue_limit ();
  EXPECT_EQ (q.limit, 3u);
  EXPECT_EQ (q.full, swdla::QueueFull::kFail);
  setenv ("SWDLA_QUEUE_FULL", "block", 1);
  EXPECT_EQ (swdla::queue_limit ().full, swdla::QueueFull::kBlock);
  setenv ("SWDLA_QUEUE_FULL", "Fail", 1); /* not a variant: warned, block */
  EXPECT_EQ (swdla::queue_limit ().full, swdla::QueueFull::kBlock);
  setenv ("SWDLA_QUEUE_LIMIT", "-1", 1); /* out of range: warned, no limit */
  EXPECT_EQ (swdla::queue_limit ().limit, 0u);
  setenv ("SWDLA_QUEUE_LIMIT", "two", 1);
  EXPECT_EQ (swdla::queue_limit ().limit, 0u);
  swdla::QueueFull f = swdla::QueueFull::kBlock;
  EXPECT_TRUE (swdla::parse_queue_full ("fail", &f));
  EXPECT_EQ (f, swdla::QueueFull::kFail);
  EXPECT_FALSE (swdla::parse_queue_full ("", &f));
}

TEST (QueueLimit, Admission)
{
  using swdla::Admission;
  const swdla::QueueLimit none{0, swdla::QueueFull::kFail};
  std::string why;
  EXPECT_EQ (swdla::admit (none, 1000, 5, &why), Admission::kAdmit) << "no limit: always";
  const swdla::QueueLimit fail{2, swdla::QueueFull::kFail};
  EXPECT_EQ (swdla::admit (fail, 0, 1, &why), Admission::kAdmit);
  EXPECT_EQ (swdla::admit (fail, 1, 1, &why), Admission::kAdmit);
  EXPECT_EQ (swdla::admit (fail, 0, 2, &why), Admission::kAdmit) << "two tasks in one submit fit";
  EXPECT_EQ (swdla::admit (fail, 2, 1, &why), Admission::kRefuse) << "the (N+1)th";
  EXPECT_NE (why.find ("queue limit reached"), std::string::npos) << why;
  EXPECT_NE (why.find ("SWDLA_QUEUE_LIMIT=2"), std::string::npos) << why;
  EXPECT_EQ (swdla::admit (fail, 1, 2, &why), Admission::kRefuse) << "the second task would not fit";
  const swdla::QueueLimit block{2, swdla::QueueFull::kBlock};
  EXPECT_EQ (swdla::admit (block, 1, 1, &why), Admission::kAdmit);
  EXPECT_EQ (swdla::admit (block, 2, 1, &why), Admission::kWait) << "full: wait for the oldest";
  EXPECT_EQ (swdla::admit (block, 1, 2, &why), Admission::kWait);
  why.clear ();
  for (const auto &q : {fail, block}) {
    EXPECT_EQ (swdla::admit (q, 0, 3, &why), Admission::kRefuse) << "more tasks than the limit never fit";
    EXPECT_NE (why.find ("exceed the queue limit"), std::string::npos) << why;
  }
}

TEST (SubmitCpu, SettingAndBurn)
{
  Unset u{{"SWDLA_SUBMIT_CPU_US"}};
  unsetenv ("SWDLA_SUBMIT_CPU_US");
  EXPECT_EQ (swdla::submit_cpu_us (), 0);
  setenv ("SWDLA_SUBMIT_CPU_US", "20", 1);
  EXPECT_EQ (swdla::submit_cpu_us (), 20);
  setenv ("SWDLA_SUBMIT_CPU_US", "2000000", 1); /* over a second: warned, none */
  EXPECT_EQ (swdla::submit_cpu_us (), 0);
  for (const uint64_t ns : {20000ull, 2000000ull}) {
    const uint64_t t0 = swdla::thread_cpu_ns ();
    swdla::burn_thread_cpu (ns);
    EXPECT_GE (swdla::thread_cpu_ns () - t0, ns) << "the calling thread's own CPU time";
  }
  const uint64_t t0 = swdla::thread_cpu_ns ();
  swdla::burn_thread_cpu (0);
  EXPECT_LT (swdla::thread_cpu_ns () - t0, 1000000u) << "0: no burn";
}

bool same (const swdla::SubmitSettings &a, const swdla::SubmitSettings &b)
{
  return a.queue.limit == b.queue.limit && a.queue.full == b.queue.full &&
         a.submit_cpu_us == b.submit_cpu_us && a.service_us == b.service_us &&
         a.service_per_item_us == b.service_per_item_us && a.jitter_pct == b.jitter_pct && a.seed == b.seed &&
         a.check_layout == b.check_layout && a.graphs == b.graphs;
}

/* The cache gives what reading the environment now gives, through every kind of change a test
 * makes between two submits: a variable set, changed (to a value of the same length too), unset
 * (the environment's last one too), changed in place (putenv's string), and none of them disturbed
 * by other variables. */
TEST (SettingsCache, FollowsEveryChangeOfTheEnvironment)
{
  const std::vector<const char *> vars = {
      "SWDLA_QUEUE_LIMIT", "SWDLA_QUEUE_FULL",          "SWDLA_SUBMIT_CPU_US",
      "SWDLA_SERVICE_US",  "SWDLA_SERVICE_PER_ITEM_US", "SWDLA_SERVICE_JITTER_PCT",
      "SWDLA_SEED",        "SWDLA_CHECK_LAYOUT",        "SWDLA_GRAPHS"};
  Unset u{vars};
  u.vars.push_back ("SWDLA_ZZ_UNKNOWN");
  u.vars.push_back ("DLAINFER_SETTINGS_TEST_OTHER");
  for (const char *v : vars)
    unsetenv (v);
  swdla::SettingsCache cache;
  const auto check = [&cache] (const char *step) {
    const swdla::SubmitSettings now = swdla::SubmitSettings::Read ();
    EXPECT_TRUE (same (cache.get (), now)) << step;
    EXPECT_TRUE (same (cache.get (), now)) << step << ", asked again";
  };
  check ("all unset");
  EXPECT_EQ (cache.get ().queue.limit, 0u);
  EXPECT_EQ (cache.get ().seed, 1u);
  EXPECT_FALSE (cache.get ().check_layout);

  const std::vector<std::pair<const char *, const char *>> values = {
      {"SWDLA_QUEUE_LIMIT", "4"},   {"SWDLA_QUEUE_FULL", "fail"},         {"SWDLA_SUBMIT_CPU_US", "20"},
      {"SWDLA_SERVICE_US", "2000"}, {"SWDLA_SERVICE_PER_ITEM_US", "100"}, {"SWDLA_SERVICE_JITTER_PCT", "10"},
      {"SWDLA_SEED", "77"},         {"SWDLA_CHECK_LAYOUT", "1"},          {"SWDLA_GRAPHS", "0"}};
  for (const auto &kv : values) {
    setenv (kv.first, kv.second, 1);
    check (kv.first);
  }
  const swdla::SubmitSettings all = cache.get ();
  EXPECT_EQ (all.queue.limit, 4u);
  EXPECT_EQ (all.queue.full, swdla::QueueFull::kFail);
  EXPECT_EQ (all.submit_cpu_us, 20);
  EXPECT_EQ (all.service_us, 2000);
  EXPECT_EQ (all.service_per_item_us, 100);
  EXPECT_EQ (all.jitter_pct, 10);
  EXPECT_EQ (all.seed, 77u);
  EXPECT_TRUE (all.check_layout);
  EXPECT_FALSE (all.graphs);

  setenv ("DLAINFER_SETTINGS_TEST_OTHER", "x", 1); /* not swdla's */
  setenv ("SWDLA_ZZ_UNKNOWN", "1", 1);             /* swdla's prefix, no setting */
  check ("other variables");
  EXPECT_EQ (cache.get ().service_us, 2000);
  setenv ("SWDLA_SERVICE_US", "3000", 1); /* the same length */
  check ("changed");
  EXPECT_EQ (cache.get ().service_us, 3000);
  unsetenv ("SWDLA_QUEUE_LIMIT");
  check ("unset");
  EXPECT_EQ (cache.get ().queue.limit, 0u);
  setenv ("SWDLA_QUEUE_LIMIT", "-1", 1); /* out of range: warned, none */
  check ("malformed");
  EXPECT_EQ (cache.get ().queue.limit, 0u);
  unsetenv ("SWDLA_SEED");
  setenv ("SWDLA_SEED", "5", 1); /* a new variable goes last */
  check ("set again");
  EXPECT_EQ (cache.get ().seed, 5u);
  unsetenv ("SWDLA_SEED"); /* the last entry gone: nothing after it moved */
  check ("the last one unset");
  EXPECT_EQ (cache.get ().seed, 1u);

  static char entry[] = "SWDLA_SUBMIT_CPU_US=30"; /* putenv keeps the string itself */
  putenv (entry);
  check ("putenv");
  EXPECT_EQ (cache.get ().submit_cpu_us, 30);
  entry[sizeof entry - 3] = '4'; /* "...=40": changed in place, no call to the C library */
  check ("changed in place");
  EXPECT_EQ (cache.get ().submit_cpu_us, 40);
  unsetenv ("SWDLA_SUBMIT_CPU_US"); /* before `entry` goes */
  check ("putenv's entry unset");
  EXPECT_EQ (cache.get ().submit_cpu_us, 0);
}

/* SWDLA_GRAPHS: 0 turns the graph cache off, 1 (or unset) keeps it; anything else is named on
 * stderr and ignored. */
TEST (SubmitSettings, GraphsTakeZeroOrOne)
{
  Unset u{{"SWDLA_GRAPHS"}};
  unsetenv ("SWDLA_GRAPHS");
  EXPECT_TRUE (swdla::SubmitSettings::Read ().graphs);
  setenv ("SWDLA_GRAPHS", "0", 1);
  EXPECT_FALSE (swdla::SubmitSettings::Read ().graphs);
  setenv ("SWDLA_GRAPHS", "1", 1);
  EXPECT_TRUE (swdla::SubmitSettings::Read ().graphs);
  setenv ("SWDLA_GRAPHS", "off", 1);
  testing::internal::CaptureStderr ();
  const bool graphs = swdla::SubmitSettings::Read ().graphs;
  const std::string err = testing::internal::GetCapturedStderr ();
  EXPECT_TRUE (graphs) << "a bad value keeps the default";
  EXPECT_NE (err.find ("swdla: ignoring SWDLA_GRAPHS=off: expected an integer in 0..1"), std::string::npos)
      << err;
}

}  // namespace
