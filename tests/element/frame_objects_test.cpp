/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One frame's objects through the element's host-side flow (gst/objects/frame_objects.h,
 * object_output.h): selection, carried results and their age, tasks and waves, each batch item's
 * result, and the results written back (ROI parameter structure on every version, ClsMtd related
 * both ways on >= 1.24 builds, the message entry). CPU only. */
#include "gst/objects/frame_objects.h"

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common/numeric.h"
#include "common/tensor_layout.h"
#include "gst/meta/gstdlaobject.h"
#include "gst/objects/object_output.h"
#include "objects_test_support.h"

namespace {

using namespace dlainfer::objects;

using objects_test::BufferPtr;

/* A ROI meta tracked as DL Streamer's gvatrack does (object_id's id), or untracked (id 0). */
GstVideoRegionOfInterestMeta *add_roi (GstBuffer *b, const char *type, guint x, guint y, guint w, guint h,
                                       gint id = 0)
{
  GstVideoRegionOfInterestMeta *roi = gst_buffer_add_video_region_of_interest_meta (b, type, x, y, w, h);
  if (id != 0)
    gst_video_region_of_interest_meta_add_param (
        roi, gst_structure_new ("object_id", "id", G_TYPE_INT, id, nullptr));
  return roi;
}

ObjectResult result_of (int class_id, float confidence, const char *label)
{
  ObjectResult r;
  r.n_top = 1;
  r.top[0] = {class_id, confidence, g_quark_from_string (label)};
  return r;
}

/* The src task's part: every classified object gets `r`. */
void classify_all (ObjectFlow &flow, FrameObjects &fo, const ObjectResult &r)
{
  for (FrameObject &o : fo.objects)
    if (o.classify) {
      o.result = r;
      o.has_result = true;
    }
  flow.classified (fo);
}

FlowParams params (uint32_t batch, uint32_t max_tasks, uint32_t interval = 0)
{
  FlowParams p;
  p.batch = batch;
  p.max_tasks = max_tasks;
  p.reclassify_interval = interval;
  return p;
}

TEST (FrameObjects, SelectsPlansAndCounts)
{
  BufferPtr buf;
  add_roi (buf.b, "car", 0, 0, 64, 64);
  add_roi (buf.b, "car", 600, 400, 64, 64); /* outside a 320x240 frame */
  add_roi (buf.b, "person", 10, 10, 64, 64);
  add_roi (buf.b, "car", 100, 100, 8, 8); /* too small */
  for (int i = 0; i < 5; ++i)
    add_roi (buf.b, "car", guint (20 * i), 120, 32, 32);
  ObjectFlow flow;
  FrameObjects fo;
  FlowParams p = params (4, 1);
  p.selection.classes = {g_quark_from_string ("car")};
  flow.prepare (buf.b, 320, 240, p, &fo);
  EXPECT_EQ (fo.counts.seen, 9u);
  EXPECT_EQ (fo.counts.selection.degenerate, 1u);
  EXPECT_EQ (fo.counts.selection.filtered, 1u);
  EXPECT_EQ (fo.counts.selection.too_small, 1u);
  ASSERT_EQ (fo.objects.size (), 6u);
  EXPECT_EQ (fo.counts.classified, 6u);
  EXPECT_EQ (fo.counts.carried, 0u);
  /* Six objects of batch 4 with one free slot: 4 + 2, in two waves. */
  ASSERT_EQ (fo.plan.tasks.size (), 2u);
  EXPECT_EQ (fo.plan.tasks[0].count, 4u);
  EXPECT_EQ (fo.plan.tasks[1].count, 2u);
  EXPECT_EQ (fo.plan.waves, 2u);
  EXPECT_EQ (fo.objects[1].box.x, 0);
  EXPECT_EQ (fo.objects[1].box.y, 120);
  EXPECT_EQ (fo.objects[0].source.write_back.roi->x, 0u);
}

TEST (FrameObjects, ZeroObjectsPlanNoTask)
{
  BufferPtr buf;
  ObjectFlow flow;
  FrameObjects fo;
  flow.prepare (buf.b, 320, 240, params (16, 2), &fo);
  EXPECT_TRUE (fo.objects.empty ());
  EXPECT_TRUE (fo.plan.tasks.empty ());
  EXPECT_EQ (fo.plan.waves, 0u);
}

/* A tracked object carries its result for the interval, with its age; an untracked one never. */
TEST (FrameObjects, TrackedObjectsCarryTheirResult)
{
  ObjectFlow flow;
  const ObjectResult r = result_of (3, 0.75f, "blue");
  for (uint32_t frame = 0; frame < 6; ++frame) {
    BufferPtr buf;
    add_roi (buf.b, "car", 0, 0, 64, 64, 7);
    add_roi (buf.b, "car", 100, 0, 64, 64);
    FrameObjects fo;
    flow.prepare (buf.b, 320, 240, params (1, 2, 2), &fo);
    ASSERT_EQ (fo.objects.size (), 2u);
    const bool carried = frame % 3 != 0; /* classified on 0 and 3, carried on 1, 2, 4, 5 */
    EXPECT_EQ (fo.objects[0].classify, !carried) << "frame " << frame;
    EXPECT_TRUE (fo.objects[1].classify) << "frame " << frame;
    EXPECT_EQ (fo.counts.carried, carried ? 1u : 0u);
    EXPECT_EQ (fo.plan.tasks.size (), carried ? 1u : 2u);
    if (carried) {
      EXPECT_TRUE (fo.objects[0].has_result);
      EXPECT_EQ (fo.objects[0].age, frame % 3);
      EXPECT_EQ (fo.objects[0].result.best ().class_id, 3);
    }
    classify_all (flow, fo, r);
  }
  EXPECT_EQ (flow.cached (), 1u);
  flow.reset ();
  EXPECT_EQ (flow.cached (), 0u);
}

/* A detector that numbers its boxes on each frame (DL Streamer's `id` = the ODMtd's index, roimux's
 * = the meta's): the second box of the next frame is another object and must not carry the
 * result of this frame's second box. */
TEST (FrameObjects, PerFrameRoiIdsCarryNothing)
{
  ObjectFlow flow;
  for (uint32_t frame = 0; frame < 4; ++frame) {
    BufferPtr buf;
    for (gint i = 0; i < 3; ++i) {
      GstVideoRegionOfInterestMeta *roi =
          gst_buffer_add_video_region_of_interest_meta (buf.b, "car", guint (i) * 70 + frame, 0, 64, 64);
      roi->id = i;
    }
    FrameObjects fo;
    flow.prepare (buf.b, 320, 240, params (1, 1, 10), &fo);
    ASSERT_EQ (fo.objects.size (), 3u);
    EXPECT_EQ (fo.counts.carried, 0u) << "frame " << frame;
    EXPECT_EQ (fo.counts.classified, 3u);
    classify_all (flow, fo, result_of (1, 0.5f, "red"));
  }
  EXPECT_EQ (flow.cached (), 0u);
}

/* Results stored frames after their frame was decided (tasks in flight) age from their own frame. */
TEST (FrameObjects, ResultsStoredLateAgeFromTheirFrame)
{
  ObjectFlow flow;
  FrameObjects first, second, third;
  for (FrameObjects *fo : {&first, &second}) {
    BufferPtr buf;
    add_roi (buf.b, "car", 0, 0, 64, 64, 9);
    flow.prepare (buf.b, 320, 240, params (1, 2, 5), fo);
    EXPECT_TRUE (fo->objects[0].classify); /* nothing cached yet: both are classified */
  }
  classify_all (flow, first, result_of (1, 0.5f, "red"));
  BufferPtr buf;
  add_roi (buf.b, "car", 0, 0, 64, 64, 9);
  flow.prepare (buf.b, 320, 240, params (1, 2, 5), &third);
  ASSERT_FALSE (third.objects[0].classify);
  EXPECT_EQ (third.objects[0].age, 2u);
}

/* A box grown by 20 % or more is classified again before its interval ends. */
TEST (FrameObjects, GrownBoxIsClassifiedAgain)
{
  ObjectFlow flow;
  const guint sizes[] = {60, 64, 66}; /* 64^2 / 60^2 = 1.14: carried; 66^2 / 60^2 = 1.21: classified */
  const bool classified[] = {true, false, true};
  for (int i = 0; i < 3; ++i) {
    BufferPtr buf;
    add_roi (buf.b, "car", 0, 0, sizes[i], sizes[i], 4);
    FrameObjects fo;
    flow.prepare (buf.b, 320, 240, params (1, 1, 10), &fo);
    ASSERT_EQ (fo.objects.size (), 1u);
    EXPECT_EQ (fo.objects[0].classify, classified[i]) << "frame " << i;
    classify_all (flow, fo, result_of (1, 0.5f, "red"));
  }
}

/* Batch item b of an output tensor reads its own scores: top-1 per item, labels attached. */
TEST (FrameObjects, ReadsEachBatchItem)
{
  tensor::View v;
  ASSERT_TRUE (tensor::make_view (tensor::Layout::kChw16, tensor::ElemType::kFp16, 4, 5, 1, 1, &v));
  std::vector<uint8_t> data (size_t (v.size), 0);
  for (int64_t n = 0; n < 4; ++n)
    for (int64_t c = 0; c < 5; ++c) {
      const uint16_t h = tensor::float_to_half (c == (n + 1) % 5 ? 4.f : 0.f);
      std::memcpy (data.data () + v.offset (n, c, 0, 0), &h, 2);
    }
  const std::vector<GQuark> labels = {g_quark_from_string ("a"), g_quark_from_string ("b"),
                                      g_quark_from_string ("c"), g_quark_from_string ("d"),
                                      g_quark_from_string ("e")};
  postprocess::Params p;
  p.top_k = 3;
  std::vector<float> scores;
  std::vector<postprocess::Result> results;
  for (int64_t n = 0; n < 4; ++n) {
    ObjectResult r;
    read_item_result (v, data.data (), n, p, labels, &scores, &results, &r);
    ASSERT_EQ (r.n_top, 3u);
    EXPECT_EQ (r.best ().class_id, int ((n + 1) % 5)) << "item " << n;
    EXPECT_EQ (r.best ().label, labels[size_t ((n + 1) % 5)]);
    EXPECT_GT (r.best ().confidence, r.top[1].confidence);
  }
  /* A top-k beyond what the cache keeps is cut to kCachedTopK. */
  p.top_k = 0;
  ObjectResult r;
  read_item_result (v, data.data (), 0, p, labels, &scores, &results, &r);
  EXPECT_EQ (r.n_top, 5u);
}

FrameObject object_with (GstVideoRegionOfInterestMeta *roi, bool classify, uint32_t age)
{
  FrameObject o;
  o.source.write_back.roi = roi;
  o.box = {roi->x, roi->y, roi->w, roi->h};
  o.classify = classify;
  o.age = age;
  o.has_result = true;
  o.result = result_of (2, 0.9f, "green");
  o.result.n_top = 2;
  o.result.top[1] = {0, 0.05f, g_quark_from_string ("red")};
  return o;
}

const OutputNames kNames{"vehicle-colour", "colours.bin", "scores", "swdla"};

TEST (ObjectOutput, RoiParameterStructure)
{
  BufferPtr buf;
  GstVideoRegionOfInterestMeta *roi = add_roi (buf.b, "car", 10, 20, 30, 40);
  EXPECT_EQ (write_object_result (buf.b, object_with (roi, false, 3), kNames), 1);
  const GstStructure *s = gst_video_region_of_interest_meta_get_param (roi, "vehicle-colour");
  ASSERT_NE (s, nullptr);
  EXPECT_STREQ (gst_structure_get_string (s, "label"), "green");
  gint id = -1;
  gdouble conf = 0;
  gboolean carried = FALSE;
  guint age = 0;
  EXPECT_TRUE (gst_structure_get_int (s, "label_id", &id));
  EXPECT_EQ (id, 2);
  EXPECT_TRUE (gst_structure_get_double (s, "confidence", &conf));
  EXPECT_NEAR (conf, 0.9, 1e-6);
  EXPECT_TRUE (gst_structure_get_boolean (s, "carried", &carried));
  EXPECT_TRUE (carried);
  EXPECT_TRUE (gst_structure_get_uint (s, "age", &age));
  EXPECT_EQ (age, 3u);
  EXPECT_STREQ (gst_structure_get_string (s, "model_name"), "colours.bin");
  EXPECT_STREQ (gst_structure_get_string (s, "layer_name"), "scores");
  EXPECT_STREQ (gst_structure_get_string (s, "backend"), "swdla");
  EXPECT_FALSE (gst_structure_has_field (s, "type"));
  const GValue *labels = gst_structure_get_value (s, "labels");
  ASSERT_NE (labels, nullptr);
  ASSERT_EQ (gst_value_array_get_size (labels), 2u);
  EXPECT_STREQ (g_value_get_string (gst_value_array_get_value (labels, 1)), "red");
  const GValue *confidences = gst_structure_get_value (s, "confidences");
  ASSERT_EQ (gst_value_array_get_size (confidences), 2u);
  EXPECT_NEAR (g_value_get_double (gst_value_array_get_value (confidences, 1)), 0.05, 1e-6);

  /* Written again (the next run of the same element name): replaced, not duplicated. */
  FrameObject again = object_with (roi, true, 0);
  again.result.top[0].label = g_quark_from_string ("yellow");
  EXPECT_EQ (write_object_result (buf.b, again, kNames), 1);
  EXPECT_EQ (g_list_length (roi->params), 1u);
  EXPECT_STREQ (
      gst_structure_get_string (gst_video_region_of_interest_meta_get_param (roi, "vehicle-colour"), "label"),
      "yellow");
}

/* DL Streamer's field names, types and order: readers that walk the fields see what they expect. */
TEST (ObjectOutput, ParameterFieldsInOrder)
{
  BufferPtr buf;
  GstVideoRegionOfInterestMeta *roi = add_roi (buf.b, "car", 10, 20, 30, 40);
  GstStructure *s = object_param_structure (object_with (roi, true, 0), kNames);
  const std::pair<const char *, GType> want[] = {
      {"label", G_TYPE_STRING},      {"label_id", G_TYPE_INT},       {"confidence", G_TYPE_DOUBLE},
      {"model_name", G_TYPE_STRING}, {"layer_name", G_TYPE_STRING},  {"carried", G_TYPE_BOOLEAN},
      {"age", G_TYPE_UINT},          {"backend", G_TYPE_STRING},     {"label_ids", GST_TYPE_ARRAY},
      {"labels", GST_TYPE_ARRAY},    {"confidences", GST_TYPE_ARRAY}};
  ASSERT_EQ (gst_structure_n_fields (s), G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); ++i) {
    EXPECT_STREQ (gst_structure_nth_field_name (s, i), want[i].first);
    EXPECT_EQ (gst_structure_get_field_type (s, want[i].first), want[i].second) << want[i].first;
  }
  EXPECT_STREQ (gst_structure_get_name (s), "vehicle-colour");
  gboolean carried = TRUE;
  EXPECT_TRUE (gst_structure_get_boolean (s, "carried", &carried));
  EXPECT_FALSE (carried);
  const GValue *ids = gst_structure_get_value (s, "label_ids");
  ASSERT_EQ (gst_value_array_get_size (ids), 2u);
  EXPECT_EQ (g_value_get_int (gst_value_array_get_value (ids, 0)), 2);
  EXPECT_EQ (g_value_get_int (gst_value_array_get_value (ids, 1)), 0);
  /* A copy (a buffer copy copies the ROI meta's parameters) is equal. */
  GstStructure *copy = gst_structure_copy (s);
  EXPECT_TRUE (gst_structure_is_equal (s, copy));
  gst_structure_free (copy);
  gst_structure_free (s);
}

/* A default OutputNames names no structure: nothing is written on the ROI meta. */
TEST (ObjectOutput, DefaultNamesWriteNoParameter)
{
  BufferPtr buf;
  GstVideoRegionOfInterestMeta *roi = add_roi (buf.b, "car", 10, 20, 30, 40);
  EXPECT_EQ (write_object_result (buf.b, object_with (roi, true, 0), OutputNames ()), 0);
  EXPECT_EQ (roi->params, nullptr);
}

/* The public library's reader finds what the element wrote, by attribute name or the first. */
TEST (ObjectOutput, PublicReaderReadsTheParameter)
{
  BufferPtr buf;
  GstVideoRegionOfInterestMeta *roi = add_roi (buf.b, "car", 10, 20, 30, 40);
  /* Another element's parameter first: not a dlainfer result. */
  gst_video_region_of_interest_meta_add_param (
      roi, gst_structure_new ("detection", "label", G_TYPE_STRING, "car", nullptr));
  const gchar *label = nullptr;
  EXPECT_FALSE (gst_dla_object_get_result (roi, nullptr, nullptr, &label, nullptr, nullptr, nullptr));
  write_object_result (buf.b, object_with (roi, false, 4), kNames);
  gint class_id = -1;
  gfloat confidence = 0;
  gboolean carried = FALSE;
  guint age = 0;
  ASSERT_TRUE (gst_dla_object_get_result (roi, nullptr, &class_id, &label, &confidence, &carried, &age));
  EXPECT_EQ (class_id, 2);
  EXPECT_STREQ (label, "green");
  EXPECT_NEAR (confidence, 0.9f, 1e-6);
  EXPECT_TRUE (carried);
  EXPECT_EQ (age, 4u);
  EXPECT_TRUE (
      gst_dla_object_get_result (roi, "vehicle-colour", nullptr, nullptr, nullptr, nullptr, nullptr));
  EXPECT_FALSE (
      gst_dla_object_get_result (roi, "other-element", nullptr, nullptr, nullptr, nullptr, nullptr));
}

TEST (ObjectOutput, NoResultWritesNothing)
{
  BufferPtr buf;
  GstVideoRegionOfInterestMeta *roi = add_roi (buf.b, "car", 10, 20, 30, 40);
  FrameObject o = object_with (roi, true, 0);
  o.result.n_top = 0; /* every score under the threshold */
  EXPECT_EQ (write_object_result (buf.b, o, kNames), 0);
  EXPECT_EQ (roi->params, nullptr);
}

/* A frame's objects written in one call: each gets its own result, those without one nothing. */
TEST (ObjectOutput, FrameResultsWrittenPerObject)
{
  BufferPtr buf;
  std::vector<FrameObject> objects;
  const char *labels[] = {"green", "red", "blue"};
  for (guint i = 0; i < 3; ++i) {
    objects.push_back (object_with (add_roi (buf.b, "car", 10 + 50 * i, 20, 30, 40), true, 0));
    objects.back ().result.top[0].label = g_quark_from_string (labels[i]);
  }
  objects[1].has_result = false;
  EXPECT_EQ (write_object_results (buf.b, objects, kNames), 2);
  for (guint i = 0; i < 3; ++i) {
    const GstStructure *s =
        gst_video_region_of_interest_meta_get_param (objects[i].source.write_back.roi, "vehicle-colour");
    if (i == 1) {
      EXPECT_EQ (s, nullptr);
      continue;
    }
    ASSERT_NE (s, nullptr) << "object " << i;
    EXPECT_STREQ (gst_structure_get_string (s, "label"), labels[i]);
  }
}

TEST (ObjectOutput, MessageEntryHasTheBox)
{
  BufferPtr buf;
  GstVideoRegionOfInterestMeta *roi = add_roi (buf.b, "car", 10, 20, 30, 40);
  FrameObject o = object_with (roi, true, 0);
  o.source.tracked = true;
  o.source.tracking_id = 42;
  o.dla_core = 1;
  GstStructure *s = object_message_entry (o);
  gint x = 0, w = 0, core = -1;
  guint64 id = 0;
  EXPECT_TRUE (gst_structure_get_int (s, "x", &x) && gst_structure_get_int (s, "width", &w));
  EXPECT_EQ (x, 10);
  EXPECT_EQ (w, 30);
  EXPECT_TRUE (gst_structure_get_uint64 (s, "tracking-id", &id));
  EXPECT_EQ (id, 42u);
  EXPECT_TRUE (gst_structure_get_int (s, "dla-core", &core));
  EXPECT_EQ (core, 1);
  const GValue *labels = gst_structure_get_value (s, "labels");
  ASSERT_EQ (gst_value_array_get_size (labels), 2u);
  EXPECT_STREQ (g_value_get_string (gst_value_array_get_value (labels, 0)), "green");
  gst_structure_free (s);
}

#ifdef TEST_ANALYTICS
/* One ClsMtd per object, found from the detection by RELATE_TO (upstream) and CONTAIN (DL
 * Streamer), and the detection from it by IS_PART_OF; the ROI meta too when both describe it. */
TEST (ObjectOutput, ClassificationRelatedBothWays)
{
  BufferPtr buf;
  GstAnalyticsRelationMeta *rmeta = gst_buffer_add_analytics_relation_meta (buf.b);
  GstAnalyticsODMtd od;
  ASSERT_TRUE (
      gst_analytics_relation_meta_add_od_mtd (rmeta, g_quark_from_string ("car"), 10, 20, 30, 40, 0.8f, &od));
  GstVideoRegionOfInterestMeta *roi = add_roi (buf.b, "car", 10, 20, 30, 40);
  FrameObject o = object_with (roi, true, 0);
  o.source.write_back.has_od_mtd = true;
  o.source.write_back.od_mtd_id = od.id;
  EXPECT_EQ (write_object_result (buf.b, o, kNames), 2);
  EXPECT_NE (gst_video_region_of_interest_meta_get_param (roi, "vehicle-colour"), nullptr);
  rmeta = gst_buffer_get_analytics_relation_meta (buf.b);
  for (GstAnalyticsRelTypes rel : {GST_ANALYTICS_REL_TYPE_RELATE_TO, GST_ANALYTICS_REL_TYPE_CONTAIN}) {
    gpointer state = nullptr;
    GstAnalyticsClsMtd cls;
    ASSERT_TRUE (gst_analytics_relation_meta_get_direct_related (
        rmeta, od.id, rel, gst_analytics_cls_mtd_get_mtd_type (), &state, &cls))
        << "relation " << int (rel);
    EXPECT_EQ (gst_analytics_cls_mtd_get_quark (&cls, 0), g_quark_from_string ("green"));
    EXPECT_NEAR (gst_analytics_cls_mtd_get_level (&cls, 0), 0.9f, 1e-6);
    EXPECT_EQ (gst_analytics_cls_mtd_get_length (&cls), 2u);
    gpointer back = nullptr;
    GstAnalyticsODMtd parent;
    EXPECT_TRUE (gst_analytics_relation_meta_get_direct_related (
        rmeta, cls.id, GST_ANALYTICS_REL_TYPE_IS_PART_OF, gst_analytics_od_mtd_get_mtd_type (), &back,
        &parent));
    EXPECT_EQ (parent.id, od.id);
  }
}

/* Each of a frame's ODMtds gets its own ClsMtd when the frame is written in one call (the relation
 * meta looked up once for all of them). */
TEST (ObjectOutput, FrameClassificationsRelatedToTheirDetections)
{
  BufferPtr buf;
  GstAnalyticsRelationMeta *rmeta = gst_buffer_add_analytics_relation_meta (buf.b);
  std::vector<FrameObject> objects;
  const char *labels[] = {"green", "red", "blue"};
  std::vector<guint> ods;
  for (guint i = 0; i < 3; ++i) {
    GstAnalyticsODMtd od;
    ASSERT_TRUE (gst_analytics_relation_meta_add_od_mtd (rmeta, g_quark_from_string ("car"), 10 + 50 * i, 20,
                                                         30, 40, 0.8f, &od));
    ods.push_back (od.id);
    objects.push_back (object_with (add_roi (buf.b, "car", 10 + 50 * i, 20, 30, 40), true, 0));
    objects.back ().source.write_back.has_od_mtd = true;
    objects.back ().source.write_back.od_mtd_id = od.id;
    objects.back ().result.top[0].label = g_quark_from_string (labels[i]);
  }
  EXPECT_EQ (write_object_results (buf.b, objects, kNames), 6);
  rmeta = gst_buffer_get_analytics_relation_meta (buf.b);
  for (guint i = 0; i < 3; ++i) {
    gpointer state = nullptr;
    GstAnalyticsClsMtd cls;
    ASSERT_TRUE (gst_analytics_relation_meta_get_direct_related (
        rmeta, ods[i], GST_ANALYTICS_REL_TYPE_RELATE_TO, gst_analytics_cls_mtd_get_mtd_type (), &state, &cls))
        << "object " << i;
    EXPECT_EQ (gst_analytics_cls_mtd_get_quark (&cls, 0), g_quark_from_string (labels[i]));
  }
}

/* A buffer with one car ODMtd whose TrackingMtd (id, lost) relates to it. */
void add_tracked_od (GstBuffer *b, guint64 id, bool lost)
{
  GstAnalyticsRelationMeta *r = gst_buffer_add_analytics_relation_meta (b);
  GstAnalyticsODMtd od;
  GstAnalyticsTrackingMtd trk;
  ASSERT_TRUE (
      gst_analytics_relation_meta_add_od_mtd (r, g_quark_from_string ("car"), 0, 0, 64, 64, 0.8f, &od));
  ASSERT_TRUE (gst_analytics_relation_meta_add_tracking_mtd (r, id, 0, &trk));
  if (lost) {
    ASSERT_TRUE (gst_analytics_tracking_mtd_set_lost (&trk));
  }
  ASSERT_TRUE (gst_analytics_relation_meta_set_relation (r, GST_ANALYTICS_REL_TYPE_RELATE_TO, od.id, trk.id));
}

/* Two frames in flight: frame 1 classifies track 8, frame 2 reports it lost, then frame 1's result
 * comes back. A new object that reuses id 8 on frame 3 is classified, not given that result. */
TEST (FrameObjects, LostTrackGetsNoResultStoredAfterTheLoss)
{
  ObjectFlow flow;
  FrameObjects first, second, third;
  BufferPtr a, b, c;
  add_tracked_od (a.b, 8, false);
  add_tracked_od (b.b, 8, true);
  add_tracked_od (c.b, 8, false);
  flow.prepare (a.b, 320, 240, params (1, 2, 10), &first);
  ASSERT_EQ (first.objects.size (), 1u);
  ASSERT_TRUE (first.objects[0].source.tracked);
  EXPECT_TRUE (first.objects[0].classify);
  flow.prepare (b.b, 320, 240, params (1, 2, 10), &second);
  ASSERT_TRUE (second.objects[0].source.tracking_lost);
  classify_all (flow, first, result_of (1, 0.5f, "stale"));
  classify_all (flow, second, result_of (1, 0.5f, "stale"));
  EXPECT_EQ (flow.cached (), 0u);
  flow.prepare (c.b, 320, 240, params (1, 2, 10), &third);
  EXPECT_TRUE (third.objects[0].classify);
  EXPECT_FALSE (third.objects[0].has_result);
}

#endif

}  // namespace

/* ---- each classified object gets the result of its own crop ---- */

/* Object k of the mixes below: its box at x = 16 + 40 k, so that a box names its object. */
constexpr int kMixClasses = 8;
guint mix_x (int k)
{
  return guint (16 + 40 * k);
}
int object_of_box (const Box &b)
{
  return int ((b.x - 16) / 40);
}

/* The DLA's part for one task: batch item j classifies the box its crop came from (the plan entry
 * the element crops for it) as that box's object. */
std::vector<uint8_t> task_output (const FrameObjects &fo, const PlannedTask &t, const tensor::View &v)
{
  std::vector<uint8_t> data (size_t (v.size), 0);
  for (uint32_t j = 0; j < t.count; ++j) {
    const int k = object_of_box (planned_object (fo, t.first + j).box);
    for (int64_t c = 0; c < v.c; ++c) {
      const uint16_t h = tensor::float_to_half (c == k ? 6.f : 0.f);
      std::memcpy (data.data () + v.offset (j, c, 0, 0), &h, 2);
    }
  }
  return data;
}

/* Frame 1 classifies the tracked objects `carried` (ids 100 + k); frame 2 has all of `order`:
 * those carried, untracked ones (no id), a newly tracked one (id 200 + k). Every object of frame 2
 * must end with the result of its own box: the carried ones their cached result, untouched, the
 * others their own batch item's, whatever the order, batch and wave size. */
void expect_own_results (const std::vector<int> &order, const std::vector<bool> &carried,
                         const std::vector<bool> &tracked, uint32_t batch, uint32_t max_tasks)
{
  std::vector<GQuark> labels;
  for (int c = 0; c < kMixClasses; ++c)
    labels.push_back (g_quark_from_string (("object" + std::to_string (c)).c_str ()));
  tensor::View v;
  ASSERT_TRUE (tensor::make_view (tensor::Layout::kChw16, tensor::ElemType::kFp16, int64_t (batch),
                                  kMixClasses, 1, 1, &v));
  postprocess::Params post;
  std::vector<float> scores;
  std::vector<postprocess::Result> results;
  ObjectFlow flow;
  const auto run_frame = [&] (bool first, FrameObjects *fo) {
    BufferPtr buf;
    for (int k : order) {
      if (first && !carried[size_t (k)])
        continue;
      const gint id = carried[size_t (k)] ? 100 + k : tracked[size_t (k)] ? 200 + k : 0;
      add_roi (buf.b, "car", mix_x (k), 8, 32, 32, id);
    }
    flow.prepare (buf.b, 320, 240, params (batch, max_tasks, 10), fo);
    for (const PlannedTask &t : fo->plan.tasks) {
      const std::vector<uint8_t> out = task_output (*fo, t, v);
      read_task_results (&flow, fo, t.first, t.count, v, out.data (), post, labels, int (t.wave % 2), &scores,
                         &results);
    }
    flow.classified (*fo);
  };
  FrameObjects frame1, frame2;
  run_frame (true, &frame1);
  run_frame (false, &frame2);
  ASSERT_EQ (frame2.objects.size (), order.size ());
  for (const FrameObject &o : frame2.objects) {
    const int k = object_of_box (o.box);
    SCOPED_TRACE ("object " + std::to_string (k));
    EXPECT_EQ (o.classify, !carried[size_t (k)]);
    ASSERT_TRUE (o.has_result);
    ASSERT_GT (o.result.n_top, 0u);
    EXPECT_EQ (o.result.best ().class_id, k) << "another object's result";
    EXPECT_EQ (o.result.best ().label, labels[size_t (k)]);
    if (carried[size_t (k)]) {
      EXPECT_EQ (o.age, 1u);
      EXPECT_EQ (o.dla_core, -1) << "a carried object was classified again";
    } else {
      EXPECT_GE (o.dla_core, 0);
    }
  }
  /* What the cache keeps for the next frame is each tracked object's own result too. */
  FrameObjects frame3;
  run_frame (false, &frame3);
  for (const FrameObject &o : frame3.objects) {
    if (!o.classify) {
      EXPECT_EQ (o.result.best ().class_id, object_of_box (o.box)) << "cached for another object";
    }
  }
}

TEST (FrameObjects, EachObjectGetsItsOwnResultInEveryOrder)
{
  /* Objects 0, 1 carried; 2, 3 untracked; 4 newly tracked. */
  const std::vector<bool> carried = {true, true, false, false, false};
  const std::vector<bool> tracked = {true, true, false, false, true};
  std::vector<int> order = {0, 1, 2, 3, 4};
  int orders = 0;
  do {
    for (uint32_t batch : {1u, 2u, 4u})
      for (uint32_t max_tasks : {1u, 2u}) {
        std::string trace = "order";
        for (int k : order)
          trace += " " + std::to_string (k);
        SCOPED_TRACE (trace + ", batch " + std::to_string (batch) + ", " + std::to_string (max_tasks) +
                      " in flight");
        expect_own_results (order, carried, tracked, batch, max_tasks);
        if (HasFailure ())
          return;
      }
    ++orders;
  } while (std::next_permutation (order.begin (), order.end ()));
  EXPECT_EQ (orders, 120);
}
