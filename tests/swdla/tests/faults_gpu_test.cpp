/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla's fault injection, as the dla layer will meet it: a call fails with a chosen status, a task
 * ends with a DLA error read by cudlaGetLastError, a task hangs until the handle's timeout. (The
 * external-device error poisons the process: external_error_gpu_test.cpp.) */
#include <gtest/gtest.h>

#include "gpu_helpers.h"

namespace {

using swdla_test::Clock;
using swdla_test::describe;
using swdla_test::Env;
using swdla_test::ms_since;
using swdla_test::Session;
using swdla_test::Stream;

TEST (SwdlaFaults, NthCallFailsWithTheGivenStatus)
{
  Env fail ("SWDLA_FAIL_CALL", "cudlaMemRegister:2:cudlaErrorOutOfResources,cudlaSubmitTask:2:0x40000004");
  Session s;
  const std::string err = s.open ("colours"); /* registers input (1st) then output (2nd) */
  EXPECT_NE (err.find ("cudlaErrorOutOfResources (2)"), std::string::npos) << err;
  EXPECT_NE (err.find ("SWDLA_FAIL_CALL"), std::string::npos) << err;
  s.close ();
  Session t;
  ASSERT_EQ (t.open ("colours"), ""); /* 3rd and 4th registrations: fine */
  Stream stream;
  EXPECT_EQ (t.submit (stream), cudlaSuccess);
  EXPECT_EQ (t.submit (stream), cudlaErrorDlaErrProcessorBusy);
  EXPECT_EQ (t.submit (stream), cudlaSuccess);
  EXPECT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
}

TEST (SwdlaFaults, TaskErrorIsReportedByGetLastError)
{
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  Stream stream;
  Env fail ("SWDLA_TASK_ERROR", "2:cudlaErrorDlaErrDataMismatch");
  ASSERT_EQ (s.submit (stream), cudlaSuccess);
  ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
  EXPECT_EQ (cudlaGetLastError (s.dev), cudlaSuccess);
  ASSERT_EQ (cudaMemset (s.outputs[0].cuda, 0x22, s.outputs[0].size), cudaSuccess);
  ASSERT_EQ (s.submit (stream), cudlaSuccess); /* submission itself succeeds: the error is asynchronous */
  EXPECT_EQ (cudaStreamSynchronize (stream), cudaSuccess) << "a task error alone leaves the stream healthy";
  const cudlaStatus last = cudlaGetLastError (s.dev);
  EXPECT_EQ (last, cudlaErrorDlaErrDataMismatch) << describe (last);
  for (uint8_t b : s.read_output ())
    ASSERT_EQ (b, 0x22) << "a failed task must not write its output";
  ASSERT_EQ (s.submit (stream), cudlaSuccess);
  ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
  EXPECT_EQ (cudlaGetLastError (s.dev), cudlaSuccess) << "the status is the most recent task's";
}

TEST (SwdlaFaults, HungTaskEndsAtTheTimeoutWithEngineTimeout)
{
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  ASSERT_EQ (cudlaSetTaskTimeoutInMs (s.dev, 200), cudlaSuccess);
  Stream stream;
  Env hang ("SWDLA_HANG_MS", "1:600000");
  const auto t0 = Clock::now ();
  ASSERT_EQ (s.submit (stream), cudlaSuccess);
  EXPECT_EQ (cudaStreamQuery (stream), cudaErrorNotReady) << "submitting a hanging task waited for it";
  EXPECT_EQ (cudlaDestroyDevice (s.dev), cudlaErrorUmd) << "destroyed with a task in flight";
  ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
  const double took = ms_since (t0);
  EXPECT_GE (took, 190.0);
  EXPECT_LT (took, 5000.0);
  const cudlaStatus last = cudlaGetLastError (s.dev);
  EXPECT_EQ (last, cudlaErrorDlaErrEngineTimeout) << describe (last);
}

TEST (SwdlaFaults, SlowTaskWithinTheTimeoutSucceeds)
{
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  ASSERT_EQ (cudlaSetTaskTimeoutInMs (s.dev, 5000), cudlaSuccess);
  Stream stream;
  Env hang ("SWDLA_HANG_MS", "1:150");
  const auto t0 = Clock::now ();
  ASSERT_EQ (s.submit (stream), cudlaSuccess);
  ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
  EXPECT_GE (ms_since (t0), 140.0);
  EXPECT_EQ (cudlaGetLastError (s.dev), cudlaSuccess);
  /* and it computed its output: colours of an all-zero (black) input */
  const auto logits = swdla::unpack_tensor (s.model.outputs[0], s.read_output ().data ());
  EXPECT_EQ (logits[0], 0.f);
  EXPECT_EQ (logits[1], -12.f);
}

TEST (SwdlaFaults, BadVariablesAreIgnoredWithAWarning)
{
  Env fail ("SWDLA_TASK_ERROR", "not-a-rule");
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  Stream stream;
  EXPECT_EQ (s.submit (stream), cudlaSuccess);
  EXPECT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
  EXPECT_EQ (cudlaGetLastError (s.dev), cudlaSuccess);
}

}  // namespace
