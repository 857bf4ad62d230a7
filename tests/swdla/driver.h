/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla: the few CUDA driver questions the contracts need (which context is current, what a
 * pointer is), through the runtime's driver entry points so nothing links libcuda.so. */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace swdla {

enum class ContextState {
  kPrimary, /* the current device's primary context is current */
  kNone,    /* nothing current yet: the runtime will use the primary context */
  kOther,   /* another context (e.g. gst_cuda_context_new's) is current */
  kError,   /* no driver or no device */
};
ContextState current_context (std::string *why);

/* Whether [ptr, ptr + size) lies inside one device allocation (cudaMalloc'ed memory). */
bool device_range_ok (const void *ptr, size_t size, std::string *why);

}  // namespace swdla
