/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the element shows the outside, without a GPU: the stats counters and their structure, the
 * interval schedule, the bus message, the model-info structure, and (GStreamer >= 1.24) the
 * GstAnalyticsClsMtd output. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gst/interval.h"
#include "gst/model_description.h"
#include "gst/outputs/analytics_output.h"
#include "gst/outputs/result_message.h"
#include "gst/stats.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

namespace {

guint64 u64 (const GstStructure *s, const char *field)
{
  guint64 v = G_MAXUINT64;
  EXPECT_TRUE (gst_structure_get_uint64 (s, field, &v)) << field;
  return v;
}

double dbl (const GstStructure *s, const char *field)
{
  double v = -1;
  EXPECT_TRUE (gst_structure_get_double (s, field, &v)) << field;
  return v;
}

/* Before any frame: all counters and times zero, every field present. */
TEST (Stats, StartsAtZero)
{
  dlainfer::Stats stats;
  GstStructure *s = stats.to_structure ();
  EXPECT_STREQ (gst_structure_get_name (s), "dlainfer-stats");
  for (const char *f : {"frames", "inferences", "skipped", "errors", "graph-launches"})
    EXPECT_EQ (u64 (s, f), 0u) << f;
  for (const char *stage : {"preprocess", "dla", "postprocess", "total"}) {
    EXPECT_EQ (dbl (s, (std::string (stage) + "-mean-ms").c_str ()), 0.0);
    EXPECT_EQ (dbl (s, (std::string (stage) + "-max-ms").c_str ()), 0.0);
  }
  gst_structure_free (s);
}

/* Counts per kind, mean and max per stage, unmeasured (negative) times left out, reset. */
TEST (Stats, CountsMeansAndMaxima)
{
  dlainfer::Stats stats;
  stats.inferred (1.f, 4.f, 0.1f, 6.f, false);
  stats.inferred (3.f, 2.f, 0.3f, 8.f, true);
  stats.inferred (-1.f, 6.f, 0.2f, -1.f, true);
  stats.skipped ();
  stats.skipped ();
  stats.failed ();
  GstStructure *s = stats.to_structure ();
  EXPECT_EQ (u64 (s, "frames"), 6u);
  EXPECT_EQ (u64 (s, "inferences"), 3u);
  EXPECT_EQ (u64 (s, "skipped"), 2u);
  EXPECT_EQ (u64 (s, "errors"), 1u);
  EXPECT_EQ (u64 (s, "graph-launches"), 2u);
  EXPECT_NEAR (dbl (s, "preprocess-mean-ms"), 2.0, 1e-6) << "the unmeasured -1 is not a sample";
  EXPECT_NEAR (dbl (s, "preprocess-max-ms"), 3.0, 1e-6);
  EXPECT_NEAR (dbl (s, "dla-mean-ms"), 4.0, 1e-6);
  EXPECT_NEAR (dbl (s, "dla-max-ms"), 6.0, 1e-6);
  EXPECT_NEAR (dbl (s, "postprocess-mean-ms"), 0.2, 1e-6);
  EXPECT_NEAR (dbl (s, "postprocess-max-ms"), 0.3, 1e-6);
  EXPECT_NEAR (dbl (s, "total-mean-ms"), 7.0, 1e-6);
  EXPECT_NEAR (dbl (s, "total-max-ms"), 8.0, 1e-6);
  gchar *text = gst_structure_to_string (s);
  EXPECT_NE (std::string (text).find ("frames=(guint64)6"), std::string::npos) << text;
  g_free (text);
  gst_structure_free (s);
  stats.reset ();
  s = stats.to_structure ();
  EXPECT_EQ (u64 (s, "frames"), 0u);
  EXPECT_EQ (u64 (s, "graph-launches"), 0u);
  EXPECT_EQ (dbl (s, "dla-max-ms"), 0.0);
  gst_structure_free (s);
}

/* `cores`: one "dla-core" structure per core the model runs on, in core order, with this
 * element's tasks there and their busy time; frames without a core count nowhere; reset empties it. */
TEST (Stats, PerCoreTasksAndBusyTime)
{
  dlainfer::Stats stats;
  stats.set_cores ({1, 0});
  stats.inferred (1.f, 2.f, 0.1f, 3.f, false, 0, 2.f);
  stats.inferred (1.f, -1.f, 0.1f, 3.f, false, 1, 1.5f);
  stats.inferred (1.f, -1.f, 0.1f, 3.f, false, 1, 1.5f);
  stats.inferred (1.f, -1.f, 0.1f, 3.f, false, 1, -1.f); /* no busy time known: a task, no time */
  stats.inferred (1.f, -1.f, 0.1f, 3.f, false);          /* no core */
  GstStructure *s = stats.to_structure ();
  const GValue *cores = gst_structure_get_value (s, "cores");
  ASSERT_NE (cores, nullptr);
  ASSERT_TRUE (GST_VALUE_HOLDS_ARRAY (cores));
  ASSERT_EQ (gst_value_array_get_size (cores), 2u);
  const double busy[2] = {2.0, 3.0};
  const guint64 tasks[2] = {1, 3};
  for (guint i = 0; i < 2; ++i) {
    const GstStructure *c = gst_value_get_structure (gst_value_array_get_value (cores, i));
    EXPECT_STREQ (gst_structure_get_name (c), "dla-core");
    int core = -1;
    EXPECT_TRUE (gst_structure_get_int (c, "core", &core));
    EXPECT_EQ (core, int (i)) << "in core order";
    EXPECT_EQ (u64 (c, "tasks"), tasks[i]) << "core " << i;
    EXPECT_NEAR (dbl (c, "busy-ms"), busy[i], 1e-6) << "core " << i;
  }
  EXPECT_EQ (u64 (s, "inferences"), 5u);
  gst_structure_free (s);
  stats.reset ();
  s = stats.to_structure ();
  EXPECT_EQ (gst_value_array_get_size (gst_structure_get_value (s, "cores")), 0u)
      << "reset forgets the cores";
  gst_structure_free (s);
}

/* roi-list: a frame counts once whatever its tasks; each task is an inference; the objects'
 * counts add up, and reset clears them. */
TEST (Stats, ObjectsFramesTasksAndCounts)
{
  dlainfer::Stats stats;
  stats.object_launch ();
  stats.object_task (1.f, 2.f, 0.1f, 3.f, true, 0, 2.f);
  stats.object_task (-1.f, 2.f, 0.1f, 3.f, false, 0, 2.f);
  stats.object_launch (); /* a launch that missed the graph cache */
  stats.object_task (1.f, 2.f, 0.1f, 3.f, false, 0, 2.f);
  stats.object_frame ({20, 16, 2, 1, 3, 4, 5});
  stats.object_frame ({1, 0, 1, 0, 0, 0, 0}); /* every object carried: no task */
  GstStructure *s = stats.to_structure ();
  EXPECT_EQ (u64 (s, "frames"), 2u);
  EXPECT_EQ (u64 (s, "inferences"), 3u);
  EXPECT_EQ (u64 (s, "graph-launches"), 1u);
  EXPECT_NEAR (dbl (s, "preprocess-mean-ms"), 1.0, 1e-6) << "the unmeasured task left out";
  const std::pair<const char *, guint64> expected[] = {
      {"objects-seen", 21},        {"objects-classified", 16}, {"objects-carried", 3},
      {"objects-degenerate", 1},   {"objects-filtered", 3},    {"objects-too-small", 4},
      {"objects-over-maximum", 5}, {"objects-launches", 2}};
  for (const auto &e : expected)
    EXPECT_EQ (u64 (s, e.first), e.second) << e.first;
  gst_structure_free (s);
  stats.reset ();
  s = stats.to_structure ();
  for (const auto &e : expected)
    EXPECT_EQ (u64 (s, e.first), 0u) << e.first;
  gst_structure_free (s);
}

/* interval N: frames 0, N+1, 2(N+1)... run the model; the others are 1..N frames old. */
TEST (Interval, EveryNPlusOnethFrame)
{
  for (uint32_t n : {0u, 1u, 2u, 4u}) {
    dlainfer::Interval iv;
    for (uint32_t frame = 0; frame < 20; ++frame) {
      const bool infer = iv.infer_now (n);
      EXPECT_EQ (infer, frame % (n + 1) == 0) << "interval " << n << " frame " << frame;
      if (infer)
        iv.inferred ();
      else
        EXPECT_EQ (iv.age (), frame % (n + 1)) << "interval " << n << " frame " << frame;
    }
  }
}

/* The first frame, and the first after a reset (start, flush), always run; lowering the interval
 * mid-stream takes effect at once. */
TEST (Interval, ResetAndChange)
{
  dlainfer::Interval iv;
  EXPECT_TRUE (iv.infer_now (100));
  iv.inferred ();
  EXPECT_FALSE (iv.infer_now (100));
  EXPECT_FALSE (iv.infer_now (100));
  EXPECT_EQ (iv.age (), 2u);
  EXPECT_TRUE (iv.infer_now (1)) << "age 2 >= new interval 1";
  iv.inferred ();
  EXPECT_FALSE (iv.infer_now (1));
  iv.reset ();
  EXPECT_TRUE (iv.infer_now (1)) << "nothing to carry after a reset";
}

/* The bus message: name, times, and the results as three parallel arrays in their order. */
TEST (ResultMessage, Contents)
{
  const GstDlaClassification r[3] = {{2, g_quark_from_string ("red"), 0.7f},
                                     {4, g_quark_from_string ("blue"), 0.2f},
                                     {0, g_quark_from_string ("black"), 0.1f}};
  dlainfer::FrameTimes t;
  t.timestamp = 3 * GST_SECOND;
  t.running_time = 2 * GST_SECOND;
  t.stream_time = 3 * GST_SECOND;
  t.duration = GST_SECOND / 30;
  GstStructure *s = dlainfer::result_structure (r, 3, t, g_quark_from_string ("swdla"), 1);
  EXPECT_TRUE (gst_structure_has_name (s, "dlainfer-result"));
  gint core = -1;
  EXPECT_TRUE (gst_structure_get_int (s, "dla-core", &core));
  EXPECT_EQ (core, 1) << "the core that produced the results";
  EXPECT_EQ (u64 (s, "timestamp"), 3 * GST_SECOND);
  EXPECT_EQ (u64 (s, "running-time"), 2 * GST_SECOND);
  EXPECT_EQ (u64 (s, "stream-time"), 3 * GST_SECOND);
  EXPECT_EQ (u64 (s, "duration"), GST_SECOND / 30);
  EXPECT_STREQ (gst_structure_get_string (s, "backend"), "swdla");
  const GValue *ids = gst_structure_get_value (s, "class-ids");
  const GValue *labels = gst_structure_get_value (s, "labels");
  const GValue *conf = gst_structure_get_value (s, "confidences");
  ASSERT_TRUE (ids && labels && conf);
  ASSERT_EQ (gst_value_array_get_size (ids), 3u);
  ASSERT_EQ (gst_value_array_get_size (labels), 3u);
  ASSERT_EQ (gst_value_array_get_size (conf), 3u);
  for (guint i = 0; i < 3; ++i) {
    EXPECT_EQ (g_value_get_int (gst_value_array_get_value (ids, i)), r[i].class_id);
    EXPECT_STREQ (g_value_get_string (gst_value_array_get_value (labels, i)), g_quark_to_string (r[i].label));
    EXPECT_FLOAT_EQ (g_value_get_float (gst_value_array_get_value (conf, i)), r[i].confidence);
  }
  /* What gst-launch-1.0 -m prints. */
  gchar *text = gst_structure_to_string (s);
  EXPECT_NE (std::string (text).find ("labels=(string)< red, blue, black >"), std::string::npos) << text;
  g_free (text);
  gst_structure_free (s);
}

/* No results (all below the threshold): empty arrays; unknown times stay GST_CLOCK_TIME_NONE. */
TEST (ResultMessage, EmptyAndUntimed)
{
  GstStructure *s = dlainfer::result_structure (nullptr, 0, dlainfer::FrameTimes (), 0);
  EXPECT_EQ (u64 (s, "timestamp"), GST_CLOCK_TIME_NONE);
  EXPECT_EQ (gst_value_array_get_size (gst_structure_get_value (s, "labels")), 0u);
  EXPECT_STREQ (gst_structure_get_string (s, "backend"), "");
  gint core = 0;
  EXPECT_TRUE (gst_structure_get_int (s, "dla-core", &core));
  EXPECT_EQ (core, -1) << "unknown";
  gst_structure_free (s);
}

dla::TensorInfo tensor (const char *name, tensor::Layout layout, tensor::ElemType type, int64_t c, int64_t h,
                        int64_t w)
{
  dla::TensorInfo t;
  t.name = name;
  EXPECT_TRUE (tensor::make_view (layout, type, 1, c, h, w, &t.view));
  std::strncpy (t.raw.name, name, sizeof t.raw.name - 1);
  t.raw.size = uint64_t (t.view.size);
  t.raw.n = 1;
  t.raw.c = uint64_t (c);
  t.raw.h = uint64_t (h);
  t.raw.w = uint64_t (w);
  t.reading = "test reading";
  return t;
}

const GstStructure *nth_tensor (const GstStructure *s, const char *field, guint i)
{
  const GValue *array = gst_structure_get_value (s, field);
  EXPECT_NE (array, nullptr) << field;
  if (!array || i >= gst_value_array_get_size (array))
    return nullptr;
  return gst_value_get_structure (gst_value_array_get_value (array, i));
}

/* model-info: where the model runs, each tensor with its dims, layout, type, size and the raw
 * descriptor, the .modelinfo read and the source of each setting. */
TEST (ModelInfo, Structure)
{
  const std::vector<dla::TensorInfo> inputs{
      tensor ("image", tensor::Layout::kChw16, tensor::ElemType::kFp16, 3, 224, 224)};
  const std::vector<dla::TensorInfo> outputs{
      tensor ("logits", tensor::Layout::kChw16, tensor::ElemType::kFp16, 8, 1, 1)};
  dlainfer::ModelDescription d;
  d.model = "/models/colours.swdla";
  d.backend = "swdla";
  d.cudla_version = "13.0.0";
  d.library = "/x/libcudla.so.1";
  d.description = "backend=swdla ...";
  d.dla_core = 1;
  d.dla_cores = {1};
  d.cuda_device = 0;
  d.classes = 8;
  d.labels = 8;
  d.inputs = &inputs;
  d.outputs = &outputs;
  d.modelinfo = "/models/colours.modelinfo";
  const std::map<std::string, std::string> origin{{"mean", "modelinfo"}, {"labels", "property"}};
  d.origin = &origin;
  GstStructure *s = dlainfer::model_info_structure (d);
  EXPECT_TRUE (gst_structure_has_name (s, "dlainfer-model-info"));
  EXPECT_STREQ (gst_structure_get_string (s, "model"), "/models/colours.swdla");
  EXPECT_STREQ (gst_structure_get_string (s, "backend"), "swdla");
  EXPECT_STREQ (gst_structure_get_string (s, "cudla-version"), "13.0.0");
  EXPECT_STREQ (gst_structure_get_string (s, "library"), "/x/libcudla.so.1");
  EXPECT_STREQ (gst_structure_get_string (s, "description"), "backend=swdla ...");
  gint core = -1, classes = -1, labels = -1, device = -1;
  EXPECT_TRUE (gst_structure_get (s, "dla-core", G_TYPE_INT, &core, "classes", G_TYPE_INT, &classes, "labels",
                                  G_TYPE_INT, &labels, "cuda-device", G_TYPE_INT, &device, nullptr));
  EXPECT_EQ (core, 1);
  EXPECT_EQ (classes, 8);
  EXPECT_EQ (labels, 8);
  EXPECT_EQ (device, 0);
  const GValue *cores = gst_structure_get_value (s, "dla-cores");
  ASSERT_TRUE (cores && GST_VALUE_HOLDS_ARRAY (cores)) << "the cores the model is loaded on";
  ASSERT_EQ (gst_value_array_get_size (cores), 1u);
  EXPECT_EQ (g_value_get_int (gst_value_array_get_value (cores, 0)), 1);
  /* The .modelinfo read, and where each setting came from. */
  EXPECT_STREQ (gst_structure_get_string (s, "modelinfo"), "/models/colours.modelinfo");
  const GValue *src = gst_structure_get_value (s, "settings-source");
  ASSERT_TRUE (src && GST_VALUE_HOLDS_STRUCTURE (src));
  EXPECT_STREQ (gst_structure_get_string (gst_value_get_structure (src), "mean"), "modelinfo");
  EXPECT_STREQ (gst_structure_get_string (gst_value_get_structure (src), "labels"), "property");

  const GstStructure *in = nth_tensor (s, "inputs", 0);
  ASSERT_NE (in, nullptr);
  EXPECT_STREQ (gst_structure_get_string (in, "name"), "image");
  EXPECT_STREQ (gst_structure_get_string (in, "layout"), "chw16");
  EXPECT_STREQ (gst_structure_get_string (in, "type"), "fp16");
  gint64 c = 0, h = 0, w = 0, size = 0;
  EXPECT_TRUE (gst_structure_get (in, "c", G_TYPE_INT64, &c, "h", G_TYPE_INT64, &h, "w", G_TYPE_INT64, &w,
                                  "size", G_TYPE_INT64, &size, nullptr));
  EXPECT_EQ (c, 3);
  EXPECT_EQ (h, 224);
  EXPECT_EQ (w, 224);
  EXPECT_EQ (size, 224 * 224 * 16 * 2) << "chw16 pads 3 channels to 16 lanes of FP16";
  EXPECT_STREQ (gst_structure_get_string (in, "reading"), "test reading");
  EXPECT_NE (std::string (gst_structure_get_string (in, "raw")).find ("image"), std::string::npos);

  const GstStructure *out = nth_tensor (s, "outputs", 0);
  ASSERT_NE (out, nullptr);
  EXPECT_STREQ (gst_structure_get_string (out, "name"), "logits");
  EXPECT_TRUE (gst_structure_get (out, "c", G_TYPE_INT64, &c, nullptr));
  EXPECT_EQ (c, 8);
  EXPECT_EQ (nth_tensor (s, "outputs", 1), nullptr);

  /* It serialises (gst-inspect / gst_util_get_object_arg print it). */
  gchar *text = gst_structure_to_string (s);
  EXPECT_NE (std::string (text).find ("chw16"), std::string::npos) << text;
  g_free (text);
  gst_structure_free (s);
}

#ifdef HAVE_GST_ANALYTICS

/* GStreamer >= 1.24: the results as one GstAnalyticsClsMtd, confidences and label quarks in
 * order, in the relation meta (made if missing, reused if present); survives a copy. */
TEST (Analytics, ClassificationMtd)
{
  ASSERT_TRUE (dlainfer::analytics_enabled ());
  GstBuffer *buf = gst_buffer_new ();
  const float conf[3] = {0.7f, 0.2f, 0.1f};
  const GQuark labels[3] = {g_quark_from_string ("red"), g_quark_from_string ("blue"),
                            g_quark_from_string ("black")};
  ASSERT_TRUE (dlainfer::add_analytics_classification (buf, conf, labels, 3));
  ASSERT_TRUE (dlainfer::add_analytics_classification (buf, conf, labels, 1)) << "a second producer";
  GstBuffer *copy = gst_buffer_copy (buf);
  gst_buffer_unref (buf);

  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (copy);
  ASSERT_NE (rmeta, nullptr);
  gpointer state = nullptr;
  GstAnalyticsMtd mtd;
  std::vector<gsize> lengths;
  while (gst_analytics_relation_meta_iterate (rmeta, &state, gst_analytics_cls_mtd_get_mtd_type (), &mtd)) {
    GstAnalyticsClsMtd *cls = reinterpret_cast<GstAnalyticsClsMtd *> (&mtd);
    const gsize n = gst_analytics_cls_mtd_get_length (cls);
    lengths.push_back (n);
    for (gsize i = 0; i < n; ++i) {
      EXPECT_FLOAT_EQ (gst_analytics_cls_mtd_get_level (cls, i), conf[i]);
      EXPECT_EQ (gst_analytics_cls_mtd_get_quark (cls, i), labels[i]);
    }
  }
  EXPECT_EQ (lengths, (std::vector<gsize>{3, 1})) << "both in one relation meta";
  gpointer s2 = nullptr;
  int rmetas = 0;
  while (gst_buffer_iterate_meta_filtered (copy, &s2, GST_ANALYTICS_RELATION_META_API_TYPE))
    ++rmetas;
  EXPECT_EQ (rmetas, 1);
  gst_buffer_unref (copy);
}

#else

/* GStreamer < 1.24: no analytics output, and saying so. */
TEST (Analytics, AbsentBeforeGst124)
{
  EXPECT_FALSE (dlainfer::analytics_enabled ());
  GstBuffer *buf = gst_buffer_new ();
  const float conf = 1.f;
  const GQuark label = g_quark_from_string ("x");
  EXPECT_FALSE (dlainfer::add_analytics_classification (buf, &conf, &label, 1));
  gst_buffer_unref (buf);
}

#endif

}  // namespace
