/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tracked objects' cached results (gst/objects/result_cache.h): reclassify-interval, area
 * growth, eviction of unseen and lost objects, the capacity, and memory that stays bounded over a
 * million frames of churning ids. */
#include "gst/objects/result_cache.h"

#include <gtest/gtest.h>

namespace {

using dlainfer::objects::Decision;
using dlainfer::objects::ObjectResult;
using dlainfer::objects::ResultCache;

ObjectResult result (int class_id, float confidence, const char *label)
{
  ObjectResult r;
  r.top[0] = {class_id, confidence, g_quark_from_string (label)};
  r.top[1] = {class_id + 1, confidence / 2, 0};
  r.n_top = 2;
  return r;
}

/* A cache on its first frame, these objects classified at `area`. */
void classify_first_frame (ResultCache &cache, std::initializer_list<guint64> ids, int64_t area = 100)
{
  cache.begin_frame ();
  for (guint64 id : ids)
    cache.store (id, area, result (int (id), 1.0f, "a"));
}

TEST (ResultCache, UnknownObjectsAreClassified)
{
  ResultCache cache;
  cache.begin_frame ();
  Decision d = cache.decide (5, 1000, 10);
  EXPECT_TRUE (d.classify);
  EXPECT_EQ (d.carried, nullptr);
  EXPECT_EQ (cache.size (), 0u);
}

TEST (ResultCache, CarriesForTheIntervalWithItsAge)
{
  ResultCache cache;
  cache.begin_frame ();
  cache.store (5, 1000, result (3, 0.5f, "sedan"));
  for (uint32_t age = 1; age <= 2; ++age) {
    cache.begin_frame ();
    Decision d = cache.decide (5, 1000, 2);
    ASSERT_FALSE (d.classify) << age;
    EXPECT_EQ (d.age, age);
    ASSERT_NE (d.carried, nullptr);
    EXPECT_EQ (d.carried->best ().class_id, 3);
    EXPECT_FLOAT_EQ (d.carried->best ().confidence, 0.5f);
    EXPECT_EQ (d.carried->best ().label, g_quark_from_string ("sedan"));
    EXPECT_EQ (d.carried->n_top, 2u);
    EXPECT_EQ (d.carried->top[1].class_id, 4);
  }
  cache.begin_frame ();
  EXPECT_TRUE (cache.decide (5, 1000, 2).classify); /* frame 4: interval + 1 after */
  cache.store (5, 1000, result (6, 0.9f, "van"));
  cache.begin_frame ();
  Decision d = cache.decide (5, 1000, 2);
  EXPECT_FALSE (d.classify);
  EXPECT_EQ (d.age, 1u);
  EXPECT_EQ (d.carried->best ().class_id, 6);
}

TEST (ResultCache, IntervalZeroClassifiesEveryFrame)
{
  ResultCache cache;
  classify_first_frame (cache, {1});
  cache.begin_frame ();
  EXPECT_TRUE (cache.decide (1, 100, 0).classify);
}

TEST (ResultCache, ClassifiesSoonerWhenTheBoxGrewByTwentyPercent)
{
  ResultCache cache;
  classify_first_frame (cache, {9}, 1000);
  cache.begin_frame ();
  EXPECT_FALSE (cache.decide (9, 1199, 100).classify);
  cache.begin_frame ();
  EXPECT_FALSE (cache.decide (9, 10, 100).classify); /* shrinking never does */
  cache.begin_frame ();
  EXPECT_TRUE (cache.decide (9, 1200, 100).classify);
  cache.store (9, 1200, result (1, 0.5f, "car"));
  cache.begin_frame ();
  EXPECT_FALSE (cache.decide (9, 1439, 100).classify); /* from the new area */
  cache.begin_frame ();
  EXPECT_TRUE (cache.decide (9, 1440, 100).classify);
}

TEST (ResultCache, EvictsObjectsUnseenFor150Frames)
{
  ResultCache cache;
  classify_first_frame (cache, {1, 2});
  for (int f = 2; f <= 151; ++f) {
    cache.begin_frame ();
    if (f == 100)
      cache.decide (2, 100, 1000); /* seen: it stays longer */
  }
  EXPECT_EQ (cache.frame (), 151u);
  EXPECT_EQ (cache.size (), 2u); /* 1 was unseen on frames 2..151: 150 frames */
  cache.begin_frame ();
  EXPECT_EQ (cache.size (), 1u);
  EXPECT_EQ (cache.evicted (), 1u);
  EXPECT_TRUE (cache.decide (1, 100, 1000).classify);
  for (int f = 153; f <= 250; ++f)
    cache.begin_frame ();
  EXPECT_EQ (cache.size (), 1u); /* 2: seen on frame 100, unseen 101..250 */
  cache.begin_frame ();
  EXPECT_EQ (cache.size (), 0u);
}

TEST (ResultCache, LostTrackingEvictsAtOnce)
{
  ResultCache cache;
  classify_first_frame (cache, {1, 2});
  cache.lost (1);
  cache.lost (77); /* unknown: nothing */
  EXPECT_EQ (cache.size (), 1u);
  cache.begin_frame ();
  EXPECT_TRUE (cache.decide (1, 100, 10).classify);
  EXPECT_FALSE (cache.decide (2, 100, 10).classify);
}

/* Frames in flight: frame 1 decided to classify 5, frame 2 reported 5 lost, then frame 1's result
 * arrives. It is dropped, so a new object that reuses id 5 is classified, not given it; a result
 * decided after the loss is kept. The marker goes after kUnseenFrames. */
TEST (ResultCache, ResultDecidedBeforeALossIsDropped)
{
  ResultCache cache;
  cache.begin_frame (); /* 1: 5 decided */
  EXPECT_TRUE (cache.decide (5, 100, 10).classify);
  cache.begin_frame (); /* 2: 5 lost, before frame 1's result came back */
  cache.lost (5);
  EXPECT_EQ (cache.lost_markers (), 1u);
  cache.store_at (5, 100, result (1, 1.0f, "stale"), 1);
  cache.store_at (5, 100, result (1, 1.0f, "stale"), 2);
  EXPECT_EQ (cache.size (), 0u);
  EXPECT_EQ (cache.dropped_after_loss (), 2u);
  cache.begin_frame (); /* 3: a new object with id 5 */
  EXPECT_TRUE (cache.decide (5, 100, 10).classify);
  cache.store_at (5, 100, result (2, 1.0f, "new"), 3);
  EXPECT_EQ (cache.size (), 1u);
  EXPECT_EQ (cache.lost_markers (), 0u);
  cache.begin_frame ();
  const Decision d = cache.decide (5, 100, 10);
  ASSERT_FALSE (d.classify);
  EXPECT_EQ (d.carried->best ().class_id, 2);
  EXPECT_EQ (d.age, 1u);
  /* A marker alone goes like an unseen entry. */
  cache.lost (6);
  for (uint64_t f = 0; f <= ResultCache::kUnseenFrames; ++f)
    cache.begin_frame ();
  EXPECT_EQ (cache.lost_markers (), 0u);
  cache.store_at (6, 100, result (3, 1.0f, "late"), 1);
  EXPECT_EQ (cache.size (), 1u); /* no marker left to stop it (kUnseenFrames >> frames in flight) */
}

TEST (ResultCache, FullCacheDropsTheLeastRecentlySeen)
{
  ResultCache cache (3);
  classify_first_frame (cache, {1, 2, 3});
  cache.begin_frame ();
  cache.decide (1, 100, 10); /* 2 is now the least recently seen */
  cache.store (4, 100, result (0, 1.0f, "d"));
  EXPECT_EQ (cache.size (), 3u);
  EXPECT_EQ (cache.evicted (), 1u);
  cache.begin_frame ();
  EXPECT_FALSE (cache.decide (1, 100, 10).classify);
  EXPECT_TRUE (cache.decide (2, 100, 10).classify);
  EXPECT_FALSE (cache.decide (3, 100, 10).classify);
  EXPECT_FALSE (cache.decide (4, 100, 10).classify);
}

TEST (ResultCache, ClearForgetsEverything)
{
  ResultCache cache;
  classify_first_frame (cache, {1});
  cache.clear ();
  EXPECT_EQ (cache.size (), 0u);
  EXPECT_EQ (cache.frame (), 0u);
  cache.begin_frame ();
  EXPECT_TRUE (cache.decide (1, 100, 10).classify);
}

/* A 24/7 camera: a million frames, 4 new ids each (never seen again), 2 that stay (interval 10).
 * Alive after each frame: the stayers and the churn of the last 151 frames; the table never
 * rehashes. */
TEST (ResultCache, MillionFramesOfChurningIdsStayBounded)
{
  ResultCache cache;
  const size_t buckets = cache.buckets ();
  const ObjectResult r = result (1, 0.5f, "x");
  uint64_t classified = 0, next_id = 1000;
  size_t most = 0;
  for (uint64_t f = 1; f <= 1000000; ++f) {
    cache.begin_frame ();
    for (guint64 stayer : {1, 2})
      if (cache.decide (stayer, 500, 10).classify) {
        cache.store (stayer, 500, r);
        ++classified;
      }
    for (int k = 0; k < 4; ++k)
      cache.store (next_id++, 400, r);
    most = std::max (most, cache.size ());
  }
  EXPECT_EQ (classified, 2u * 90910u); /* frames 1, 12, 23, ...: (1e6 - 1) / 11 + 1 */
  EXPECT_EQ (cache.size (), 2u + 4u * 151u);
  EXPECT_EQ (most, 2u + 4u * 151u);
  EXPECT_EQ (cache.evicted (), 4u * (1000000u - 151u));
  EXPECT_EQ (cache.buckets (), buckets);
  EXPECT_EQ (cache.capacity (), ResultCache::kDefaultCapacity);
}

/* More new ids than the capacity holds in 150 frames: the capacity is the bound. */
TEST (ResultCache, ChurnBeyondTheCapacityStaysAtTheCapacity)
{
  ResultCache cache (1000);
  const size_t buckets = cache.buckets ();
  const ObjectResult r = result (1, 0.5f, "x");
  guint64 next_id = 0;
  for (int f = 1; f <= 20000; ++f) {
    cache.begin_frame ();
    for (int k = 0; k < 16; ++k)
      cache.store (next_id++, 400, r);
    ASSERT_LE (cache.size (), 1000u);
  }
  EXPECT_EQ (cache.size (), 1000u);
  EXPECT_EQ (cache.evicted (), 16u * 20000u - 1000u);
  EXPECT_EQ (cache.buckets (), buckets);
  cache.begin_frame ();
  EXPECT_FALSE (cache.decide (next_id - 1000, 400, 1000).classify); /* the newest 1000 stay */
  EXPECT_TRUE (cache.decide (next_id - 1001, 400, 1000).classify);
}

}  // namespace
