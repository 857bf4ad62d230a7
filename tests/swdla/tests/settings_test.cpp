/* swdla's environment: status names and numbers, the fault-injection syntax, the nth-call /
 * nth-task counters that restart when a variable changes, the service-time jitter sequence, the
 * per-handle queue limit's decisions and the submit CPU burn. */
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

TEST (Jitter, ServiceTimeFollowsTheEnvironment)
{
  Unset u{{"SWDLA_SERVICE_US", "SWDLA_SERVICE_JITTER_PCT", "SWDLA_SEED"}};
  swdla::ServiceTime st;
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
  swdla::ServiceTime st;
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

}  // namespace
