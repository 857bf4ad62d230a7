/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: dlatrack's tracker, pure C++ (docs/tracking.md).
 *
 * Each frame, every track's box is moved by its velocity (constant-velocity prediction), then the
 * detections are matched to tracks of the same label greedily by IoU with the predicted box, the
 * highest first, each pair at least `iou_threshold` (and above 0). A matched track takes the
 * detection's box and blends the velocity it measured into its own. An unmatched detection starts
 * a tentative track; a tentative track is confirmed by its `min_hits`-th hit in a row and dropped
 * at its first miss. A confirmed track is kept through gaps of up to `max_age` frames and ends at
 * the next miss. Only confirmed tracks give a detection an id.
 *
 * Ids count from 1 and are never reused while the tracker lives (reset () drops the tracks, not
 * the count; restart () begins the count again), up to G_MAXINT (2^31-1, gvatrack's object_id is
 * a gint), then wrap to 1. Memory is bounded: at most `max_tracks` tracks in storage reserved at
 * construction; at the cap an unmatched detection starts no track and is counted. Not
 * thread-safe. */
#pragma once

#include <glib.h>

#include <cstdint>
#include <vector>

namespace dlainfer {
namespace track {

struct TrackBox {
  double x = 0, y = 0, w = 0, h = 0;
};

double iou (const TrackBox &a, const TrackBox &b);

struct Detection {
  TrackBox box;
  GQuark label = 0;
};

struct TrackerParams {
  float iou_threshold = 0.3f;
  uint32_t max_age = 30;
  uint32_t min_hits = 3;
};

/* What the tracker says about one detection of the frame. */
struct Assigned {
  uint64_t id = 0;         /* 0: no confirmed track (tentative, or none at the cap) */
  uint64_t first_seen = 0; /* the track's first frame's timestamp (as given to update) */
};

struct TrackerCounts {
  uint64_t frames = 0, detections = 0, matched = 0, started = 0, confirmed = 0, ended = 0;
  uint64_t dropped_tentative = 0; /* tentative tracks that missed a frame */
  uint64_t at_cap = 0;            /* detections that started no track: the tracks were at the cap */
  uint64_t resets = 0;            /* reset ()s that dropped tracks: flushes, new streams, time going back */
};

class Tracker {
 public:
  static constexpr size_t kDefaultMaxTracks = 1024;
  static constexpr uint64_t kMaxId = G_MAXINT;

  explicit Tracker (size_t max_tracks = kDefaultMaxTracks);

  void set_params (const TrackerParams &p) { params_ = p; }
  const TrackerParams &params () const { return params_; }

  /* One frame: `out` gets one entry per detection; `ended` the ids of confirmed tracks that ended
   * on this frame. `timestamp` is kept as first-seen time. */
  void update (const std::vector<Detection> &detections, uint64_t timestamp, std::vector<Assigned> *out,
               std::vector<uint64_t> *ended);
  /* Every track goes (a flush, a seek, a new stream); ids keep counting. */
  void reset ();
  /* reset () and the ids begin at 1 again (the element starts). */
  void restart ();

  size_t size () const { return tracks_.size (); }
  size_t max_tracks () const { return max_tracks_; }
  size_t storage () const { return tracks_.capacity (); }
  uint64_t next_id () const { return next_id_; }
  const TrackerCounts &counts () const { return counts_; }

 private:
  struct Track {
    TrackBox box;          /* predicted on this frame, then the matched detection's */
    double cx = 0, cy = 0; /* the centre at the last match */
    double vx = 0, vy = 0; /* centre motion per frame */
    GQuark label = 0;
    uint64_t id = 0; /* 0 while tentative */
    uint64_t first_seen = 0;
    uint32_t hits = 0;   /* matched frames in a row while tentative, total once confirmed */
    uint32_t misses = 0; /* frames since the last match */
    bool matched = false;
  };
  struct Pair {
    double iou;
    uint32_t track, detection;
  };

  void predict ();
  void associate (const std::vector<Detection> &detections, std::vector<int32_t> *track_of);
  void hit (Track &t, const TrackBox &box);
  uint64_t take_id ();
  void age_unmatched (std::vector<uint64_t> *ended);

  TrackerParams params_;
  size_t max_tracks_;
  std::vector<Track> tracks_;
  std::vector<Pair> pairs_;             /* scratch */
  std::vector<uint8_t> detection_used_; /* scratch */
  std::vector<int32_t> track_of_;       /* scratch: each detection's track index, -1: none */
  uint64_t next_id_ = 1;
  TrackerCounts counts_;
};

}  // namespace track
}  // namespace dlainfer
