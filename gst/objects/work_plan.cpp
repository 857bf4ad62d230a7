/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/objects/work_plan.h"

#include <algorithm>

#include "gst/objects/selection.h"

namespace dlainfer {
namespace objects {

WorkPlan plan_work (const std::vector<bool> &classify, uint32_t batch, uint32_t free_slots)
{
  batch = std::max<uint32_t> (batch, 1);
  free_slots = std::max<uint32_t> (free_slots, 1);
  WorkPlan plan;
  const size_t wanted = size_t (std::count (classify.begin (), classify.end (), true));
  plan.objects.reserve (std::min<size_t> (wanted, kMaxObjectsPerFrame));
  for (size_t i = 0; i < classify.size (); ++i) {
    if (!classify[i])
      ++plan.carried;
    else if (plan.objects.size () < kMaxObjectsPerFrame)
      plan.objects.push_back (uint32_t (i));
    else
      ++plan.over_cap;
  }
  const uint32_t n = uint32_t (plan.objects.size ());
  const uint32_t n_tasks = (n + batch - 1) / batch;
  plan.tasks.reserve (n_tasks);
  for (uint32_t t = 0; t < n_tasks; ++t)
    plan.tasks.push_back ({t * batch, std::min (batch, n - t * batch), t / free_slots});
  plan.waves = (n_tasks + free_slots - 1) / free_slots;
  return plan;
}

}  // namespace objects
}  // namespace dlainfer
