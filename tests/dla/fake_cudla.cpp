/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A stand-in libcudla for the loader's unit tests (no GPU, no cuDLA work): built three ways.
 *   FAKE_PARTIAL  exports only cudlaGetVersion and cudlaDeviceGetCount (a library lacking symbols)
 *   FAKE_FULL     exports the 12 hybrid-mode entry points (+ cudlaSetTaskTimeoutInMs)
 *   FAKE_SWDLA    FAKE_FULL plus swdlaBackendName, as swdla identifies itself */
#include "dla/abi/cudla_abi.h"

#define EXPORT extern "C" __attribute__ ((visibility ("default")))

EXPORT cudlaStatus cudlaGetVersion (uint64_t *const version)
{
  *version = 1002001; /* 1.2.1 */
  return cudlaSuccess;
}

EXPORT cudlaStatus cudlaDeviceGetCount (uint64_t *const n)
{
  *n = 2;
  return cudlaSuccess;
}

#if defined(FAKE_FULL) || defined(FAKE_SWDLA)
EXPORT cudlaStatus cudlaCreateDevice (uint64_t const, cudlaDevHandle *const, uint32_t const)
{
  return cudlaErrorUnsupportedOperation;
}
EXPORT cudlaStatus cudlaMemRegister (cudlaDevHandle const, const uint64_t *const, size_t const,
                                     uint64_t **const, uint32_t const)
{
  return cudlaErrorInvalidDevice;
}
EXPORT cudlaStatus cudlaModuleLoadFromMemory (cudlaDevHandle const, const uint8_t *const, size_t const,
                                              cudlaModule *const, uint32_t const)
{
  return cudlaErrorInvalidDevice;
}
EXPORT cudlaStatus cudlaModuleGetAttributes (cudlaModule const, cudlaModuleAttributeType const,
                                             cudlaModuleAttribute *const)
{
  return cudlaErrorInvalidModule;
}
EXPORT cudlaStatus cudlaModuleUnload (cudlaModule const, uint32_t const)
{
  return cudlaErrorInvalidModule;
}
EXPORT cudlaStatus cudlaSubmitTask (cudlaDevHandle const, const cudlaTask *const, uint32_t const, void *const,
                                    uint32_t const)
{
  return cudlaErrorInvalidDevice;
}
EXPORT cudlaStatus cudlaDeviceGetAttribute (cudlaDevHandle const, cudlaDevAttributeType const,
                                            cudlaDevAttribute *const)
{
  return cudlaErrorInvalidDevice;
}
EXPORT cudlaStatus cudlaMemUnregister (cudlaDevHandle const, const uint64_t *const)
{
  return cudlaErrorInvalidDevice;
}
EXPORT cudlaStatus cudlaGetLastError (cudlaDevHandle const)
{
  return cudlaErrorInvalidDevice;
}
EXPORT cudlaStatus cudlaDestroyDevice (cudlaDevHandle const)
{
  return cudlaErrorInvalidDevice;
}
EXPORT cudlaStatus cudlaSetTaskTimeoutInMs (cudlaDevHandle const, uint32_t const)
{
  return cudlaErrorInvalidDevice;
}
#endif

#ifdef FAKE_SWDLA
EXPORT const char *swdlaBackendName (void)
{
  return "swdla";
}
#endif
