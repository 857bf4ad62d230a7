/* Where a frame's objects come from (gst/objects/object_source.h): ROI metas on every version,
 * GstAnalyticsODMtd with its tracking on >= 1.24 builds, both on one buffer. */
#include "gst/objects/object_source.h"

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include "objects_test_support.h"

namespace {

using namespace dlainfer::objects;

using objects_test::BufferPtr;

GstVideoRegionOfInterestMeta *add_roi (GstBuffer *b, const char *type, guint x, guint y, guint w, guint h)
{
  return gst_buffer_add_video_region_of_interest_meta (b, type, x, y, w, h);
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
  car->id = 7;
  gst_video_region_of_interest_meta_add_param (
      car, gst_structure_new ("detection", "confidence", G_TYPE_DOUBLE, 0.75, nullptr));
  GstVideoRegionOfInterestMeta *person = add_roi (buf.b, "person", 1, 2, 3, 4);

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
  EXPECT_FALSE (b.tracked); /* id 0: nothing set it */
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

#ifdef TEST_ANALYTICS

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
