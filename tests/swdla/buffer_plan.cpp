/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "buffer_plan.h"

#include <algorithm>

namespace swdla {
namespace {

/* Per tensor id: the last layer that reads it; layers.size () for an output's source (kept to the
 * end); -1 for a tensor nothing reads (a layer's own index for its unread result). */
std::vector<int64_t> last_uses (const Model &m)
{
  std::vector<int64_t> last (m.tensor_count (), -1);
  for (size_t j = 0; j < m.layers.size (); ++j) {
    last[size_t (m.result_id (j))] = int64_t (j);
    for (int32_t id : m.layers[j].inputs)
      last[size_t (id)] = int64_t (j);
  }
  for (const TensorSpec &o : m.outputs)
    last[size_t (o.source)] = int64_t (m.layers.size ());
  return last;
}

/* A free buffer for `floats` (the smallest that fits, else the largest, grown), or a new one. */
int take (BufferPlan *plan, std::vector<int> *free, int64_t floats)
{
  const auto size = [plan] (int s) { return plan->floats[size_t (s)]; };
  auto best = free->end ();
  for (auto it = free->begin (); it != free->end (); ++it) {
    if (best == free->end ()) {
      best = it;
      continue;
    }
    const bool fits = size (*it) >= floats, best_fits = size (*best) >= floats;
    if (fits != best_fits ? fits : fits ? size (*it) < size (*best) : size (*it) > size (*best))
      best = it;
  }
  if (best == free->end ()) {
    plan->floats.push_back (floats);
    return int (plan->floats.size () - 1);
  }
  const int s = *best;
  free->erase (best);
  plan->floats[size_t (s)] = std::max (plan->floats[size_t (s)], floats);
  return s;
}

}  // namespace

BufferPlan plan_buffers (const Model &m)
{
  const std::vector<int64_t> last = last_uses (m);
  BufferPlan plan;
  plan.slot.assign (m.tensor_count (), -1);
  std::vector<int> free;
  for (size_t id = 0; id < m.inputs.size (); ++id)
    if (last[id] >= 0)
      plan.slot[id] = take (&plan, &free, m.batch () * m.shapes[id].count ());
  for (size_t j = 0; j < m.layers.size (); ++j) {
    const size_t r = size_t (m.result_id (j));
    plan.slot[r] = take (&plan, &free, m.batch () * m.shapes[r].count ());
    /* After the result is placed: a layer never writes over what it reads. */
    std::vector<int32_t> done = m.layers[j].inputs;
    done.push_back (int32_t (r));
    std::sort (done.begin (), done.end ());
    done.erase (std::unique (done.begin (), done.end ()), done.end ());
    for (int32_t id : done)
      if (last[size_t (id)] == int64_t (j))
        free.push_back (plan.slot[size_t (id)]);
  }
  return plan;
}

}  // namespace swdla
