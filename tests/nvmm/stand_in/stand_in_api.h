/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The NVMM stand-in's own calls (tests only, never installed): what a test and the fake converter
 * element use to make surfaces and to read the counters. The library also exports the
 * NvBufSurface and CUDA EGL-interop calls the element imports with (docs/nvmm.md 7). */
#pragma once

#include <cstdint>

#include "nvmm/abi/nvbufsurface_abi.h"

/* Counters since the library loaded (nvmmStandInCounters fills them in this order). */
enum NvmmStandInCounter {
  kStandInEglMaps,
  kStandInEglUnmaps,
  kStandInRegisters,
  kStandInUnregisters,
  kStandInMappedFrames,  /* cuGraphicsResourceGetMappedEglFrame calls */
  kStandInLiveSurfaces,  /* created, not destroyed */
  kStandInLiveEglImages, /* mapped, not unmapped */
  kStandInLiveResources, /* registered, not unregistered */
  kStandInViolations,    /* calls the real API would refuse or that leave it broken */
  kStandInCounterCount
};

extern "C" {
/* A SURFACE_ARRAY surface of one buffer: NV12 or RGBA (colorFormat), pitch-linear (device memory,
 * Jetson-like 256-byte pitches) or block-linear (CUDA arrays). 0 on success. */
int nvmmStandInCreate (uint32_t width, uint32_t height, int color_format, int layout,
                       nvmm::NvBufSurface **out);
/* Writes host planes (pitches in bytes) into the surface, synchronously. */
int nvmmStandInWrite (nvmm::NvBufSurface *surf, const uint8_t *const *planes, const int32_t *pitches);
/* Destroys it; a surface still EGL-mapped or registered is a violation (and is refused). */
int nvmmStandInDestroy (nvmm::NvBufSurface *surf);
void nvmmStandInCounters (uint64_t out[kStandInCounterCount]);
/* The last refusal's reason, or "". */
const char *nvmmStandInLastRefusal (void);
}
