/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a frame's objects come from (gst/objects/object_source.h): ROI metas on every version,
 * GstAnalyticsODMtd with its tracking on >= 1.24 builds, both on one buffer; a ROI meta's `id` is
 * no tracking id; the tracking lookups bounded by the selection (10 000 ODMtds). */
#include "gst/objects/object_source.h"

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <vector>

#include "objects_test_support.h"

namespace {

using namespace dlainfer::objects;

using objects_test::BufferPtr;

GstVideoRegionOfInterestMeta *add_roi (GstBuffer *b, const char *type, guint x, guint y, guint w, guint h)
{
  return gst_buffer_add_video_region_of_interest_meta (b, type, x, y, w, h);
}

/* DL Streamer's gvatrack: the tracking id in the "object_id" parameter. */
void add_object_id (GstVideoRegionOfInterestMeta *roi, gint id)
{
  gst_video_region_of_interest_meta_add_param (
      roi, gst_structure_new ("object_id", "id", G_TYPE_INT, id, nullptr));
}

/* Box, type and the detector's confidence. */
void expect_detection (const DetectedObject &o, int64_t x, int64_t y, int64_t w, int64_t h, const char *type,
                       float confidence)
{
  EXPECT_EQ (o.box.x, x);
  EXPECT_EQ (o.box.y, y);
  EXPECT_EQ (o.box.width, w);
  EXPECT_EQ (o.box.height, h);
  EXPECT_EQ (o.label, g_quark_from_string (type));
  EXPECT_TRUE (o.has_confidence);
  EXPECT_FLOAT_EQ (o.confidence, confidence);
}

TEST (ObjectSource, ReadsAnalyticsOnlyWhereBuilt)
{
#ifdef TEST_ANALYTICS
  EXPECT_TRUE (reads_analytics ());
#else
  EXPECT_FALSE (reads_analytics ());
#endif
}

TEST (ObjectSource, NoObjects)
{
  BufferPtr buf;
  CollectedObjects c = collect_objects (buf.b);
  EXPECT_EQ (c.origin, ObjectOrigin::kNone);
  EXPECT_EQ (c.objects.size (), 0u);
}

TEST (ObjectSource, RoiMetasInOrderWithTheirFields)
{
  BufferPtr buf;
  GstVideoRegionOfInterestMeta *car = add_roi (buf.b, "car", 10, 20, 30, 40);
  car->id = 0; /* a detector's index of the box on this frame */
  add_object_id (car, 7);
  gst_video_region_of_interest_meta_add_param (
      car, gst_structure_new ("detection", "confidence", G_TYPE_DOUBLE, 0.75, nullptr));
  GstVideoRegionOfInterestMeta *person = add_roi (buf.b, "person", 1, 2, 3, 4);
  person->id = 1;

  CollectedObjects c = collect_objects (buf.b);
  EXPECT_EQ (c.origin, ObjectOrigin::kRoiMeta);
  ASSERT_EQ (c.objects.size (), 2u);
  const DetectedObject &a = c.objects[0], &b = c.objects[1];
  expect_detection (a, 10, 20, 30, 40, "car", 0.75f);
  EXPECT_TRUE (a.tracked);
  EXPECT_EQ (a.tracking_id, 7u);
  EXPECT_EQ (a.write_back.roi, car);
  EXPECT_FALSE (a.write_back.has_od_mtd);
  EXPECT_EQ (b.label, g_quark_from_string ("person"));
  EXPECT_FALSE (b.has_confidence);
  EXPECT_FALSE (b.tracked); /* id 1: the box's index on the frame, not an identity */
  EXPECT_EQ (b.write_back.roi, person);
}

TEST (ObjectSource, RoiObjectIdParamIsTheTrackingId)
{
  BufferPtr buf;
  GstVideoRegionOfInterestMeta *roi = add_roi (buf.b, "car", 0, 0, 8, 8);
  roi->id = 3;
  roi->parent_id = 9; /* containment, never identity */
  gst_video_region_of_interest_meta_add_param (
      roi, gst_structure_new ("object_id", "id", G_TYPE_INT, 42, nullptr));
  DetectedObject o = object_from_roi (roi);
  EXPECT_TRUE (o.tracked);
  EXPECT_EQ (o.tracking_id, 42u);
  GstVideoRegionOfInterestMeta *other = add_roi (buf.b, "car", 0, 0, 8, 8);
  other->id = -5;
  other->parent_id = 9;
  EXPECT_FALSE (object_from_roi (other).tracked);
}

/* DL Streamer's detectors set `id` to the ODMtd's index on each frame, roimux to the meta's
 * index, other paths to a sequence number: none names the same object on the next frame. */
TEST (ObjectSource, RoiMetaIdIsNoTrackingId)
{
  BufferPtr buf;
  for (gint id : {1, 2, 77, G_MAXINT}) {
    GstVideoRegionOfInterestMeta *roi = add_roi (buf.b, "car", 0, 0, 8, 8);
    roi->id = id;
    EXPECT_FALSE (object_from_roi (roi).tracked) << id;
  }
  CollectedObjects c = collect_objects (buf.b);
  ASSERT_EQ (c.objects.size (), 4u);
  for (const DetectedObject &o : c.objects)
    EXPECT_FALSE (o.tracked);
}

#ifdef TEST_ANALYTICS

/* Every collected object kept, as when the selection keeps them all. */
std::vector<SelectedObject> all_of (const CollectedObjects &c)
{
  std::vector<SelectedObject> kept;
  for (size_t i = 0; i < c.objects.size (); ++i)
    kept.push_back ({uint32_t (i), c.objects[i].box});
  return kept;
}

GstAnalyticsRelationMeta *relation_meta (GstBuffer *b)
{
  return gst_buffer_add_analytics_relation_meta (b);
}

guint add_od (GstAnalyticsRelationMeta *r, const char *type, gint x, gint y, gint w, gint h, gfloat conf)
{
  GstAnalyticsODMtd od;
  EXPECT_TRUE (gst_analytics_relation_meta_add_od_mtd (r, g_quark_from_string (type), x, y, w, h, conf, &od));
  return od.id;
}

guint add_tracking (GstAnalyticsRelationMeta *r, guint64 id, bool lost)
{
  GstAnalyticsTrackingMtd trk;
  EXPECT_TRUE (gst_analytics_relation_meta_add_tracking_mtd (r, id, 0, &trk));
  if (lost) {
    EXPECT_TRUE (gst_analytics_tracking_mtd_set_lost (&trk));
  }
  return trk.id;
}

TEST (ObjectSourceAnalytics, OdMtdsWithTrackingEitherDirection)
{
  BufferPtr buf;
  GstAnalyticsRelationMeta *r = relation_meta (buf.b);
  guint car = add_od (r, "car", -10, 5, 100, 50, 0.9f);
  guint truck = add_od (r, "truck", 200, 100, 64, 32, 0.5f);
  guint bus = add_od (r, "bus", 0, 0, 20, 20, 0.25f);
  guint t1 = add_tracking (r, 1001, false);
  guint t2 = add_tracking (r, 1002, true);
  ASSERT_TRUE (gst_analytics_relation_meta_set_relation (r, GST_ANALYTICS_REL_TYPE_RELATE_TO, car, t1));
  ASSERT_TRUE (gst_analytics_relation_meta_set_relation (r, GST_ANALYTICS_REL_TYPE_RELATE_TO, t2, truck));

  CollectedObjects c = collect_objects (buf.b);
  EXPECT_EQ (c.origin, ObjectOrigin::kAnalytics);
  ASSERT_EQ (c.objects.size (), 3u);
  for (const DetectedObject &o : c.objects)
    EXPECT_FALSE (o.tracked); /* looked up after the selection */
  resolve_tracking (buf.b, all_of (c), &c);
  const DetectedObject &a = c.objects[0], &b = c.objects[1], &d = c.objects[2];
  expect_detection (a, -10, 5, 100, 50, "car", 0.9f); /* unclipped here */
  EXPECT_TRUE (a.write_back.has_od_mtd);
  EXPECT_EQ (a.write_back.od_mtd_id, car);
  EXPECT_EQ (a.write_back.roi, nullptr);
  EXPECT_TRUE (a.tracked);
  EXPECT_EQ (a.tracking_id, 1001u);
  EXPECT_FALSE (a.tracking_lost);
  EXPECT_EQ (b.write_back.od_mtd_id, truck);
  EXPECT_TRUE (b.tracked);
  EXPECT_EQ (b.tracking_id, 1002u);
  EXPECT_TRUE (b.tracking_lost);
  EXPECT_EQ (d.write_back.od_mtd_id, bus);
  EXPECT_FALSE (d.tracked);
}

TEST (ObjectSourceAnalytics, BothMetasOnOneBufferOdMtdWinsAndClaimsItsRoi)
{
  BufferPtr buf;
  GstAnalyticsRelationMeta *r = relation_meta (buf.b);
  GstVideoRegionOfInterestMeta *other = add_roi (buf.b, "car", 1, 1, 50, 50);
  GstVideoRegionOfInterestMeta *same = add_roi (buf.b, "car", 10, 20, 30, 40);
  GstVideoRegionOfInterestMeta *same_box_other_type = add_roi (buf.b, "truck", 10, 20, 30, 40);
  guint od = add_od (r, "car", 10, 20, 30, 40, 0.8f);

  CollectedObjects c = collect_objects (buf.b);
  EXPECT_EQ (c.origin, ObjectOrigin::kAnalytics);
  ASSERT_EQ (c.objects.size (), 1u); /* the ROI metas are not objects of their own */
  EXPECT_EQ (c.objects[0].write_back.od_mtd_id, od);
  EXPECT_EQ (c.objects[0].write_back.roi, same);
  EXPECT_NE (c.objects[0].write_back.roi, other);
  EXPECT_NE (c.objects[0].write_back.roi, same_box_other_type);
}

/* ODMtds with equal boxes claim one ROI meta of that box each, in the order the buffer lists the
 * ROI metas; a spare one stays unclaimed, and another box's ODMtd finds its own among them. */
TEST (ObjectSourceAnalytics, EqualBoxesClaimOneRoiMetaEach)
{
  BufferPtr buf;
  GstAnalyticsRelationMeta *r = relation_meta (buf.b);
  for (int i = 0; i < 3; ++i)
    add_roi (buf.b, "car", 10, 20, 30, 40);
  GstVideoRegionOfInterestMeta *corner = add_roi (buf.b, "car", 0, 0, 30, 40);
  add_od (r, "car", 10, 20, 30, 40, 0.8f);
  add_od (r, "car", 0, 0, 30, 40, 0.7f);
  add_od (r, "car", 10, 20, 30, 40, 0.6f);
  std::vector<GstVideoRegionOfInterestMeta *> equal; /* the three, as the buffer lists them */
  gpointer state = nullptr;
  while (GstMeta *m =
             gst_buffer_iterate_meta_filtered (buf.b, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))
    if (reinterpret_cast<GstVideoRegionOfInterestMeta *> (m) != corner)
      equal.push_back (reinterpret_cast<GstVideoRegionOfInterestMeta *> (m));
  ASSERT_EQ (equal.size (), 3u);

  CollectedObjects c = collect_objects (buf.b);
  ASSERT_EQ (c.objects.size (), 3u);
  EXPECT_EQ (c.objects[0].write_back.roi, equal[0]);
  EXPECT_EQ (c.objects[1].write_back.roi, corner);
  EXPECT_EQ (c.objects[2].write_back.roi, equal[1]);
}

/* An ODMtd without a TrackingMtd takes its ROI meta's object_id (gvatrack writes ROI metas only);
 * a TrackingMtd wins over it. The ROI meta's `id` counts for nothing. */
TEST (ObjectSourceAnalytics, OdMtdTakesItsRoiObjectIdWithoutTrackingMtd)
{
  BufferPtr buf;
  GstAnalyticsRelationMeta *r = relation_meta (buf.b);
  GstVideoRegionOfInterestMeta *a = add_roi (buf.b, "car", 10, 20, 30, 40);
  GstVideoRegionOfInterestMeta *b = add_roi (buf.b, "car", 100, 20, 30, 40);
  GstVideoRegionOfInterestMeta *d = add_roi (buf.b, "car", 200, 20, 30, 40);
  add_object_id (a, 5);
  add_object_id (b, 6);
  d->id = 2;
  add_od (r, "car", 10, 20, 30, 40, 0.8f);
  guint od_b = add_od (r, "car", 100, 20, 30, 40, 0.8f);
  add_od (r, "car", 200, 20, 30, 40, 0.8f);
  guint trk = add_tracking (r, 900, false);
  ASSERT_TRUE (gst_analytics_relation_meta_set_relation (r, GST_ANALYTICS_REL_TYPE_RELATE_TO, od_b, trk));

  CollectedObjects c = collect_objects (buf.b);
  resolve_tracking (buf.b, all_of (c), &c);
  ASSERT_EQ (c.objects.size (), 3u);
  EXPECT_TRUE (c.objects[0].tracked);
  EXPECT_EQ (c.objects[0].tracking_id, 5u);
  EXPECT_TRUE (c.objects[1].tracked);
  EXPECT_EQ (c.objects[1].tracking_id, 900u);
  EXPECT_FALSE (c.objects[2].tracked);
}

/* 10 000 ODMtds, every one tracked (a TrackingMtd related towards it, the direction that needs
 * the most queries): the lookups run for the 1 024 selected objects only, whatever the count on
 * the buffer; counted, not timed. */
TEST (ObjectSourceAnalytics, TenThousandOdMtdsLookUpTrackingForTheSelectedOnly)
{
  BufferPtr buf;
  constexpr int kBoxes = 10000, kTracked = 16;
  /* Sized at once: the relation meta's adjacency matrix is order x order bytes. */
  GstAnalyticsRelationMetaInitParams init = {kBoxes + kTracked, size_t (kBoxes + kTracked) * 64};
  GstAnalyticsRelationMeta *r = gst_buffer_add_analytics_relation_meta_full (buf.b, &init);
  std::vector<guint> ods;
  for (int i = 0; i < kBoxes; ++i)
    ods.push_back (add_od (r, "car", (i % 100) * 19, (i / 100) * 10, 20 + i % 3, 20, 0.5f));
  for (int i = 0; i < kTracked; ++i) {
    guint trk = add_tracking (r, guint64 (5000 + i), false);
    ASSERT_TRUE (gst_analytics_relation_meta_set_relation (r, GST_ANALYTICS_REL_TYPE_RELATE_TO, trk,
                                                           ods[size_t (i) * 3 + 2]));
  }
  CollectedObjects c = collect_objects (buf.b);
  ASSERT_EQ (c.objects.size (), size_t (kBoxes));
  SelectionCounts counts;
  const std::vector<SelectedObject> kept = select_objects (c.objects, 1920, 1080, {}, &counts);
  ASSERT_EQ (kept.size (), size_t (kMaxObjectsPerFrame));
  EXPECT_EQ (counts.over_maximum, uint64_t (kBoxes) - kMaxObjectsPerFrame);
  resolve_tracking (buf.b, kept, &c);
  /* One direct query per kept object, and at most one per tracker for each (the reverse
   * direction): against 10 000 x (1 + 16) looking up every box. */
  EXPECT_LE (c.tracking_lookups, uint64_t (kMaxObjectsPerFrame) * (1 + kTracked));
  EXPECT_GE (c.tracking_lookups, uint64_t (kMaxObjectsPerFrame));
  size_t tracked = 0;
  for (const SelectedObject &k : kept) {
    const DetectedObject &o = c.objects[k.index];
    if (!o.tracked)
      continue;
    ++tracked;
    ASSERT_LT (k.index, uint32_t (3 * kTracked));
    EXPECT_EQ (k.index % 3, 2u);
    EXPECT_EQ (o.tracking_id, 5000u + k.index / 3);
  }
  EXPECT_EQ (tracked, size_t (kTracked)); /* the widest boxes (22 x 20) are kept: all tracked ones */
}

TEST (ObjectSourceAnalytics, RoiMetasWhenTheRelationMetaHasNoOdMtd)
{
  BufferPtr buf;
  GstAnalyticsRelationMeta *r = relation_meta (buf.b);
  add_tracking (r, 5, false);
  GstVideoRegionOfInterestMeta *roi = add_roi (buf.b, "car", 10, 20, 30, 40);
  CollectedObjects c = collect_objects (buf.b);
  EXPECT_EQ (c.origin, ObjectOrigin::kRoiMeta);
  ASSERT_EQ (c.objects.size (), 1u);
  EXPECT_EQ (c.objects[0].write_back.roi, roi);
  EXPECT_FALSE (c.objects[0].write_back.has_od_mtd);
}

#else

TEST (ObjectSource, RoiMetasOnlyWithoutAnalytics)
{
  BufferPtr buf;
  add_roi (buf.b, "car", 10, 20, 30, 40);
  add_roi (buf.b, "bus", 0, 0, 30, 40);
  CollectedObjects c = collect_objects (buf.b);
  EXPECT_EQ (c.origin, ObjectOrigin::kRoiMeta);
  EXPECT_EQ (c.objects.size (), 2u);
}

#endif

}  // namespace
