/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: per-track temporal smoothing of class scores (`smoothing`, docs/tracking.md).
 *
 * Each time a tracked object is classified, its activated class scores x are blended into its
 * state s: s = a s + (1 - a) x, the first time s = x; the top-k and threshold then run on s. With
 * a one-hot score moving from class A to class B, the label flips at the n-th classification that
 * says B, the least n with a^n < 1/2 (a = 0.5: 2, 0.7: 2, 0.8: 4, 0.9: 7, 0.95: 14).
 *
 * A track's state goes when its tracker says it is lost, when it was not updated for
 * ResultCache::kUnseenFrames frames, when it is the least recently updated one with the table
 * full (ResultCache::kDefaultCapacity tracks: the result cache's rules), on reset (flush, stream
 * start), and when the number of classes changes. Memory: capacity x classes floats, allocated at
 * the first update. Not thread-safe (ObjectFlow's mutex guards it). */
#pragma once

#include <glib.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace dlainfer {
namespace objects {

class ScoreSmoother {
 public:
  explicit ScoreSmoother (size_t capacity);

  /* `scores` of track `id` on frame `frame` (the result cache's frame count) blended into its
   * state with `factor` in [0, 1); `scores` becomes the state. */
  void apply (guint64 id, float factor, uint64_t frame, std::vector<float> *scores);
  void forget (guint64 id);
  void clear ();

  size_t size () const { return index_.size (); }
  size_t capacity () const { return slots_.size (); }
  uint64_t evicted () const { return evicted_; }

 private:
  struct Slot {
    guint64 id = 0;
    uint64_t updated_at = 0;
    bool used = false;
  };
  uint32_t take_slot (guint64 id, uint64_t frame);

  std::vector<Slot> slots_;
  std::vector<float> state_; /* slots x classes_ */
  size_t classes_ = 0;
  std::unordered_map<guint64, uint32_t> index_;
  uint64_t evicted_ = 0;
};

}  // namespace objects
}  // namespace dlainfer
