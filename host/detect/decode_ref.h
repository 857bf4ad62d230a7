/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the CPU reference of the detection decode (kernels/detect_device.h has the GPU one,
 * with the same plan, frame and result). Candidates in index order (level, anchor, row, column); the
 * first max_candidates above their threshold are kept, the rest counted as dropped; sorted by score,
 * ties by index; greedy NMS (same class unless class-agnostic) until max_detections are kept; kept
 * boxes mapped to frame pixels and clipped. No GStreamer, no CUDA. */
#pragma once

#include "common/detect_plan.h"

namespace detect {

/* `frame.outputs` in host memory. Writes result_bytes (plan.max_detections) bytes of *out. */
void decode_reference (const Plan &plan, const Frame &frame, Result *out);

}  // namespace detect
