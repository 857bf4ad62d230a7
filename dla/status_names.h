/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: names for cuDLA and CUDA status values, as users see them in error messages:
 * "cudlaErrorInvalidDevice (8)", hardware errors in hex "cudlaErrorDlaErrEngineTimeout (0x40000006)",
 * unknown values as numbers. */
#pragma once

#include <string>

#include "dla/abi/cudla_abi.h"

namespace dla {

/* The enumerator's name ("cudlaErrorInvalidDevice"), or nullptr for a value NVIDIA's headers lack. */
const char *cudla_status_symbol (int status);

/* "cudlaErrorInvalidDevice (8)", "cudlaErrorDlaErrEngineTimeout (0x40000006)",
 * "unknown cudlaStatus (77)" / "unknown cudlaStatus (0x40000009)". */
std::string cudla_status_name (int status);

/* "cudlaCreateDevice failed: cudlaErrorInvalidDevice (8)". */
std::string cudla_call_failed (const char *call, int status);

/* "cudaErrorExternalDevice (911)": the CUDA runtime's name, with the number. The one formatter of
 * CUDA errors: every message that names one goes through it. */
std::string cuda_error_name (int error);

/* "cudaMalloc failed: cudaErrorMemoryAllocation (2)". */
std::string cuda_call_failed (const char *call, int error);

}  // namespace dla
