/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Two readings of CUDA's and cuDLA's statuses that the GPU suite cannot test (it has a working
 * GPU): the device probe's classification of every cudaGetDeviceCount outcome, and the GPU
 * programs' run, skip or fail on it (a broken driver must never read as "no GPU": the whole GPU suite
 * would skip); how a task that ended is reported (a hung task times out, it is not the fatal 911).
 * CPU only: the functions are pure. */
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "dla/abi/cudla_abi.h"
#include "dla/fatal.h"
#include "dla/primary_context.h"

namespace {

using dla::CudaState;
using dla::GpuGate;

constexpr int kRuntime = 13000; /* CUDA 13.0 */

TEST (CudaProbe, DevicesPresentRun)
{
  for (int count : {1, 2, 8}) {
    const dla::CudaProbe p = dla::classify_cuda_probe (cudaSuccess, count, nullptr, "", kRuntime);
    EXPECT_EQ (p.state, CudaState::kAvailable);
    EXPECT_EQ (p.count, count);
    EXPECT_EQ (dla::gpu_gate (p.state, false), GpuGate::kRun);
    EXPECT_EQ (dla::gpu_gate (p.state, true), GpuGate::kRun);
  }
}

TEST (CudaProbe, NoDeviceSkipsUnlessAGpuIsRequired)
{
  for (int err : {int (cudaSuccess), int (cudaErrorNoDevice)}) {
    const dla::CudaProbe p = dla::classify_cuda_probe (err, 0, nullptr, "", kRuntime);
    EXPECT_EQ (p.state, CudaState::kNoDevice) << err;
    EXPECT_EQ (p.count, 0);
    EXPECT_NE (p.why.find ("no CUDA device present"), std::string::npos) << p.why;
    EXPECT_EQ (dla::gpu_gate (p.state, false), GpuGate::kSkip);
    EXPECT_EQ (dla::gpu_gate (p.state, true), GpuGate::kFail);
  }
}

TEST (CudaProbe, HiddenDevicesFail)
{
  for (const char *visible : {"-1", "", "7"}) {
    const dla::CudaProbe p = dla::classify_cuda_probe (cudaErrorNoDevice, 0, visible, "", kRuntime);
    EXPECT_EQ (p.state, CudaState::kHidden);
    EXPECT_NE (p.why.find (std::string ("CUDA_VISIBLE_DEVICES=\"") + visible + "\""), std::string::npos)
        << p.why;
    EXPECT_EQ (dla::gpu_gate (p.state, false), GpuGate::kFail);
  }
}

TEST (CudaProbe, InsufficientDriverIsNoDriverOrTooOld)
{
  dla::CudaProbe p = dla::classify_cuda_probe (cudaErrorInsufficientDriver, 0, nullptr, "", kRuntime);
  EXPECT_EQ (p.state, CudaState::kNoDriver);
  EXPECT_NE (p.why.find ("libcuda.so.1"), std::string::npos) << p.why;
  EXPECT_EQ (dla::gpu_gate (p.state, false), GpuGate::kSkip);
  EXPECT_EQ (dla::gpu_gate (p.state, true), GpuGate::kFail);
  p = dla::classify_cuda_probe (cudaErrorInsufficientDriver, 0, nullptr, "12.4", kRuntime);
  EXPECT_EQ (p.state, CudaState::kDriverTooOld);
  EXPECT_NE (p.why.find ("supports CUDA 12.4 but this build needs CUDA 13.0"), std::string::npos) << p.why;
  EXPECT_EQ (dla::gpu_gate (p.state, false), GpuGate::kFail);
}

/* Every other status the runtime can return (a broken driver, a mismatch, a failed init, ...) is
 * an error that fails the GPU programs, named in the reason; a device count beside it is ignored. */
TEST (CudaProbe, EveryOtherStatusIsABrokenSetupThatFails)
{
  int others = 0;
  for (int err = 1; err < 1000; ++err) {
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
      continue;
    const char *name = cudaGetErrorName (cudaError_t (err));
    if (!name || std::strstr (name, "unrecognized"))
      continue;
    for (int count : {0, 1}) {
      const dla::CudaProbe p = dla::classify_cuda_probe (err, count, nullptr, "13.0", kRuntime);
      EXPECT_EQ (p.state, CudaState::kError) << name;
      EXPECT_EQ (p.count, 0) << name;
      EXPECT_NE (p.why.find (name), std::string::npos) << p.why;
      EXPECT_EQ (dla::gpu_gate (p.state, false), GpuGate::kFail) << name << " would skip the GPU suite";
    }
    ++others;
  }
  EXPECT_GT (others, 50) << "the runtime names fewer statuses than expected";
}

/* ---- a task that ended ---- */

TEST (TaskEnd, HungTaskTimesOutAndIsNotFatal)
{
  EXPECT_EQ (dla::classify_task_end (cudaSuccess, cudlaErrorDlaErrEngineTimeout, 0), dla::TaskEnd::kTimedOut);
}

TEST (TaskEnd, ExternalDeviceErrorIsFatalSeenOrEmulated)
{
  EXPECT_EQ (dla::classify_task_end (dla::kCudaErrorExternalDevice, cudlaSuccess, 0), dla::TaskEnd::kFatal);
  EXPECT_EQ (dla::classify_task_end (dla::kCudaErrorExternalDevice, cudlaErrorDlaErrEngineTimeout, 0),
             dla::TaskEnd::kFatal);
  EXPECT_EQ (
      dla::classify_task_end (cudaSuccess, cudlaErrorDlaErrInvalidInput, dla::kCudaErrorExternalDevice),
      dla::TaskEnd::kFatal);
}

TEST (TaskEnd, OtherFailuresAreNeitherFatalNorTimeouts)
{
  EXPECT_EQ (dla::classify_task_end (cudaSuccess, cudlaSuccess, 0), dla::TaskEnd::kDone);
  /* An emulated error is asked only when cuDLA reports a failure. */
  EXPECT_EQ (dla::classify_task_end (cudaSuccess, cudlaSuccess, dla::kCudaErrorExternalDevice),
             dla::TaskEnd::kDone);
  EXPECT_EQ (dla::classify_task_end (cudaSuccess, cudlaErrorDlaErrInvalidInput, 0), dla::TaskEnd::kFailed);
  for (int err = 1; err < 1000; ++err) {
    if (err != dla::kCudaErrorExternalDevice) {
      EXPECT_NE (dla::classify_task_end (err, cudlaSuccess, 0), dla::TaskEnd::kFatal) << err;
    }
  }
  EXPECT_EQ (dla::classify_task_end (cudaErrorLaunchFailure, cudlaErrorDlaErrEngineTimeout, 0),
             dla::TaskEnd::kFailed);
  EXPECT_FALSE (dla::process_poisoned ()) << "classifying poisons nothing";
}

}  // namespace
