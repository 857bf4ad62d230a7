/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: dlatrack's tracker (tracker.h). */
#include "gst/track/tracker.h"

#include <algorithm>

namespace dlainfer {
namespace track {

double iou (const TrackBox &a, const TrackBox &b)
{
  const double w = std::min (a.x + a.w, b.x + b.w) - std::max (a.x, b.x);
  const double h = std::min (a.y + a.h, b.y + b.h) - std::max (a.y, b.y);
  if (w <= 0 || h <= 0 || a.w <= 0 || a.h <= 0 || b.w <= 0 || b.h <= 0)
    return 0.0;
  const double inter = w * h;
  return inter / (a.w * a.h + b.w * b.h - inter);
}

Tracker::Tracker (size_t max_tracks) : max_tracks_ (max_tracks)
{
  tracks_.reserve (max_tracks_);
}

void Tracker::predict ()
{
  for (Track &t : tracks_) {
    t.box.x += t.vx;
    t.box.y += t.vy;
    t.matched = false;
  }
}

/* Greedy: every pair of a track and a detection of the same label at or above the threshold, the
 * highest IoU first (ties: the older track, then the earlier detection), each side used once. */
void Tracker::associate (const std::vector<Detection> &detections, std::vector<int32_t> *track_of)
{
  pairs_.clear ();
  const double threshold = params_.iou_threshold;
  for (uint32_t ti = 0; ti < tracks_.size (); ++ti)
    for (uint32_t di = 0; di < detections.size (); ++di) {
      if (detections[di].label != tracks_[ti].label)
        continue;
      const double v = iou (tracks_[ti].box, detections[di].box);
      if (v > 0.0 && v >= threshold)
        pairs_.push_back ({v, ti, di});
    }
  std::sort (pairs_.begin (), pairs_.end (), [] (const Pair &a, const Pair &b) {
    if (a.iou != b.iou)
      return a.iou > b.iou;
    return a.track != b.track ? a.track < b.track : a.detection < b.detection;
  });
  detection_used_.assign (detections.size (), 0);
  for (const Pair &p : pairs_) {
    Track &t = tracks_[p.track];
    if (t.matched || detection_used_[p.detection])
      continue;
    t.matched = true;
    detection_used_[p.detection] = 1;
    (*track_of)[p.detection] = int32_t (p.track);
  }
}

uint64_t Tracker::take_id ()
{
  const uint64_t id = next_id_;
  next_id_ = next_id_ >= kMaxId ? 1 : next_id_ + 1;
  return id;
}

/* The velocity measured since the last match (over the frames between), blended half and half
 * into the track's own once it has one. */
void Tracker::hit (Track &t, const TrackBox &box)
{
  const double cx = box.x + box.w / 2, cy = box.y + box.h / 2;
  const double frames = double (t.misses) + 1.0;
  const double mvx = (cx - t.cx) / frames, mvy = (cy - t.cy) / frames;
  const bool first = t.hits == 1;
  t.vx = first ? mvx : (t.vx + mvx) / 2;
  t.vy = first ? mvy : (t.vy + mvy) / 2;
  t.cx = cx;
  t.cy = cy;
  t.box = box;
  t.misses = 0;
  ++t.hits;
  ++counts_.matched;
  if (t.id == 0 && t.hits >= params_.min_hits) {
    t.id = take_id ();
    ++counts_.confirmed;
  }
}

/* Tentative tracks go at their first miss, confirmed ones after max_age; order is kept (the older
 * track wins ties). */
void Tracker::age_unmatched (std::vector<uint64_t> *ended)
{
  size_t kept = 0;
  for (size_t i = 0; i < tracks_.size (); ++i) {
    Track &t = tracks_[i];
    if (!t.matched) {
      ++t.misses;
      if (t.id == 0) {
        ++counts_.dropped_tentative;
        continue;
      }
      if (t.misses > params_.max_age) {
        ++counts_.ended;
        ended->push_back (t.id);
        continue;
      }
    }
    if (kept != i)
      tracks_[kept] = t;
    ++kept;
  }
  tracks_.resize (kept);
}

void Tracker::update (const std::vector<Detection> &detections, uint64_t timestamp,
                      std::vector<Assigned> *out, std::vector<uint64_t> *ended)
{
  ++counts_.frames;
  counts_.detections += detections.size ();
  out->assign (detections.size (), Assigned{});
  ended->clear ();
  predict ();
  std::vector<int32_t> &track_of = track_of_;
  track_of.assign (detections.size (), -1);
  associate (detections, &track_of);
  for (size_t di = 0; di < detections.size (); ++di)
    if (track_of[di] >= 0) {
      Track &t = tracks_[size_t (track_of[di])];
      hit (t, detections[di].box);
      (*out)[di] = {t.id, t.first_seen};
    }
  age_unmatched (ended); /* before new tracks: a new track has no miss yet */
  for (size_t di = 0; di < detections.size (); ++di) {
    if (track_of[di] >= 0)
      continue;
    if (tracks_.size () >= max_tracks_) {
      ++counts_.at_cap;
      continue;
    }
    Track t;
    t.box = detections[di].box;
    t.cx = t.box.x + t.box.w / 2;
    t.cy = t.box.y + t.box.h / 2;
    t.label = detections[di].label;
    t.first_seen = timestamp;
    t.hits = 1;
    t.matched = true;
    ++counts_.started;
    if (params_.min_hits <= 1) {
      t.id = take_id ();
      ++counts_.confirmed;
    }
    (*out)[di] = {t.id, t.first_seen};
    tracks_.push_back (t);
  }
}

void Tracker::reset ()
{
  if (!tracks_.empty ())
    ++counts_.resets;
  tracks_.clear ();
}

void Tracker::restart ()
{
  tracks_.clear ();
  next_id_ = 1;
  counts_ = {};
}

}  // namespace track
}  // namespace dlainfer
