/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: one CUDA driver entry point through the runtime (no link to libcuda), as the
 * CUDA 12 ABI names it. Shared by the primary-context code and swdla. */
#pragma once

#include <cuda_runtime_api.h>

namespace dla {

template <typename Fn>
bool driver_entry (const char *name, Fn *fn)
{
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  void *ptr = nullptr;
  if (cudaGetDriverEntryPointByVersion (name, &ptr, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return false;
  *fn = reinterpret_cast<Fn> (ptr);
  return true;
}

}  // namespace dla
