/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The dlatrack element (gst/gstdlatrack.cpp) in a harness: ids out on ROI metas (every version)
 * and as TrackingMtds related to ODMtds (>= 1.24), read back through upstream's API both ways and
 * through dlainfer's own object reader (what its per-track cache keys on); buffers without
 * objects untouched; flushes and timestamps going back; out-of-range properties. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gst/gstdlatrack.h"
#include "gst/meta/gstdlaobject.h"
#include "gst/objects/object_source.h"
#include "test_support.h"

#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 24, 0)
#define TEST_ANALYTICS 1
#include <gst/analytics/analytics.h>
#endif

/* Last: libcheck's macros clash with C++ headers included after them. */
#include <gst/check/gstharness.h>

namespace {

using dlainfer::objects::collect_objects;
using dlainfer::objects::CollectedObjects;

/* The element from its source, not the plugin (which needs the CUDA build). */
void register_dlatrack ()
{
  static const gboolean ok = GST_ELEMENT_REGISTER (dla_track, nullptr);
  ASSERT_TRUE (ok);
}

struct Harness {
  GstHarness *h;
  explicit Harness (const char *launch) : h ((register_dlatrack (), gst_harness_new_parse (launch)))
  {
    gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=640,height=480,framerate=30/1");
  }
  ~Harness () { gst_harness_teardown (h); }
  GstBuffer *push (GstBuffer *in) { return gst_harness_push_and_pull (h, in); }
  guint64 stat (const char *name) const
  {
    GstElement *e = gst_harness_find_element (h, "dlatrack"); /* inside the parse harness's bin */
    GstStructure *s = nullptr;
    g_object_get (e, "stats", &s, nullptr);
    gst_object_unref (e);
    guint64 v = G_MAXUINT64;
    gst_structure_get_uint64 (s, name, &v);
    gst_structure_free (s);
    return v;
  }
};

GstBuffer *frame (int index)
{
  GstBuffer *b = gst_buffer_new_allocate (nullptr, 16, nullptr);
  gst_buffer_memset (b, 0, guint8 (index), 16);
  GST_BUFFER_PTS (b) = GST_SECOND * guint64 (index) / 30;
  GST_BUFFER_DURATION (b) = GST_SECOND / 30;
  return b;
}

/* gvatrack's object_id on the buffer's `n`th ROI meta, -1 without one. */
int roi_object_id (GstBuffer *b, guint n = 0)
{
  gpointer state = nullptr;
  GstMeta *m;
  guint i = 0;
  while ((m = gst_buffer_iterate_meta_filtered (b, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    if (i++ != n)
      continue;
    auto *roi = reinterpret_cast<GstVideoRegionOfInterestMeta *> (m);
    int found = -1, count = 0;
    for (GList *l = roi->params; l; l = l->next) {
      const GstStructure *s = static_cast<const GstStructure *> (l->data);
      if (gst_structure_has_name (s, "object_id")) {
        ++count;
        EXPECT_TRUE (gst_structure_get_int (s, "id", &found));
      }
    }
    EXPECT_LE (count, 1) << "one object_id parameter";
    return found;
  }
  return -1;
}

/* A face moving 8 px a frame (ROI metas only: what 1.22 has). min-hits 2: an id from frame 1,
 * the same on every frame, and dlainfer's reader takes it as the object's tracking id. */
TEST (DlaTrack, RoiMetaGetsObjectIdDlainferReads)
{
  Harness t ("dlatrack min-hits=2 max-age=3");
  for (int f = 0; f < 6; ++f) {
    GstBuffer *in = frame (f);
    gst_buffer_add_video_region_of_interest_meta (in, "face", guint (100 + 8 * f), 100, 40, 40);
    GstBuffer *out = t.push (in);
    ASSERT_NE (out, nullptr);
    EXPECT_EQ (roi_object_id (out), f == 0 ? -1 : 1) << "frame " << f;
    CollectedObjects c = collect_objects (out);
    ASSERT_EQ (c.objects.size (), 1u);
    EXPECT_EQ (c.objects[0].tracked, f > 0);
    if (f > 0) {
      EXPECT_EQ (c.objects[0].tracking_id, 1u);
    }
    gst_buffer_unref (out);
  }
  EXPECT_EQ (t.stat ("confirmed"), 1u);
  EXPECT_EQ (t.stat ("frames"), 6u);
}

/* The public library reads dlatrack's ids: each ROI meta by index, its tracking id. */
TEST (DlaTrack, PublicLibraryReadsTheIds)
{
  Harness t ("dlatrack min-hits=1");
  GstBuffer *in = frame (0);
  gst_buffer_add_video_region_of_interest_meta (in, "face", 0, 0, 40, 40);
  gst_buffer_add_video_region_of_interest_meta (in, "face", 200, 0, 40, 40);
  GstBuffer *out = t.push (in);
  for (guint i = 0; i < 2; ++i) {
    GstVideoRegionOfInterestMeta *roi = gst_dla_buffer_get_object (out, i);
    ASSERT_NE (roi, nullptr);
    EXPECT_EQ (roi->x, i * 200);
    guint64 id = 0;
    EXPECT_TRUE (gst_dla_object_get_tracking_id (roi, &id));
    EXPECT_EQ (id, i + 1);
  }
  EXPECT_EQ (gst_dla_buffer_get_object (out, 2), nullptr);
  gst_buffer_unref (out);
  GstBuffer *plain = frame (1);
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_add_video_region_of_interest_meta (plain, "face", 0, 0, 4, 4);
  EXPECT_FALSE (gst_dla_object_get_tracking_id (roi, nullptr)) << "no object_id: no tracking id";
  gst_buffer_unref (plain);
}

/* An object_id already on the ROI meta (another tracker upstream) is replaced, not doubled. */
TEST (DlaTrack, ReplacesAnEarlierObjectId)
{
  Harness t ("dlatrack min-hits=1");
  GstBuffer *in = frame (0);
  GstVideoRegionOfInterestMeta *roi = gst_buffer_add_video_region_of_interest_meta (in, "face", 0, 0, 40, 40);
  gst_video_region_of_interest_meta_add_param (
      roi, gst_structure_new ("object_id", "id", G_TYPE_INT, 77, nullptr));
  GstBuffer *out = t.push (in);
  EXPECT_EQ (roi_object_id (out), 1);
  gst_buffer_unref (out);
}

/* Two faces crossing (one 10 px lower): each keeps its id. */
TEST (DlaTrack, CrossingFacesKeepIds)
{
  Harness t ("dlatrack min-hits=1");
  for (int f = 0; f < 20; ++f) {
    GstBuffer *in = frame (f);
    gst_buffer_add_video_region_of_interest_meta (in, "face", guint (100 + 10 * f), 100, 40, 40);
    gst_buffer_add_video_region_of_interest_meta (in, "face", guint (290 - 10 * f), 110, 40, 40);
    GstBuffer *out = t.push (in);
    EXPECT_EQ (roi_object_id (out, 0), 1) << "frame " << f;
    EXPECT_EQ (roi_object_id (out, 1), 2) << "frame " << f;
    gst_buffer_unref (out);
  }
}

/* No metas in, none out, the data as it was; the frame still counts. */
TEST (DlaTrack, BufferWithoutObjectsUntouched)
{
  Harness t ("dlatrack");
  GstBuffer *out = t.push (frame (3));
  ASSERT_NE (out, nullptr);
  EXPECT_EQ (gst_buffer_get_n_meta (out, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE), 0u);
  gpointer state = nullptr;
  EXPECT_EQ (gst_buffer_iterate_meta (out, &state), nullptr) << "no meta of any kind";
  GstMapInfo map;
  ASSERT_TRUE (gst_buffer_map (out, &map, GST_MAP_READ));
  EXPECT_EQ (map.size, 16u);
  for (gsize i = 0; i < map.size; ++i)
    EXPECT_EQ (map.data[i], 3);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  EXPECT_EQ (t.stat ("frames"), 1u);
}

/* A flush drops the tracks (counted) but not the id count: the object comes back as id 2. */
TEST (DlaTrack, FlushResetsTracksIdsGoOn)
{
  Harness t ("dlatrack min-hits=1");
  GstBuffer *in = frame (0);
  gst_buffer_add_video_region_of_interest_meta (in, "face", 0, 0, 40, 40);
  gst_buffer_unref (t.push (in));
  ASSERT_TRUE (gst_harness_push_event (t.h, gst_event_new_flush_start ()));
  ASSERT_TRUE (gst_harness_push_event (t.h, gst_event_new_flush_stop (TRUE)));
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_TIME);
  ASSERT_TRUE (gst_harness_push_event (t.h, gst_event_new_segment (&seg)));
  in = frame (1);
  gst_buffer_add_video_region_of_interest_meta (in, "face", 0, 0, 40, 40);
  GstBuffer *out = t.push (in);
  EXPECT_EQ (roi_object_id (out), 2);
  gst_buffer_unref (out);
  EXPECT_EQ (t.stat ("resets"), 1u);
}

/* Timestamps going back (no flush): the tracks reset, counted, ids go on. */
TEST (DlaTrack, TimestampsGoingBackResetTracks)
{
  Harness t ("dlatrack min-hits=1");
  for (int f : {10, 11, 2}) {
    GstBuffer *in = frame (f);
    gst_buffer_add_video_region_of_interest_meta (in, "face", 0, 0, 40, 40);
    GstBuffer *out = t.push (in);
    EXPECT_EQ (roi_object_id (out), f == 2 ? 2 : 1);
    gst_buffer_unref (out);
  }
  EXPECT_EQ (t.stat ("resets"), 1u);
}

/* Out-of-range values: GObject's warning names the property; the old value stays. */
TEST (DlaTrack, RangesRefused)
{
  register_dlatrack ();
  GstElement *e = gst_element_factory_make ("dlatrack", nullptr);
  ASSERT_NE (e, nullptr);
  struct {
    const char *name, *bad, *kept;
  } cases[] = {
      {"iou-threshold", "1.5", "0.3"}, {"iou-threshold", "-0.1", "0.3"}, {"max-age", "100001", "30"},
      {"max-age", "-1", "30"},         {"min-hits", "0", "3"},           {"min-hits", "1001", "3"},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE (std::string (c.name) + "=" + c.bad);
    dlainfer_test::ExpectLogs logs;
    gst_util_set_object_arg (G_OBJECT (e), c.name, c.bad);
    EXPECT_GE (logs.count (), 1) << "a warning";
    EXPECT_TRUE (logs.contains (std::string ("'") + c.name + "'")) << "the warning names the property";
    GValue v = G_VALUE_INIT;
    g_value_init (&v,
                  G_PARAM_SPEC_VALUE_TYPE (g_object_class_find_property (G_OBJECT_GET_CLASS (e), c.name)));
    g_object_get_property (G_OBJECT (e), c.name, &v);
    gchar *s = gst_value_serialize (&v);
    EXPECT_NEAR (g_ascii_strtod (s, nullptr), g_ascii_strtod (c.kept, nullptr), 1e-6);
    g_free (s);
    g_value_unset (&v);
  }
  gst_object_unref (e);
}

#ifdef TEST_ANALYTICS

GstAnalyticsODMtd add_od (GstBuffer *b, const char *type, gint x, gint y)
{
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (b);
  if (!rmeta)
    rmeta = gst_buffer_add_analytics_relation_meta (b);
  GstAnalyticsODMtd od;
  EXPECT_TRUE (
      gst_analytics_relation_meta_add_od_mtd (rmeta, g_quark_from_string (type), x, y, 40, 40, 0.9f, &od));
  return od;
}

/* ODMtd in: a TrackingMtd the ODMtd relates to (RELATE_TO, ODMtd -> TrackingMtd, as ioutracker),
 * found from the ODMtd (get_direct_related) and checked from both ends (get_relation), with the
 * id, first and last seen; dlainfer's reader resolves the same id; the matching ROI meta gets it. */
TEST (DlaTrack, OdMtdGetsRelatedTrackingMtd)
{
  Harness t ("dlatrack min-hits=1 max-age=0");
  for (int f = 0; f < 3; ++f) {
    GstBuffer *in = frame (f);
    add_od (in, "face", 100 + 5 * f, 100);
    gst_buffer_add_video_region_of_interest_meta (in, "face", guint (100 + 5 * f), 100, 40, 40);
    GstBuffer *out = t.push (in);
    GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (out);
    ASSERT_NE (rmeta, nullptr);
    gpointer state = nullptr;
    GstAnalyticsODMtd od;
    ASSERT_TRUE (
        gst_analytics_relation_meta_iterate (rmeta, &state, gst_analytics_od_mtd_get_mtd_type (), &od));
    GstAnalyticsTrackingMtd trk;
    state = nullptr;
    ASSERT_TRUE (gst_analytics_relation_meta_get_direct_related (
        rmeta, od.id, GST_ANALYTICS_REL_TYPE_RELATE_TO, gst_analytics_tracking_mtd_get_mtd_type (), &state,
        &trk));
    EXPECT_EQ (gst_analytics_relation_meta_get_relation (rmeta, od.id, trk.id),
               GST_ANALYTICS_REL_TYPE_RELATE_TO);
    EXPECT_EQ (gst_analytics_relation_meta_get_relation (rmeta, trk.id, od.id), GST_ANALYTICS_REL_TYPE_NONE);
    guint64 id = 0;
    GstClockTime first = 0, last = 0;
    gboolean lost = TRUE;
    ASSERT_TRUE (gst_analytics_tracking_mtd_get_info (&trk, &id, &first, &last, &lost));
    EXPECT_EQ (id, 1u);
    EXPECT_EQ (first, 0u);
    EXPECT_EQ (last, GST_SECOND * guint64 (f) / 30);
    EXPECT_FALSE (lost);
    EXPECT_EQ (roi_object_id (out), 1);

    CollectedObjects c = collect_objects (out);
    ASSERT_EQ (c.objects.size (), 1u);
    std::vector<dlainfer::objects::SelectedObject> kept (1);
    kept[0].index = 0;
    dlainfer::objects::resolve_tracking (out, kept, &c);
    EXPECT_TRUE (c.objects[0].tracked);
    EXPECT_EQ (c.objects[0].tracking_id, 1u);
    gst_buffer_unref (out);
  }
  /* The face gone with max-age 0: the track ends on this frame, a lost TrackingMtd says so. */
  GstBuffer *in = frame (3);
  add_od (in, "car", 400, 400);
  GstBuffer *out = t.push (in);
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (out);
  gpointer state = nullptr;
  GstAnalyticsTrackingMtd trk;
  bool lost_one = false;
  while (
      gst_analytics_relation_meta_iterate (rmeta, &state, gst_analytics_tracking_mtd_get_mtd_type (), &trk)) {
    guint64 id = 0;
    GstClockTime first = 0, last = 0;
    gboolean lost = FALSE;
    gst_analytics_tracking_mtd_get_info (&trk, &id, &first, &last, &lost);
    if (id == 1) {
      EXPECT_TRUE (lost);
      lost_one = true;
    }
  }
  EXPECT_TRUE (lost_one);
  /* dlainfer's reader reports the ended track (its cache and smoothing state drop it). */
  CollectedObjects c = collect_objects (out);
  ASSERT_EQ (c.objects.size (), 1u);
  std::vector<dlainfer::objects::SelectedObject> kept (1);
  kept[0].index = 0;
  dlainfer::objects::resolve_tracking (out, kept, &c);
  EXPECT_EQ (c.ended, std::vector<guint64>{1});
  gst_buffer_unref (out);
}

#endif

}  // namespace
