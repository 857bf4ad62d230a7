/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/objects/result_cache.h"

#include <algorithm>

namespace dlainfer {
namespace objects {

ResultCache::ResultCache (size_t capacity) : pool_ (std::max<size_t> (capacity, 1))
{
  free_.reserve (pool_.size ());
  for (size_t i = pool_.size (); i-- > 0;)
    free_.push_back (uint32_t (i));
  /* No rehash ever: the table never holds more than the pool. */
  index_.reserve (pool_.size ());
}

void ResultCache::unlink (uint32_t i)
{
  Entry &e = pool_[i];
  (e.prev == kNone ? head_ : pool_[e.prev].next) = e.next;
  (e.next == kNone ? tail_ : pool_[e.next].prev) = e.prev;
  e.prev = e.next = kNone;
}

void ResultCache::link_front (uint32_t i)
{
  Entry &e = pool_[i];
  e.prev = kNone;
  e.next = head_;
  (head_ == kNone ? tail_ : pool_[head_].prev) = i;
  head_ = i;
}

void ResultCache::remove (uint32_t i)
{
  if (pool_[i].lost)
    --markers_;
  pool_[i].lost = false;
  unlink (i);
  index_.erase (pool_[i].id);
  free_.push_back (i);
}

void ResultCache::evict_unseen ()
{
  while (tail_ != kNone && frame_ - pool_[tail_].seen_at > kUnseenFrames) {
    remove (tail_);
    ++evicted_;
  }
}

void ResultCache::begin_frame ()
{
  ++frame_;
  evict_unseen ();
}

Decision ResultCache::decide (guint64 tracking_id, int64_t area, uint32_t interval)
{
  auto it = index_.find (tracking_id);
  if (it == index_.end () || pool_[it->second].lost)
    return {};
  Entry &e = pool_[it->second];
  e.seen_at = frame_;
  unlink (it->second);
  link_front (it->second);
  const uint64_t age = frame_ - e.classified_at;
  /* Integer form of area >= 1.2 * classified area. */
  const bool grew = area * 5 >= e.area * 6;
  if (age > interval || grew)
    return {};
  return {false, uint32_t (age), &e.result};
}

void ResultCache::store (guint64 tracking_id, int64_t area, const ObjectResult &result)
{
  store_at (tracking_id, area, result, frame_);
}

uint32_t ResultCache::take_entry (guint64 tracking_id)
{
  if (free_.empty ()) {
    remove (tail_); /* full: the least recently seen goes */
    ++evicted_;
  }
  const uint32_t i = free_.back ();
  free_.pop_back ();
  index_.emplace (tracking_id, i);
  pool_[i].id = tracking_id;
  return i;
}

void ResultCache::store_at (guint64 tracking_id, int64_t area, const ObjectResult &result, uint64_t at)
{
  at = std::min (at, frame_);
  uint32_t i;
  auto it = index_.find (tracking_id);
  if (it != index_.end ()) {
    i = it->second;
    if (pool_[i].lost) {
      if (at <= pool_[i].lost_at) {
        ++dropped_after_loss_; /* decided before its tracker lost it */
        return;
      }
      pool_[i].lost = false; /* the id came back: a new object */
      --markers_;
      pool_[i].seen_at = at;
    }
    unlink (i);
  } else {
    i = take_entry (tracking_id);
    pool_[i].seen_at = at;
  }
  Entry &e = pool_[i];
  e.result = result;
  e.area = area;
  e.classified_at = at;
  e.seen_at = std::max (e.seen_at, at);
  link_front (i);
}

void ResultCache::lost (guint64 tracking_id)
{
  auto it = index_.find (tracking_id);
  uint32_t i;
  if (it != index_.end ()) {
    i = it->second;
    unlink (i);
  } else {
    i = take_entry (tracking_id);
  }
  Entry &e = pool_[i];
  if (!e.lost)
    ++markers_;
  e.lost = true;
  e.lost_at = frame_;
  e.seen_at = frame_;
  e.result = {};
  link_front (i);
}

void ResultCache::clear ()
{
  while (tail_ != kNone)
    remove (tail_);
  frame_ = 0;
  evicted_ = 0;
  dropped_after_loss_ = 0;
}

}  // namespace objects
}  // namespace dlainfer
