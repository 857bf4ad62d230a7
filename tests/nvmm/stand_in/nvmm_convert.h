/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvmmstandinconvert (tests only, never installed): plays nvvidconv's part on a GPU host. It takes
 * NV12 or RGBA frames in system memory and writes each into an NvBufSurface of the NVMM stand-in
 * (DLAINFER_NVBUFSURFACE_LIBRARY), out as video/x-raw(memory:NVMM): block-linear (CUDA arrays) or
 * pitch-linear (block-linear=false), from a fixed pool of `pool-size` surfaces that come back only
 * when downstream releases them, as a decoder's do. */
#pragma once

#include <gst/gst.h>

#include <cstdint>

#include "tests/nvmm/stand_in/stand_in_api.h"

namespace nvmm_stand_in {

/* The stand-in's calls, from the same library the element loads (one instance in the process). */
struct Calls {
  decltype (&nvmmStandInCreate) create = nullptr;
  decltype (&nvmmStandInWrite) write = nullptr;
  decltype (&nvmmStandInDestroy) destroy = nullptr;
  decltype (&nvmmStandInCounters) counters = nullptr;
  decltype (&nvmmStandInLastRefusal) last_refusal = nullptr;
};
/* The library named by DLAINFER_NVBUFSURFACE_LIBRARY, opened once; null when it is not the stand-in. */
const Calls *calls ();

/* Registers nvmmstandinconvert in this process (no plugin file); true when it is there. */
bool register_convert ();

}  // namespace nvmm_stand_in
