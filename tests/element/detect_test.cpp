/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dladetect's host side, no GPU: the decoder configuration from a .modelinfo and the properties
 * (the user's win; out-of-range values refused naming the property), the results on a buffer (ROI
 * metas with DL Streamer's "detection" parameter, GstAnalyticsODMtd on >= 1.24) and the bus, the
 * stats counters, and the element's own properties. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <gst/video/gstvideometa.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

#include "gst/detect_settings.h"
#include "gst/modelinfo/modelinfo.h"
#include "gst/outputs/detection_output.h"
#include "gst/stats.h"

namespace {

using dlainfer::DetectSettings;
using dlainfer::Settings;

const char *const kYolo =
    "[modelinfo]\n"
    "version=1.0\n"
    "dlainfer-decoder=yolo-anchors\n"
    "dlainfer-box-formula=yolov2\n"
    "dlainfer-threshold=0.5\n"
    "dlainfer-class-thresholds=1:0.7\n"
    "dlainfer-nms-iou-threshold=0.4\n";

Settings with_modelinfo (const char *text)
{
  Settings s;
  s.model = "/m/det.dla";
  auto mi = std::make_shared<dlainfer::ModelInfo> ();
  std::string error;
  EXPECT_TRUE (dlainfer::parse_modelinfo (text, "/m/det.modelinfo", mi.get (), &error)) << error;
  s.modelinfo = mi;
  return s;
}

host::Status configure (const Settings &s, const DetectSettings &d, detect::Config *c,
                        const std::vector<std::string> &labels = {})
{
  return dlainfer::detect_config (s, d, labels, c);
}

TEST (DetectConfig, ALoadableNoDecoderNamesIsRefused)
{
  Settings s;
  s.model = "/m/resnet.dla";
  detect::Config c;
  const host::Status st = configure (s, DetectSettings (), &c);
  EXPECT_EQ (st.code, host::Code::kSettings);
  EXPECT_NE (st.message.find ("No decoder for '/m/resnet.dla'"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("set the decoder property"), std::string::npos) << st.message;
  DetectSettings d;
  d.decoder = dlainfer::DecoderChoice::kYolov8;
  ASSERT_TRUE (configure (s, d, &c).ok ());
  EXPECT_EQ (c.family, detect::Family::kYolov8);
}

TEST (DetectConfig, ModelinfoKeysThenThePropertiesTheUserSet)
{
  Settings s = with_modelinfo (kYolo);
  DetectSettings d;
  d.threshold = 0.9f; /* not set by the user: the file's */
  detect::Config c;
  ASSERT_TRUE (configure (s, d, &c).ok ());
  EXPECT_EQ (c.family, detect::Family::kYoloAnchors);
  EXPECT_FALSE (c.yolov5_box);
  EXPECT_FLOAT_EQ (c.threshold, 0.5f);
  ASSERT_EQ (c.class_thresholds.size (), 1u);
  EXPECT_FLOAT_EQ (c.iou, 0.4f);
  s.user_set = {"threshold", "nms-iou-threshold", "max-detections"};
  d.nms_iou_threshold = 0.6f;
  d.max_detections = 7;
  d.decoder = dlainfer::DecoderChoice::kSsd;
  ASSERT_TRUE (configure (s, d, &c).ok ());
  EXPECT_FLOAT_EQ (c.threshold, 0.9f);
  EXPECT_TRUE (c.class_thresholds.empty ()) << "the property is every class's threshold";
  EXPECT_FLOAT_EQ (c.iou, 0.6f);
  EXPECT_EQ (c.max_detections, 7);
  EXPECT_EQ (c.family, detect::Family::kSsd) << "the decoder property wins over the file";
}

TEST (DetectConfig, OutOfRangePropertiesNamed)
{
  Settings s = with_modelinfo (kYolo);
  s.user_set = {"threshold"};
  DetectSettings d;
  d.threshold = 1.f;
  detect::Config c;
  host::Status st = configure (s, d, &c);
  EXPECT_EQ (st.code, host::Code::kSettings);
  EXPECT_NE (st.message.find ("threshold=1.0"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("[0, 1)"), std::string::npos) << st.message;
  s.user_set = {"nms-iou-threshold"};
  d.nms_iou_threshold = 0.f;
  st = configure (s, d, &c);
  EXPECT_EQ (st.code, host::Code::kSettings);
  EXPECT_NE (st.message.find ("nms-iou-threshold=0.0"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("(0, 1]"), std::string::npos) << st.message;
  /* A bad key of the file names the key (the decoder library's message). */
  st = configure (with_modelinfo ("[modelinfo]\nversion=1.0\ndlainfer-decoder=yolo9000\n"), DetectSettings (),
                  &c);
  EXPECT_EQ (st.code, host::Code::kSettings);
  EXPECT_NE (st.message.find ("dlainfer-decoder"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("yolo9000"), std::string::npos) << st.message;
}

TEST (DetectConfig, ObjectClassByLabelOrIndex)
{
  Settings s = with_modelinfo (kYolo);
  s.user_set = {"object-class"};
  s.labels = "/m/coco.txt";
  DetectSettings d;
  d.object_class = "truck, 0";
  detect::Config c;
  ASSERT_TRUE (configure (s, d, &c, {"person", "bicycle", "car", "motorcycle", "truck"}).ok ());
  EXPECT_EQ (c.object_classes, (std::vector<int>{4, 0}));
  d.object_class = "car,zeppelin";
  const host::Status st = configure (s, d, &c, {"person", "car"});
  EXPECT_EQ (st.code, host::Code::kSettings);
  EXPECT_NE (st.message.find ("'zeppelin', which is no label of '/m/coco.txt'"), std::string::npos)
      << st.message;
}

/* Upstream's tensor id yolo-v8-out names the decoded yolov8 tensor without any key of ours. */
TEST (DetectConfig, UpstreamTensorIdNamesTheDecoder)
{
  const Settings s = with_modelinfo (
      "[modelinfo]\nversion=1.0\n\n[output0]\ndir=output\ndims=1,84,8400\ntype=float16\nid=yolo-v8-out\n");
  ASSERT_EQ (dlainfer::decoder_keys (*s.modelinfo).at ("tensor-ids"), "yolo-v8-out");
  detect::Config c;
  ASSERT_TRUE (configure (s, DetectSettings (), &c).ok ());
  EXPECT_EQ (c.family, detect::Family::kYolov8);
  EXPECT_TRUE (c.decoded);
}

std::vector<detect::Detection> two_boxes ()
{
  return {{10.4f, 20.6f, 110.f, 220.4f, 0.9f, 1}, {300.f, 40.f, 360.f, 100.f, 0.6f, 7}};
}

/* A structure's field names, in order. */
std::vector<std::string> names_of (const GstStructure *s)
{
  std::vector<std::string> out;
  for (gint i = 0; i < gst_structure_n_fields (s); ++i)
    out.push_back (gst_structure_nth_field_name (s, guint (i)));
  return out;
}

double double_of (const GstStructure *s, const char *field)
{
  gdouble v = -1;
  EXPECT_TRUE (gst_structure_get_double (s, field, &v)) << field << " is no double";
  return v;
}

TEST (DetectionOutput, RoiMetasWithTheDetectionParameter)
{
  dlainfer::DetectionOutput out;
  out.prepare ({"person", "car"}, 2, g_quark_from_string ("swdla"));
  GstBuffer *buf = gst_buffer_new ();
  const auto d = two_boxes ();
  out.attach (buf, d.data (), int (d.size ()), 640, 480);
  gpointer state = nullptr;
  std::vector<GstVideoRegionOfInterestMeta *> rois;
  while (GstMeta *m =
             gst_buffer_iterate_meta_filtered (buf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))
    rois.push_back (reinterpret_cast<GstVideoRegionOfInterestMeta *> (m));
  ASSERT_EQ (rois.size (), 2u);
  EXPECT_STREQ (g_quark_to_string (rois[0]->roi_type), "car");
  EXPECT_EQ (rois[0]->x, 10u);
  EXPECT_EQ (rois[0]->y, 21u);
  EXPECT_EQ (rois[0]->w, 100u);
  EXPECT_EQ (rois[0]->h, 199u);
  EXPECT_STREQ (g_quark_to_string (rois[1]->roi_type), "class_7") << "past the labels: class_<n>";
  const GstStructure *p = gst_video_region_of_interest_meta_get_param (rois[0], "detection");
  ASSERT_NE (p, nullptr);
  EXPECT_STREQ (gst_structure_get_string (p, "label"), "car");
  gint id = -1;
  gdouble confidence = 0, x_max = 0;
  EXPECT_TRUE (gst_structure_get_int (p, "label_id", &id));
  EXPECT_EQ (id, 1);
  EXPECT_TRUE (gst_structure_get_double (p, "confidence", &confidence));
  EXPECT_NEAR (confidence, 0.9, 1e-6);
  EXPECT_TRUE (gst_structure_get_double (p, "x_max", &x_max));
  EXPECT_NEAR (x_max, 110.0 / 640.0, 1e-6);
  /* DL Streamer's gvadetect fields, in its order, the box normalised to the frame. */
  EXPECT_EQ (names_of (p), (std::vector<std::string>{"label", "label_id", "confidence", "x_min", "y_min",
                                                     "x_max", "y_max"}));
  EXPECT_NEAR (double_of (p, "x_min"), 10.4 / 640.0, 1e-6);
  EXPECT_NEAR (double_of (p, "y_min"), 20.6 / 480.0, 1e-6);
  EXPECT_NEAR (double_of (p, "y_max"), 220.4 / 480.0, 1e-6);
#ifdef HAVE_GST_ANALYTICS
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buf);
  ASSERT_NE (rmeta, nullptr);
  GstAnalyticsODMtd od;
  ASSERT_TRUE (gst_analytics_relation_meta_get_od_mtd (rmeta, 0, &od));
  gint x, y, w, h;
  gfloat loc_conf;
  ASSERT_TRUE (gst_analytics_od_mtd_get_location (&od, &x, &y, &w, &h, &loc_conf));
  EXPECT_EQ (x, 10);
  EXPECT_EQ (w, 100);
  EXPECT_FLOAT_EQ (loc_conf, 0.9f);
  EXPECT_STREQ (g_quark_to_string (gst_analytics_od_mtd_get_obj_type (&od)), "car");
  EXPECT_EQ (gst_analytics_relation_get_length (rmeta), 2u) << "one ODMtd per detection";
  ASSERT_TRUE (gst_analytics_relation_meta_get_od_mtd (rmeta, 1, &od));
  EXPECT_STREQ (g_quark_to_string (gst_analytics_od_mtd_get_obj_type (&od)), "class_7");
#endif
  gst_buffer_unref (buf);
}

TEST (DetectionOutput, MessageListsTheDetections)
{
  dlainfer::DetectionOutput out;
  out.prepare ({}, 8, g_quark_from_string ("swdla"));
  const auto d = two_boxes ();
  dlainfer::FrameTimes times;
  times.timestamp = 40 * GST_MSECOND;
  GstStructure *s = out.message (d.data (), int (d.size ()), times, 1);
  EXPECT_TRUE (gst_structure_has_name (s, "dladetect-result"));
  const GValue *list = gst_structure_get_value (s, "detections");
  ASSERT_NE (list, nullptr);
  ASSERT_EQ (gst_value_array_get_size (list), 2u);
  const GstStructure *first = gst_value_get_structure (gst_value_array_get_value (list, 0));
  EXPECT_STREQ (gst_structure_get_string (first, "label"), "class_1");
  gint width = 0, core = -1;
  EXPECT_TRUE (gst_structure_get_int (first, "width", &width));
  EXPECT_EQ (width, 100);
  /* docs/detection.md 6: label, class-id, confidence (a float), the box in whole frame pixels. */
  EXPECT_EQ (names_of (first),
             (std::vector<std::string>{"label", "class-id", "confidence", "x", "y", "width", "height"}));
  gint v = -1;
  EXPECT_TRUE (gst_structure_get_int (first, "class-id", &v) && v == 1) << v;
  EXPECT_TRUE (gst_structure_get_int (first, "x", &v) && v == 10) << v;
  EXPECT_TRUE (gst_structure_get_int (first, "y", &v) && v == 21) << v;
  EXPECT_TRUE (gst_structure_get_int (first, "height", &v) && v == 199) << v;
  const GValue *conf = gst_structure_get_value (first, "confidence");
  ASSERT_TRUE (conf && G_VALUE_HOLDS_FLOAT (conf));
  EXPECT_FLOAT_EQ (g_value_get_float (conf), 0.9f);
  EXPECT_TRUE (gst_structure_get_int (s, "dla-core", &core));
  EXPECT_EQ (core, 1);
  gst_structure_free (s);
}

TEST (DetectStats, CountsDetectionsAndDroppedCandidates)
{
  dlainfer::Stats stats;
  stats.detected ({3, 2000, 976});
  stats.detected ({1, 10, 0});
  GstStructure *s = stats.to_structure ();
  guint64 v = 0;
  EXPECT_TRUE (gst_structure_get_uint64 (s, "detections", &v));
  EXPECT_EQ (v, 4u);
  EXPECT_TRUE (gst_structure_get_uint64 (s, "detection-candidates", &v));
  EXPECT_EQ (v, 2010u);
  EXPECT_TRUE (gst_structure_get_uint64 (s, "candidates-dropped", &v));
  EXPECT_EQ (v, 976u);
  gst_structure_free (s);
}

TEST (DetectElement, ItsOwnPropertiesBesideTheCommonOnes)
{
  GstElement *e = gst_element_factory_make ("dladetect", nullptr);
  ASSERT_NE (e, nullptr) << "dladetect is not registered";
  GObjectClass *k = G_OBJECT_GET_CLASS (e);
  for (const char *name : {"decoder", "threshold", "nms-iou-threshold", "max-detections", "object-class",
                           "post-messages", "labels", "model", "dla-core", "model-instance-id", "stats"})
    EXPECT_NE (g_object_class_find_property (k, name), nullptr) << name;
  for (const char *name : {"inference-region", "top-k", "activation", "attribute-name"})
    EXPECT_EQ (g_object_class_find_property (k, name), nullptr) << name << " is dlainfer's";
  gfloat threshold = 0, iou = 0;
  guint max = 0;
  gint decoder = 0;
  g_object_get (e, "threshold", &threshold, "nms-iou-threshold", &iou, "max-detections", &max, "decoder",
                &decoder, nullptr);
  EXPECT_FLOAT_EQ (threshold, 0.25f);
  EXPECT_FLOAT_EQ (iou, 0.45f);
  EXPECT_EQ (max, 100u);
  EXPECT_EQ (decoder, -1);
  g_object_set (e, "object-class", "car,truck", "max-detections", 5u, nullptr);
  gchar *classes = nullptr;
  g_object_get (e, "object-class", &classes, "max-detections", &max, nullptr);
  EXPECT_STREQ (classes, "car,truck");
  EXPECT_EQ (max, 5u);
  g_free (classes);
  /* The same names in dlainfer are its own values. */
  GstElement *infer = gst_element_factory_make ("dlainfer", nullptr);
  g_object_get (infer, "threshold", &threshold, nullptr);
  EXPECT_FLOAT_EQ (threshold, 0.f);
  gst_object_unref (infer);
  gst_object_unref (e);
}

}  // namespace
