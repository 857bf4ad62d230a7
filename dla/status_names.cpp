/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/status_names.h"

#include <cuda_runtime_api.h>

#include <cstdio>

#include "dla/fatal.h"

namespace dla {

const char *cudla_status_symbol (int status)
{
  switch (status) {
#define NAME(v) \
  case v:       \
    return #v;
    NAME (cudlaSuccess)
    NAME (cudlaErrorInvalidParam)
    NAME (cudlaErrorOutOfResources)
    NAME (cudlaErrorCreationFailed)
    NAME (cudlaErrorInvalidAddress)
    NAME (cudlaErrorOs)
    NAME (cudlaErrorCuda)
    NAME (cudlaErrorUmd)
    NAME (cudlaErrorInvalidDevice)
    NAME (cudlaErrorInvalidAttribute)
    NAME (cudlaErrorIncompatibleDlaSWVersion)
    NAME (cudlaErrorMemoryRegistered)
    NAME (cudlaErrorInvalidModule)
    NAME (cudlaErrorUnsupportedOperation)
    NAME (cudlaErrorNvSci)
    NAME (cudlaErrorDriverNotFound)
    NAME (cudlaErrorDlaErrInvalidInput)
    NAME (cudlaErrorDlaErrInvalidPreAction)
    NAME (cudlaErrorDlaErrNoMem)
    NAME (cudlaErrorDlaErrProcessorBusy)
    NAME (cudlaErrorDlaErrTaskStatusMismatch)
    NAME (cudlaErrorDlaErrEngineTimeout)
    NAME (cudlaErrorDlaErrDataMismatch)
    NAME (cudlaErrorUnknown)
#undef NAME
  }
  return nullptr;
}

std::string cudla_status_name (int status)
{
  /* Hardware errors (0x4000000x) and the 0x7fffffff sentinel read better in hex, as NVIDIA prints them. */
  const bool hex = status >= 0x10000;
  char number[32];
  if (hex)
    std::snprintf (number, sizeof number, "0x%08x", unsigned (status));
  else
    std::snprintf (number, sizeof number, "%d", status);
  const char *sym = cudla_status_symbol (status);
  return std::string (sym ? sym : "unknown cudlaStatus") + " (" + number + ")";
}

std::string cudla_call_failed (const char *call, int status)
{
  return std::string (call) + " failed: " + cudla_status_name (status);
}

std::string cuda_error_name (int error)
{
  /* Named here too, so the message is right even where the runtime's table lacks it. */
  if (error == kCudaErrorExternalDevice)
    return "cudaErrorExternalDevice (911)";
  const char *name = cudaGetErrorName (static_cast<cudaError_t> (error));
  return std::string (name ? name : "unknown cudaError") + " (" + std::to_string (error) + ")";
}

std::string cuda_call_failed (const char *call, int error)
{
  return std::string (call) + " failed: " + cuda_error_name (error);
}

}  // namespace dla
