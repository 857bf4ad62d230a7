/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla's contracts that need no GPU, through dlopen as the dla loader uses it: every symbol
 * present, identity, version and core count, hybrid only, NvSci refused, unknown handles and
 * modules refused, call-fault injection. No call here may touch CUDA (this runs in CI). */
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "dla/abi/cudla_abi.h"
#include "test_support.h"

namespace {

class Lib {
 public:
  Lib ()
  {
    const char *path = std::getenv ("DLAINFER_CUDLA_LIBRARY");
    handle_ = dlopen (path ? path : "libcudla.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle_)
      error_ = dlerror ();
  }
  ~Lib ()
  {
    if (handle_)
      dlclose (handle_);
  }
  template <typename Fn>
  Fn sym (const char *name) const
  {
    return reinterpret_cast<Fn> (dlsym (handle_, name));
  }
  bool ok () const { return handle_ != nullptr; }
  const std::string &error () const { return error_; }

 private:
  void *handle_ = nullptr;
  std::string error_;
};

const Lib &lib ()
{
  static Lib l;
  return l;
}

#define FN(name) (lib ().sym<decltype (&name)> (#name))

class AbiNoGpu : public testing::Test {
 protected:
  void SetUp () override { ASSERT_TRUE (lib ().ok ()) << "cannot dlopen swdla: " << lib ().error (); }
};

TEST_F (AbiNoGpu, ExportsAllSixteenEntryPointsAndItsOwn)
{
  for (const char *name : {"cudlaGetVersion",
                           "cudlaDeviceGetCount",
                           "cudlaCreateDevice",
                           "cudlaMemRegister",
                           "cudlaModuleLoadFromMemory",
                           "cudlaModuleGetAttributes",
                           "cudlaModuleUnload",
                           "cudlaSubmitTask",
                           "cudlaDeviceGetAttribute",
                           "cudlaMemUnregister",
                           "cudlaGetLastError",
                           "cudlaDestroyDevice",
                           "cudlaImportExternalMemory",
                           "cudlaGetNvSciSyncAttributes",
                           "cudlaImportExternalSemaphore",
                           "cudlaSetTaskTimeoutInMs",
                           "swdlaBackendName",
                           "swdlaExternalDeviceError",
                           "swdlaLastRefusal",
                           "swdlaSubmitCpuNs",
                           "swdlaSubmitCpuNsCore",
                           "swdlaQueueWaiters"})
    EXPECT_NE (lib ().sym<void *> (name), nullptr) << name;
  /* Nothing else leaks out (the CUDA runtime inside is static and hidden). */
  EXPECT_EQ (lib ().sym<void *> ("cudaMalloc"), nullptr);
}

TEST_F (AbiNoGpu, IdentifiesItself)
{
  const auto name = lib ().sym<const char *(*)()> ("swdlaBackendName");
  ASSERT_NE (name, nullptr);
  EXPECT_STREQ (name (), "swdla");
  const auto ext = lib ().sym<int (*) ()> ("swdlaExternalDeviceError");
  EXPECT_EQ (ext (), 0);
  const auto waiters = lib ().sym<int (*) ()> ("swdlaQueueWaiters");
  ASSERT_NE (waiters, nullptr);
  EXPECT_EQ (waiters (), 0) << "no submit waits for a queue slot";
}

TEST_F (AbiNoGpu, VersionAndCores)
{
  uint64_t v = 0;
  EXPECT_EQ (FN (cudlaGetVersion) (&v), cudlaSuccess);
  EXPECT_EQ (v, 13000000u);
  EXPECT_EQ (FN (cudlaGetVersion) (nullptr), cudlaErrorInvalidParam);
  unsetenv ("SWDLA_NUM_CORES");
  uint64_t n = 0;
  EXPECT_EQ (FN (cudlaDeviceGetCount) (&n), cudlaSuccess);
  EXPECT_EQ (n, 2u);
  setenv ("SWDLA_NUM_CORES", "3", 1);
  EXPECT_EQ (FN (cudlaDeviceGetCount) (&n), cudlaSuccess);
  EXPECT_EQ (n, 3u);
  unsetenv ("SWDLA_NUM_CORES");
  EXPECT_EQ (FN (cudlaDeviceGetCount) (nullptr), cudlaErrorInvalidParam);
}

TEST_F (AbiNoGpu, HybridOnlyAndCoreRange)
{
  cudlaDevHandle h = nullptr;
  EXPECT_EQ (FN (cudlaCreateDevice) (0, &h, CUDLA_STANDALONE), cudlaErrorUnsupportedOperation);
  EXPECT_EQ (FN (cudlaCreateDevice) (0, &h, 7), cudlaErrorInvalidParam);
  EXPECT_EQ (FN (cudlaCreateDevice) (2, &h, CUDLA_CUDA_DLA), cudlaErrorInvalidParam); /* 2 cores: 0, 1 */
  EXPECT_EQ (FN (cudlaCreateDevice) (0, nullptr, CUDLA_CUDA_DLA), cudlaErrorInvalidParam);
  EXPECT_EQ (h, nullptr);
  const auto refusal = lib ().sym<const char *(*)()> ("swdlaLastRefusal");
  EXPECT_NE (std::string (refusal ()).find ("cudlaCreateDevice"), std::string::npos) << refusal ();
  uint64_t n = 0;
  EXPECT_EQ (FN (cudlaGetVersion) (&n), cudlaSuccess);
  EXPECT_STREQ (refusal (), ""); /* reset by the next call */
}

TEST_F (AbiNoGpu, NvSciEntryPointsAreStandaloneOnly)
{
  EXPECT_EQ (FN (cudlaGetNvSciSyncAttributes) (nullptr, CUDLA_NVSCISYNC_ATTR_WAIT),
             cudlaErrorUnsupportedOperation);
  /* With an unknown handle the handle is refused first. */
  int dummy = 0;
  auto bogus = reinterpret_cast<cudlaDevHandle> (&dummy);
  uint64_t *p = nullptr;
  EXPECT_EQ (FN (cudlaImportExternalMemory) (bogus, nullptr, &p, 0), cudlaErrorInvalidDevice);
  EXPECT_EQ (FN (cudlaImportExternalSemaphore) (bogus, nullptr, &p, 0), cudlaErrorInvalidDevice);
}

/* The frames-in-flight settings leave a refused submit alone: no CPU burnt (SWDLA_SUBMIT_CPU_US is
 * for accepted submits), no wait for a slot (SWDLA_QUEUE_FULL=block), the usual status. */
TEST_F (AbiNoGpu, RefusedSubmitBurnsNoCpuAndNeverWaits)
{
  int dummy[64] = {};
  auto h = reinterpret_cast<cudlaDevHandle> (dummy);
  cudlaTask task{};
  setenv ("SWDLA_SUBMIT_CPU_US", "200000", 1);
  setenv ("SWDLA_QUEUE_LIMIT", "1", 1);
  setenv ("SWDLA_QUEUE_FULL", "block", 1);
  const auto counted = lib ().sym<uint64_t (*) ()> ("swdlaSubmitCpuNs");
  ASSERT_NE (counted, nullptr);
  const uint64_t before = counted ();
  EXPECT_EQ (FN (cudlaSubmitTask) (h, &task, 1, dummy, 0), cudlaErrorInvalidDevice);
  EXPECT_LT (counted () - before, 100000000u) << "a refused submit burnt SWDLA_SUBMIT_CPU_US";
  unsetenv ("SWDLA_SUBMIT_CPU_US");
  unsetenv ("SWDLA_QUEUE_LIMIT");
  unsetenv ("SWDLA_QUEUE_FULL");
}

TEST_F (AbiNoGpu, UnknownHandlesAndModulesAreRefusedWithoutTouchingThem)
{
  int dummy[64] = {};
  auto h = reinterpret_cast<cudlaDevHandle> (dummy);
  auto m = reinterpret_cast<cudlaModule> (dummy);
  uint64_t *dla = nullptr;
  uint64_t buf[4] = {};
  cudlaModule mod = nullptr;
  cudlaModuleAttribute attr{};
  cudlaDevAttribute dattr{};
  cudlaTask task{};
  EXPECT_EQ (FN (cudlaMemRegister) (h, buf, 32, &dla, 0), cudlaErrorInvalidDevice);
  EXPECT_EQ (FN (cudlaMemUnregister) (h, buf), cudlaErrorInvalidDevice);
  EXPECT_EQ (FN (cudlaModuleLoadFromMemory) (h, reinterpret_cast<const uint8_t *> ("SWDLAMDL"), 8, &mod, 0),
             cudlaErrorInvalidDevice);
  EXPECT_EQ (FN (cudlaModuleGetAttributes) (m, CUDLA_NUM_INPUT_TENSORS, &attr), cudlaErrorInvalidModule);
  EXPECT_EQ (FN (cudlaModuleGetAttributes) (nullptr, CUDLA_NUM_INPUT_TENSORS, &attr),
             cudlaErrorInvalidModule);
  EXPECT_EQ (FN (cudlaModuleUnload) (m, 0), cudlaErrorInvalidModule);
  EXPECT_EQ (FN (cudlaSubmitTask) (h, &task, 1, dummy, 0), cudlaErrorInvalidDevice);
  EXPECT_EQ (FN (cudlaDeviceGetAttribute) (h, CUDLA_DEVICE_VERSION, &dattr), cudlaErrorInvalidDevice);
  EXPECT_EQ (FN (cudlaGetLastError) (h), cudlaErrorInvalidDevice);
  EXPECT_EQ (FN (cudlaGetLastError) (nullptr), cudlaErrorInvalidDevice);
  EXPECT_EQ (FN (cudlaDestroyDevice) (h), cudlaErrorInvalidDevice);
  EXPECT_EQ (FN (cudlaDestroyDevice) (nullptr), cudlaErrorInvalidDevice);
  EXPECT_EQ (FN (cudlaSetTaskTimeoutInMs) (h, 100), cudlaErrorInvalidDevice);
  EXPECT_EQ (dummy[0], 0); /* never written through */
}

TEST_F (AbiNoGpu, FailCallInjection)
{
  setenv ("SWDLA_FAIL_CALL", "cudlaGetVersion:2:cudlaErrorUmd,cudlaDeviceGetCount:1:0x40000004", 1);
  uint64_t v = 0;
  EXPECT_EQ (FN (cudlaGetVersion) (&v), cudlaSuccess);
  EXPECT_EQ (FN (cudlaGetVersion) (&v), cudlaErrorUmd);
  EXPECT_EQ (FN (cudlaGetVersion) (&v), cudlaSuccess);
  EXPECT_EQ (FN (cudlaDeviceGetCount) (&v), cudlaErrorDlaErrProcessorBusy);
  const auto refusal = lib ().sym<const char *(*)()> ("swdlaLastRefusal");
  EXPECT_NE (std::string (refusal ()).find ("SWDLA_FAIL_CALL"), std::string::npos) << refusal ();
  unsetenv ("SWDLA_FAIL_CALL");
  EXPECT_EQ (FN (cudlaDeviceGetCount) (&v), cudlaSuccess);
}

}  // namespace
