/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: detection decode on the GPU (docs/detection.md 4), on the caller's stream, reading
 * the outputs in their DLA layout: candidates decoded and compacted (bounded, overflow counted),
 * sorted by score, class-aware greedy NMS, boxes mapped to frame pixels and clipped, into a Result
 * in device memory that the caller copies to pinned host memory behind it. Two kernel launches and
 * no host synchronisation: the decode (one thread a candidate; a block's few survivors of the logit
 * test spread over its warps, a warp decoding each, or over groups of 8 lanes where there are more
 * than warps; one atomic per warp to append), then the
 * NMS over a grid of blocks (each sorts the kept candidates and builds its share of the
 * suppression bit matrix; the last to finish scans it with one warp; with few candidates the first
 * block does it all alone). host/detect/decode_ref.h is its
 * reference: the same plan, frame and result, the same per-candidate math (common/detect_math.h); the
 * detections agree in order, class and score to float rounding, unless more than max_candidates pass (which
 * ones are kept then depends on the GPU's order; the counts agree). CUDA builds only. */
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "common/detect_plan.h"

namespace detect {

/* Device memory one decoder needs: a copy of the plan, the candidate counter and buffer. */
size_t workspace_bytes (const Plan &plan);

/* Copies the plan into `workspace` (workspace_bytes (plan) of device memory), zeroes its counters
 * and sets the NMS kernel's shared memory for the plan; synchronous, once before the first decode
 * (and after any decode that did not finish). */
cudaError_t prepare_workspace (const Plan &plan, void *workspace);

/* Queues the decode of one frame on `stream`: `frame.outputs` in device memory, written by work
 * ordered before it on `stream`; result_bytes (plan.max_detections) bytes written at `result`
 * (device memory). Decodes on one workspace are serialised by their stream. */
cudaError_t decode_device (const Plan &plan, const Frame &frame, void *workspace, Result *result,
                           cudaStream_t stream);

}  // namespace detect
