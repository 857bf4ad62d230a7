/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla: the small kernels that give a task its time and its status, all stream-ordered. */
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace swdla {

/* Busy-waits on the GPU for `ns` nanoseconds (emulated service time, hangs); the host goes on. */
cudaError_t enqueue_spin (cudaStream_t stream, uint64_t ns);

/* Stores `value` into mapped host memory (`word` is its device address) once the stream gets there. */
cudaError_t enqueue_store (cudaStream_t stream, int32_t *word, int32_t value);

/* The same store, as an argument: what a task writes when its work is done (its status). */
struct WordStore {
  int32_t *word;
  int32_t value;
  bool operator== (const WordStore &o) const { return word == o.word && value == o.value; }
};

}  // namespace swdla
