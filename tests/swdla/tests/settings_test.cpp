/* swdla's environment: status names and numbers, the fault-injection syntax, and the nth-call /
 * nth-task counters that restart when a variable changes. */
#include "settings.h"

#include <gtest/gtest.h>

#include <cstdlib>

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

}  // namespace
