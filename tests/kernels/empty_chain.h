/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The floor under the detection decode's GPU time: two empty kernels of its two launches' shapes
 * (one thread per candidate of `candidates`, then one block of 1024), queued on `stream`. */
#pragma once

#include <cuda_runtime_api.h>

namespace detect_bench {

cudaError_t launch_empty_chain (int candidates, cudaStream_t stream);

}  // namespace detect_bench
