/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlatrack's tracker (gst/track/tracker.h) on synthetic trajectories with hand-computed ids: a box
 * at constant velocity through gaps shorter and longer than max-age, two crossing boxes, a flicker
 * below min-hits, labels, the cap, ids never reused, flat memory over 100 000 frames, and a scene of
 * eight objects whose id switches and fragmentations are counted against the ground truth. */
#include "gst/track/tracker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <vector>

namespace {

using namespace dlainfer::track;

const GQuark kFace = g_quark_from_static_string ("face");

struct Step {
  std::vector<Assigned> out;
  std::vector<uint64_t> ended;
};

Step run (Tracker &t, const std::vector<Detection> &d, uint64_t ts = 0)
{
  Step s;
  t.update (d, ts, &s.out, &s.ended);
  return s;
}

Detection box (double x, double y, double w = 30, double h = 30, GQuark label = kFace)
{
  return {{x, y, w, h}, label};
}

Tracker make (uint32_t max_age, uint32_t min_hits, float iou = 0.3f, size_t cap = Tracker::kDefaultMaxTracks)
{
  Tracker t (cap);
  t.set_params ({iou, max_age, min_hits});
  return t;
}

TEST (Tracker, Iou)
{
  EXPECT_DOUBLE_EQ (iou ({0, 0, 10, 10}, {0, 0, 10, 10}), 1.0);
  EXPECT_DOUBLE_EQ (iou ({0, 0, 10, 10}, {5, 0, 10, 10}), 50.0 / 150.0);
  EXPECT_DOUBLE_EQ (iou ({0, 0, 10, 10}, {10, 0, 10, 10}), 0.0); /* touching */
  EXPECT_DOUBLE_EQ (iou ({0, 0, 0, 10}, {0, 0, 0, 10}), 0.0);    /* degenerate */
}

/* min-hits 3: frames 0 and 1 give no id, frame 2 confirms id 1. */
TEST (Tracker, ConfirmedAfterMinHits)
{
  Tracker t = make (5, 3);
  EXPECT_EQ (run (t, {box (0, 0)}, 10).out[0].id, 0u);
  EXPECT_EQ (run (t, {box (5, 0)}, 20).out[0].id, 0u);
  const Step s = run (t, {box (10, 0)}, 30);
  EXPECT_EQ (s.out[0].id, 1u);
  EXPECT_EQ (s.out[0].first_seen, 10u);
  EXPECT_EQ (t.counts ().confirmed, 1u);
}

TEST (Tracker, MinHitsOneConfirmsAtOnce)
{
  Tracker t = make (5, 1);
  EXPECT_EQ (run (t, {box (0, 0)}).out[0].id, 1u);
}

/* 30 px boxes moving 10 px a frame: after a gap of g frames the box is 10 (g + 1) px from where it
 * was last seen, no overlap at all for g >= 2, so only the prediction can match it. */
std::vector<uint64_t> moving_with_gap (uint32_t max_age, uint32_t gap, std::vector<uint64_t> *ended)
{
  Tracker t = make (max_age, 3);
  std::vector<uint64_t> ids;
  for (int f = 0; f < 10 + int (gap) + 5; ++f) {
    const bool hidden = f >= 10 && f < 10 + int (gap);
    const Step s = run (t, hidden ? std::vector<Detection>{} : std::vector<Detection>{box (10.0 * f, 50)});
    ended->insert (ended->end (), s.ended.begin (), s.ended.end ());
    if (!hidden)
      ids.push_back (s.out[0].id);
  }
  return ids;
}

TEST (Tracker, ConstantVelocityKeepsIdThroughGapUpToMaxAge)
{
  std::vector<uint64_t> ended;
  const std::vector<uint64_t> ids = moving_with_gap (5, 5, &ended);
  const std::vector<uint64_t> want = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ (ids, want);
  EXPECT_TRUE (ended.empty ());
}

/* A gap of max-age + 1 frames ends the track on its last hidden frame; the object comes back as
 * a new tentative track and gets id 2 after min-hits. */
TEST (Tracker, GapLongerThanMaxAgeEndsTrack)
{
  std::vector<uint64_t> ended;
  const std::vector<uint64_t> ids = moving_with_gap (5, 6, &ended);
  const std::vector<uint64_t> want = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 2, 2, 2};
  EXPECT_EQ (ids, want);
  EXPECT_EQ (ended, std::vector<uint64_t>{1});
}

/* Two boxes on crossing paths (one 8 px lower), passing each other around frame 10: the predicted
 * boxes keep both ids, no switch. */
TEST (Tracker, CrossingBoxesKeepTheirIds)
{
  Tracker t = make (5, 2);
  uint64_t a = 0, b = 0;
  for (int f = 0; f < 21; ++f) {
    const Step s = run (t, {box (100 + 6.0 * f, 100), box (220 - 6.0 * f, 108)});
    if (f < 1) {
      EXPECT_EQ (s.out[0].id, 0u);
      continue;
    }
    if (f == 1) {
      a = s.out[0].id;
      b = s.out[1].id;
      EXPECT_NE (a, 0u);
      EXPECT_NE (b, 0u);
      EXPECT_NE (a, b);
    }
    EXPECT_EQ (s.out[0].id, a) << "frame " << f;
    EXPECT_EQ (s.out[1].id, b) << "frame " << f;
  }
  EXPECT_EQ (t.counts ().started, 2u);
}

/* One ground-truth object of a synthetic scene: a 30 px box at constant velocity, seen by the
 * detector from frame `from` to frame `to` (exclusive) except for the frames of its gap. */
struct Truth {
  double x, y, vx, vy;
  int from, to, gap_from = -1, gap = 0;
  bool seen (int f) const { return f >= from && f < to && !(f >= gap_from && f < gap_from + gap); }
};

struct SceneCounts {
  int switches = 0;  /* a truth's id changed from one confirmed id to another */
  int fragments = 0; /* a truth's confirmed id was lost (a miss or no id) and it was tracked again */
  int shared = 0;    /* frames on which two truths had the same id */
};

/* MOT's definitions on the tracker's per-detection ids, every truth followed through the frames. */
SceneCounts track_scene (const std::vector<Truth> &scene, int frames, Tracker &t)
{
  SceneCounts c;
  std::vector<uint64_t> last (scene.size (), 0);
  std::vector<bool> lost (scene.size (), false);
  for (int f = 0; f < frames; ++f) {
    std::vector<Detection> dets;
    std::vector<size_t> who;
    for (size_t g = 0; g < scene.size (); ++g)
      if (scene[g].seen (f)) {
        dets.push_back (box (scene[g].x + scene[g].vx * f, scene[g].y + scene[g].vy * f));
        who.push_back (g);
      }
    const Step s = run (t, dets, uint64_t (f));
    std::set<uint64_t> ids;
    std::vector<bool> tracked (scene.size (), false);
    for (size_t i = 0; i < dets.size (); ++i) {
      const uint64_t id = s.out[i].id;
      const size_t g = who[i];
      if (id == 0)
        continue;
      c.shared += ids.insert (id).second ? 0 : 1;
      tracked[g] = true;
      c.switches += last[g] != 0 && id != last[g];
      c.fragments += lost[g];
      lost[g] = false;
      last[g] = id;
    }
    for (size_t g = 0; g < scene.size (); ++g)
      lost[g] = lost[g] || (last[g] != 0 && !tracked[g] && f < scene[g].to);
  }
  return c;
}

/* Eight objects for 120 frames at max-age 5, min-hits 2: two pairs crossing each other (lanes 8 px
 * apart), one missed for max-age frames, one for max-age + 1, one entering late and leaving early,
 * one standing still. By hand: the long gap ends its track, so that object
 * comes back under a new id (one switch) after a run without one (one fragment); the short gap keeps
 * its id but the object is not tracked while missed (one fragment); nothing else switches or
 * fragments, and no id is ever given to two objects. */
TEST (Tracker, SceneSwitchesAndFragmentationsCounted)
{
  const std::vector<Truth> scene = {
      {20, 40, 4, 0, 0, 120},          {500, 48, -4, 0, 0, 120},  /* crossing pair, frame 60 */
      {20, 200, 5, 0, 0, 120},         {620, 208, -5, 0, 0, 120}, /* crossing pair, frame 60 */
      {300, 100, 0, 3, 0, 120, 40, 5},                            /* a gap of max-age */
      {60, 300, 3, 0, 0, 120, 60, 6},                             /* a gap of max-age + 1 */
      {0, 400, 6, 0, 30, 90},          {560, 420, 0, 0, 0, 120},  /* enters and leaves; still */
  };
  Tracker t = make (5, 2);
  const SceneCounts c = track_scene (scene, 120, t);
  std::printf ("scene: 8 objects, 120 frames: %d id switch(es), %d fragmentation(s), %d shared id(s)\n",
               c.switches, c.fragments, c.shared);
  EXPECT_EQ (c.switches, 1);
  EXPECT_EQ (c.fragments, 2);
  EXPECT_EQ (c.shared, 0);
  EXPECT_EQ (t.counts ().ended, 2u); /* the long gap's first track and the one that left */
}

/* A detection flickering on for 2 frames, off for 1, below min-hits 3: never an id, each
 * tentative track dropped at its miss. */
TEST (Tracker, FlickerBelowMinHitsGetsNoId)
{
  Tracker t = make (5, 3);
  for (int f = 0; f < 30; ++f) {
    if (f % 3 == 2) {
      run (t, {});
      continue;
    }
    EXPECT_EQ (run (t, {box (0, 0)}).out[0].id, 0u) << "frame " << f;
  }
  EXPECT_EQ (t.counts ().confirmed, 0u);
  EXPECT_EQ (t.counts ().dropped_tentative, 10u);
  EXPECT_EQ (t.size (), 0u);
}

TEST (Tracker, LabelsNeverMatchEachOther)
{
  Tracker t = make (5, 1);
  EXPECT_EQ (run (t, {box (0, 0)}).out[0].id, 1u);
  const Step s = run (t, {box (0, 0, 30, 30, g_quark_from_static_string ("car"))});
  EXPECT_EQ (s.out[0].id, 2u);
}

TEST (Tracker, EachDetectionOneTrackAndTheBetterMatchWins)
{
  Tracker t = make (5, 1);
  run (t, {box (0, 0)});
  /* Two detections over the one track: the one at the same place keeps id 1. */
  const Step s = run (t, {box (20, 0), box (1, 0)});
  EXPECT_EQ (s.out[1].id, 1u);
  EXPECT_EQ (s.out[0].id, 2u);
}

/* At the cap, unmatched detections start no track and are counted; the tracks keep theirs. */
TEST (Tracker, CapOnTracks)
{
  Tracker t = make (5, 1, 0.3f, 4);
  std::vector<Detection> d;
  for (int i = 0; i < 10; ++i)
    d.push_back (box (100.0 * i, 0));
  const Step s = run (t, d);
  EXPECT_EQ (t.size (), 4u);
  EXPECT_EQ (t.counts ().at_cap, 6u);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ (s.out[size_t (i)].id, i < 4 ? uint64_t (i + 1) : 0u);
  EXPECT_EQ (t.storage (), 4u);
}

/* Thousands of detections on one frame, then none: the tracks stop at the cap, the rest are
 * counted; the storage never grows; an empty frame ages them (tentative ones go). */
TEST (Tracker, ThousandsOfDetectionsThenNone)
{
  Tracker t = make (5, 2);
  const size_t storage = t.storage ();
  std::vector<Detection> d;
  for (int i = 0; i < 5000; ++i)
    d.push_back (box (double (i % 100) * 20, double (i / 100) * 20, 10, 10));
  Step s = run (t, d);
  EXPECT_EQ (t.size (), Tracker::kDefaultMaxTracks);
  EXPECT_EQ (t.counts ().at_cap, 5000u - Tracker::kDefaultMaxTracks);
  s = run (t, d);
  EXPECT_EQ (t.counts ().confirmed, Tracker::kDefaultMaxTracks) << "the tracked ones confirmed at min-hits 2";
  EXPECT_EQ (s.out[0].id, 1u);
  EXPECT_EQ (s.out[4999].id, 0u);
  run (t, {});
  EXPECT_EQ (t.size (), Tracker::kDefaultMaxTracks) << "confirmed tracks survive a frame with none";
  EXPECT_EQ (t.storage (), storage);
}

TEST (Tracker, ResetKeepsCountingRestartBeginsAgain)
{
  Tracker t = make (5, 1);
  run (t, {box (0, 0)});
  t.reset ();
  EXPECT_EQ (t.size (), 0u);
  EXPECT_EQ (t.counts ().resets, 1u);
  EXPECT_EQ (run (t, {box (0, 0)}).out[0].id, 2u);
  t.restart ();
  EXPECT_EQ (run (t, {box (0, 0)}).out[0].id, 1u);
}

/* Deterministic pseudo-random numbers (no <random> distribution differences between libraries). */
struct Lcg {
  uint64_t s = 12345;
  double next ()
  {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return double (s >> 11) / double (1ull << 53);
  }
};

/* Objects entering, moving fast and leaving, 32 a frame, for 100 000 frames: every id that
 * appears is new when its track is confirmed (never reused), the tracks stay under the cap, and
 * the storage never grows. */
TEST (Tracker, IdsNeverReusedAndMemoryFlatOver100000Frames)
{
  Tracker t = make (30, 3);
  const size_t storage = t.storage ();
  struct Obj {
    double x, y, vx, vy;
    int life;
  };
  std::vector<Obj> objs (32);
  Lcg r;
  auto respawn = [&r] (Obj &o) {
    o = {r.next () * 1800, r.next () * 1000, (r.next () - 0.5) * 40, (r.next () - 0.5) * 40,
         int (r.next () * 200)};
  };
  for (Obj &o : objs)
    respawn (o);
  std::set<uint64_t> ended_ids;
  uint64_t max_id = 0, detections = 0;
  std::vector<Detection> d;
  Step s;
  double seconds = 0;
  for (int f = 0; f < 100000; ++f) {
    d.clear ();
    for (Obj &o : objs) {
      if (--o.life < 0)
        respawn (o);
      o.x += o.vx;
      o.y += o.vy;
      d.push_back (box (o.x, o.y, 60, 60));
    }
    const auto t0 = std::chrono::steady_clock::now ();
    t.update (d, uint64_t (f), &s.out, &s.ended);
    seconds += std::chrono::duration<double> (std::chrono::steady_clock::now () - t0).count ();
    detections += d.size ();
    for (uint64_t id : s.ended) {
      EXPECT_TRUE (ended_ids.insert (id).second) << "id " << id << " ended twice";
    }
    for (const Assigned &a : s.out) {
      if (a.id == 0)
        continue;
      ASSERT_EQ (ended_ids.count (a.id), 0u) << "id " << a.id << " reused after it ended, frame " << f;
      max_id = std::max (max_id, a.id);
    }
    ASSERT_LE (t.size (), t.max_tracks ());
  }
  EXPECT_EQ (t.storage (), storage);
  EXPECT_EQ (t.next_id (), max_id + 1);
  EXPECT_GT (t.counts ().confirmed, 10000u);
  EXPECT_EQ (t.counts ().at_cap, 0u);
  std::printf ("tracker: %.3f us per detection at 32 detections a frame, %llu tracks confirmed\n",
               seconds * 1e6 / double (detections), (unsigned long long)t.counts ().confirmed);
}

}  // namespace
