/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a frame's objects as DLA tasks. Pure: no GStreamer, no CUDA.
 *
 * The objects to classify (those the cache did not carry) fill tasks of up to `batch` objects (the
 * loadable's batch, the descriptor's n), in order; the last task may be partial (its remaining
 * batch slots are not read). Tasks go out in waves of `free_slots` (max-in-flight counts tasks):
 * wave w holds tasks w*free_slots .. (w+1)*free_slots-1. Zero objects: no task (the frame can be
 * pushed at once). At most kMaxObjectsPerFrame objects are planned (the rest are counted), so a
 * plan allocates at most that many indices and tasks. */
#pragma once

#include <cstdint>
#include <vector>

namespace dlainfer {
namespace objects {

struct PlannedTask {
  uint32_t first = 0; /* into WorkPlan::objects */
  uint32_t count = 0; /* 1..batch */
  uint32_t wave = 0;
};

struct WorkPlan {
  std::vector<uint32_t> objects; /* selected-object indices to classify, in order */
  std::vector<PlannedTask> tasks;
  uint32_t waves = 0;
  uint32_t carried = 0;  /* selected objects the cache carried: no task */
  uint32_t over_cap = 0; /* beyond kMaxObjectsPerFrame: not planned */
};

/* `classify[i]`: whether selected object i needs the model. `batch` and `free_slots` below 1 count
 * as 1. */
WorkPlan plan_work (const std::vector<bool> &classify, uint32_t batch, uint32_t free_slots);

}  // namespace objects
}  // namespace dlainfer
