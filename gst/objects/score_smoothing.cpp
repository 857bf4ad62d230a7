/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: per-track EWMA of class scores (score_smoothing.h). */
#include "gst/objects/score_smoothing.h"

#include <algorithm>

#include "gst/objects/result_cache.h"

namespace dlainfer {
namespace objects {

ScoreSmoother::ScoreSmoother (size_t capacity) : slots_ (std::max<size_t> (capacity, 1))
{
  index_.reserve (slots_.size ());
}

/* A free slot, else the least recently updated one's (a scan: only when a new track arrives with
 * the table full). */
uint32_t ScoreSmoother::take_slot (guint64 id, uint64_t frame)
{
  uint32_t best = 0;
  for (uint32_t i = 0; i < slots_.size (); ++i) {
    if (!slots_[i].used) {
      best = i;
      break;
    }
    if (slots_[i].updated_at < slots_[best].updated_at)
      best = i;
  }
  Slot &s = slots_[best];
  if (s.used) {
    index_.erase (s.id);
    ++evicted_;
  }
  s = {id, frame, true};
  index_[id] = best;
  return best;
}

void ScoreSmoother::apply (guint64 id, float factor, uint64_t frame, std::vector<float> *scores)
{
  if (scores->size () != classes_) {
    clear ();
    classes_ = scores->size ();
    state_.assign (slots_.size () * classes_, 0.f);
  }
  auto it = index_.find (id);
  bool fresh = it == index_.end ();
  uint32_t slot = fresh ? take_slot (id, frame) : it->second;
  Slot &s = slots_[slot];
  if (!fresh && frame - s.updated_at > ResultCache::kUnseenFrames) {
    fresh = true; /* the track was gone long enough for the cache to forget it */
    ++evicted_;
  }
  s.updated_at = frame;
  float *state = &state_[size_t (slot) * classes_];
  const float keep = fresh ? 0.f : factor;
  for (size_t c = 0; c < classes_; ++c) {
    state[c] = keep * state[c] + (1.f - keep) * (*scores)[c];
    (*scores)[c] = state[c];
  }
}

void ScoreSmoother::forget (guint64 id)
{
  auto it = index_.find (id);
  if (it == index_.end ())
    return;
  slots_[it->second].used = false;
  index_.erase (it);
}

void ScoreSmoother::clear ()
{
  for (Slot &s : slots_)
    s.used = false;
  index_.clear ();
}

}  // namespace objects
}  // namespace dlainfer
