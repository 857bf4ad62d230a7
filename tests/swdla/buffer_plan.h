/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla: which dense FP32 buffer holds each tensor of a graph, shared by the CPU and CUDA
 * executors. A buffer is reused once every reader of its tensor has run (liveness); a layer's
 * result never shares a buffer with its own inputs, and outputs' sources are kept to the end. */
#pragma once

#include <cstdint>
#include <vector>

#include "model.h"

namespace swdla {

struct BufferPlan {
  std::vector<int> slot;       /* per tensor id: its buffer; -1 for an input nothing reads */
  std::vector<int64_t> floats; /* per buffer: its size in floats (whole batch) */
};

BufferPlan plan_buffers (const Model &model);

}  // namespace swdla
