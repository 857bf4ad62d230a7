/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: whether a mapped memory:NVMM buffer is an NvBufSurface the import can read.
 *
 * CPU only (no CUDA, no GStreamer): the element checks each frame's surface before anything
 * touches it, and refuses, naming what it found and the way out (nvmm::kWayOut), a batch, a memory
 * type other than Jetson's surface arrays, an unknown layout, a colour format or size other than
 * the caps'. Rules: docs/nvmm.md 3. */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "host/status.h"
#include "nvmm/abi/nvbufsurface_abi.h"

namespace nvmm {

/* The two formats the element takes as NVMM. */
enum class Format { kNV12, kRGBA };

struct Expected {
  Format format;
  uint32_t width, height;
  /* NVBUF_MEM_DEFAULT means SURFACE_ARRAY on Jetson (aarch64 builds), CUDA_DEVICE on a discrete GPU. */
  bool default_is_surface_array;
};

/* What a Jetson build assumes of NVBUF_MEM_DEFAULT. */
constexpr bool kDefaultIsSurfaceArray =
#if defined(__aarch64__)
    true;
#else
    false;
#endif

const char *mem_type_name (int mem_type);
const char *layout_name (int layout);
const char *color_format_name (int color_format);

/* Ok when `data` (`size` bytes, a GstBuffer's mapping) is one NvBufSurface the import can read as
 * `e` says; else the refusal. Reads the structure only, never dataPtr. */
host::Status check_surface (const void *data, size_t size, const Expected &e);

}  // namespace nvmm
