/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every cudlaStatus value has its name and number; hardware errors in hex; unknowns as numbers. */
#include "dla/status_names.h"

#include <gtest/gtest.h>

#include "dla/fatal.h"

namespace {

struct Expected {
  int value;
  const char *text;
};

TEST (StatusNames, EveryCudlaStatus)
{
  const Expected all[] = {
      {cudlaSuccess, "cudlaSuccess (0)"},
      {cudlaErrorInvalidParam, "cudlaErrorInvalidParam (1)"},
      {cudlaErrorOutOfResources, "cudlaErrorOutOfResources (2)"},
      {cudlaErrorCreationFailed, "cudlaErrorCreationFailed (3)"},
      {cudlaErrorInvalidAddress, "cudlaErrorInvalidAddress (4)"},
      {cudlaErrorOs, "cudlaErrorOs (5)"},
      {cudlaErrorCuda, "cudlaErrorCuda (6)"},
      {cudlaErrorUmd, "cudlaErrorUmd (7)"},
      {cudlaErrorInvalidDevice, "cudlaErrorInvalidDevice (8)"},
      {cudlaErrorInvalidAttribute, "cudlaErrorInvalidAttribute (9)"},
      {cudlaErrorIncompatibleDlaSWVersion, "cudlaErrorIncompatibleDlaSWVersion (10)"},
      {cudlaErrorMemoryRegistered, "cudlaErrorMemoryRegistered (11)"},
      {cudlaErrorInvalidModule, "cudlaErrorInvalidModule (12)"},
      {cudlaErrorUnsupportedOperation, "cudlaErrorUnsupportedOperation (13)"},
      {cudlaErrorNvSci, "cudlaErrorNvSci (14)"},
      {cudlaErrorDriverNotFound, "cudlaErrorDriverNotFound (15)"},
      {cudlaErrorDlaErrInvalidInput, "cudlaErrorDlaErrInvalidInput (0x40000001)"},
      {cudlaErrorDlaErrInvalidPreAction, "cudlaErrorDlaErrInvalidPreAction (0x40000002)"},
      {cudlaErrorDlaErrNoMem, "cudlaErrorDlaErrNoMem (0x40000003)"},
      {cudlaErrorDlaErrProcessorBusy, "cudlaErrorDlaErrProcessorBusy (0x40000004)"},
      {cudlaErrorDlaErrTaskStatusMismatch, "cudlaErrorDlaErrTaskStatusMismatch (0x40000005)"},
      {cudlaErrorDlaErrEngineTimeout, "cudlaErrorDlaErrEngineTimeout (0x40000006)"},
      {cudlaErrorDlaErrDataMismatch, "cudlaErrorDlaErrDataMismatch (0x40000007)"},
      {cudlaErrorUnknown, "cudlaErrorUnknown (0x7fffffff)"},
  };
  EXPECT_EQ (sizeof all / sizeof all[0], 24u); /* 23 in cuda-python's test, + DriverNotFound */
  for (const Expected &e : all) {
    EXPECT_EQ (dla::cudla_status_name (e.value), e.text);
    EXPECT_NE (dla::cudla_status_symbol (e.value), nullptr) << e.text;
  }
}

TEST (StatusNames, UnknownValuesAsNumbers)
{
  EXPECT_EQ (dla::cudla_status_name (16), "unknown cudlaStatus (16)");
  EXPECT_EQ (dla::cudla_status_name (0x40000008), "unknown cudlaStatus (0x40000008)");
  EXPECT_EQ (dla::cudla_status_name (-42), "unknown cudlaStatus (-42)");
  EXPECT_EQ (dla::cudla_status_symbol (16), nullptr);
}

TEST (StatusNames, CallFailed)
{
  EXPECT_EQ (dla::cudla_call_failed ("cudlaCreateDevice", cudlaErrorInvalidDevice),
             "cudlaCreateDevice failed: cudlaErrorInvalidDevice (8)");
  EXPECT_EQ (dla::cudla_call_failed ("cudlaSubmitTask", cudlaErrorDlaErrEngineTimeout),
             "cudlaSubmitTask failed: cudlaErrorDlaErrEngineTimeout (0x40000006)");
}

TEST (StatusNames, CudaErrors)
{
  EXPECT_EQ (dla::cuda_error_name (911), "cudaErrorExternalDevice (911)");
  EXPECT_EQ (dla::cuda_error_name (dla::kCudaErrorExternalDevice), "cudaErrorExternalDevice (911)");
  EXPECT_EQ (dla::cuda_error_name (2), "cudaErrorMemoryAllocation (2)");
  EXPECT_EQ (dla::cuda_call_failed ("cudaMalloc", 2), "cudaMalloc failed: cudaErrorMemoryAllocation (2)");
}

}  // namespace
