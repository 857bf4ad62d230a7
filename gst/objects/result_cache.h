/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the last result of each tracked object (`reclassify-interval`).
 *
 * Keyed by tracking id. An object classified on frame f carries that result on frames f+1 ..
 * f+interval (marked carried, age = frames since f) and is classified again on frame f+interval+1,
 * or sooner when its box area is >= 120 % of the area it was classified at. Interval 0 classifies
 * every frame. Entries are evicted when their object was not seen for kUnseenFrames frames, when
 * its tracking is lost, and, when the cache is full, the least recently seen first.
 *
 * A loss leaves a marker (in the same pool, gone after kUnseenFrames like an entry): the element
 * stores a frame's results frames after it decided them, so a result decided at or before the
 * frame that reported the loss may arrive after it and is dropped; a tracker that reuses the id
 * for a new object later gets no stale result. A store decided after the loss is kept.
 *
 * Memory is bounded whatever runs through it: at most `capacity` entries, held in storage sized at
 * construction (a fixed pool, a hash table reserved for it; nothing grows with the frames seen).
 * An entry with its hash node and bucket is under 200 bytes: the default 4096 is under 1 MiB. Not
 * thread-safe (the streaming thread owns it); pure C++. */
#pragma once

#include <glib.h>

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace dlainfer {
namespace objects {

/* The top-k a cached result keeps (a larger top-k keeps its best kCachedTopK). */
constexpr size_t kCachedTopK = 8;

struct ClassScore {
  int class_id = -1;
  float confidence = 0.0f;
  GQuark label = 0;
};

struct ObjectResult {
  std::array<ClassScore, kCachedTopK> top{}; /* best first; top[0] is the result */
  uint32_t n_top = 0;
  const ClassScore &best () const { return top[0]; }
};

struct Decision {
  bool classify = true;
  uint32_t age = 0;                      /* carried: frames since it was classified */
  const ObjectResult *carried = nullptr; /* valid until the cache changes */
};

class ResultCache {
 public:
  static constexpr uint64_t kUnseenFrames = 150;
  static constexpr size_t kDefaultCapacity = 4096;

  explicit ResultCache (size_t capacity = kDefaultCapacity);

  /* A new frame: objects unseen since frame (new - kUnseenFrames) are evicted first. */
  void begin_frame ();
  /* Whether a tracked object with this clipped box area is classified on this frame; marks it seen. */
  Decision decide (guint64 tracking_id, int64_t area, uint32_t interval);
  /* The object was classified on this frame at this area (may evict the least recently seen). */
  void store (guint64 tracking_id, int64_t area, const ObjectResult &result);
  /* The same for a result of an earlier frame `at` (the element stores a frame's results when its
   * tasks end, frames after it was decided): the age counts from `at`. */
  void store_at (guint64 tracking_id, int64_t area, const ObjectResult &result, uint64_t at);
  /* Its tracker lost it on this frame: its result goes, and a result decided at or before this
   * frame and stored later (store_at) is dropped. */
  void lost (guint64 tracking_id);
  /* Everything goes (flush, stop); the frame count restarts. */
  void clear ();

  /* Results held (loss markers not counted). */
  size_t size () const { return index_.size () - markers_; }
  size_t lost_markers () const { return markers_; }
  /* Results dropped because their object was lost on a later frame than they were decided on. */
  uint64_t dropped_after_loss () const { return dropped_after_loss_; }
  size_t capacity () const { return pool_.size (); }
  size_t buckets () const { return index_.bucket_count (); }
  uint64_t frame () const { return frame_; }
  uint64_t evicted () const { return evicted_; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Entry {
    guint64 id = 0;
    ObjectResult result;
    int64_t area = 0;
    uint64_t classified_at = 0, seen_at = 0;
    bool lost = false; /* a loss marker: no result; stores decided at or before lost_at drop */
    uint64_t lost_at = 0;
    uint32_t prev = kNone, next = kNone; /* the recency list, most recent at head_ */
  };

  void unlink (uint32_t i);
  void link_front (uint32_t i);
  void remove (uint32_t i);
  void evict_unseen ();
  uint32_t take_entry (guint64 tracking_id); /* a free entry, indexed (may evict the least recent) */

  std::vector<Entry> pool_;
  std::vector<uint32_t> free_;
  std::unordered_map<guint64, uint32_t> index_;
  uint32_t head_ = kNone, tail_ = kNone;
  uint64_t frame_ = 0, evicted_ = 0, dropped_after_loss_ = 0;
  size_t markers_ = 0;
};

}  // namespace objects
}  // namespace dlainfer
