/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The emulated external-device error (README.md, contract 3): swdlaExternalDeviceError() turns 911
 * once the faulty task has completed on its stream, stays so, cudlaGetLastError names the DLA
 * code, and every later call that needs CUDA returns cudlaErrorCuda. Alone in its program: the
 * process stays "poisoned", like a real one. */
#include <gtest/gtest.h>

#include "gpu_helpers.h"

namespace {

using swdla_test::describe;
using swdla_test::Env;
using swdla_test::Session;
using swdla_test::Stream;

TEST (SwdlaExternalError, SyncSeamSees911AfterTheFaultyTask)
{
  Session s;
  ASSERT_EQ (s.open ("colours"), "");
  Stream stream;
  ASSERT_EQ (s.submit (stream), cudlaSuccess);
  ASSERT_EQ (cudaStreamSynchronize (stream), cudaSuccess);
  EXPECT_EQ (swdlaExternalDeviceError (), 0);
  {
    Env fault ("SWDLA_EXTERNAL_DEVICE_ERROR", "1:cudlaErrorDlaErrInvalidPreAction"); /* 1st task from now */
    Env slow ("SWDLA_SERVICE_US", "300000");
    ASSERT_EQ (s.submit (stream), cudlaSuccess);
    EXPECT_EQ (swdlaExternalDeviceError (), 0) << "911 must not appear before the faulty task ran";
    cudaEvent_t done;
    ASSERT_EQ (cudaEventCreateWithFlags (&done, cudaEventBlockingSync | cudaEventDisableTiming), cudaSuccess);
    ASSERT_EQ (cudaEventRecord (done, stream), cudaSuccess);
    /* What the dla sync seam does: synchronise, then ask swdla. */
    EXPECT_EQ (cudaEventSynchronize (done), cudaSuccess);
    EXPECT_EQ (swdlaExternalDeviceError (), 911);
    cudaEventDestroy (done);
  }
  const cudlaStatus last = cudlaGetLastError (s.dev);
  EXPECT_EQ (last, cudlaErrorDlaErrInvalidPreAction) << describe (last);
  EXPECT_EQ (swdlaExternalDeviceError (), 911) << "sticky, like the real error";
  EXPECT_EQ (s.submit (stream), cudlaErrorCuda) << swdlaLastRefusal ();
  cudlaDevHandle h = nullptr;
  EXPECT_EQ (cudlaCreateDevice (1, &h, CUDLA_CUDA_DLA), cudlaErrorCuda);
  /* Teardown still works, so the element can release what it holds. */
  EXPECT_EQ (s.close (), cudlaSuccess) << swdlaLastRefusal ();
}

}  // namespace
