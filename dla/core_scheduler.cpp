/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/core_scheduler.h"

namespace dla {

using std::chrono::nanoseconds;

CoreScheduler::CoreScheduler (int cores) : cores_ (size_t (cores > 0 ? cores : 0)) {}

CoreScheduler::Core *CoreScheduler::core (int i)
{
  return i >= 0 && i < cores () ? &cores_[size_t (i)] : nullptr;
}

/* The duration an unknown core is assumed to take: the mean of the known ones, or one unit (only
 * the comparison matters) when none is known. */
nanoseconds CoreScheduler::assumed () const
{
  nanoseconds sum{0};
  int known = 0;
  for (const Core &c : cores_) {
    if (c.known) {
      sum += c.c.expected;
      ++known;
    }
  }
  return known ? sum / known : nanoseconds (1);
}

int CoreScheduler::pick (uint32_t allowed)
{
  std::lock_guard<std::mutex> lock (mutex_);
  const nanoseconds unknown = assumed ();
  int best = -1;
  nanoseconds best_end{0};
  for (int i = 0; i < cores (); ++i) {
    const Core &c = cores_[size_t (i)];
    if (c.c.failed || !(allowed & (1u << i)))
      continue;
    const nanoseconds end = (c.c.queued + 1) * (c.known ? c.c.expected : unknown);
    if (best < 0 || end < best_end) { /* strictly earlier: ties stay with the lower core */
      best = i;
      best_end = end;
    }
  }
  if (best >= 0)
    ++cores_[size_t (best)].c.queued;
  return best;
}

/* One of `core`'s tasks ended: out of its queue. nullptr for a bad index. */
CoreScheduler::Core *CoreScheduler::ended (int i)
{
  Core *c = core (i);
  if (c && c->c.queued > 0)
    --c->c.queued;
  return c;
}

void CoreScheduler::completed (int i, nanoseconds duration)
{
  if (duration <= nanoseconds (0))
    return dropped (i);
  std::lock_guard<std::mutex> lock (mutex_);
  Core *c = ended (i);
  if (!c)
    return;
  ++c->c.tasks;
  c->c.busy += duration;
  c->c.expected = c->known ? c->c.expected + (duration - c->c.expected) / kLearnDivisor : duration;
  if (c->c.expected <= nanoseconds (0)) /* so that a known core never reads as unknown (0) */
    c->c.expected = nanoseconds (1);
  c->known = true;
}

void CoreScheduler::dropped (int i)
{
  std::lock_guard<std::mutex> lock (mutex_);
  if (Core *c = ended (i))
    ++c->c.dropped;
}

void CoreScheduler::mark_failed (int i)
{
  std::lock_guard<std::mutex> lock (mutex_);
  if (Core *c = core (i))
    c->c.failed = true;
}

CoreCounters CoreScheduler::counters (int i) const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return i >= 0 && i < cores () ? cores_[size_t (i)].c : CoreCounters{};
}

}  // namespace dla
