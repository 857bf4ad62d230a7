/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstDlaBaseInfer subclassed from outside the plugin (test_subclass.h), on the CPU: the subclass
 * is an element of the family with the common properties, its own and none of dlainfer's; one
 * mutability check serves both; start fails with the same errors as dlainfer. The plugin is never
 * loaded here: its own copy of the base type would clash with this program's. */
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "bus_error.h"
#include "gst/gstdlabaseinfer.h"
#include "no_device.h"
#include "test_subclass.h"
#include "test_support.h"

namespace {

using element_test::BusError;

bool registered ()
{
  static const bool done = element_test::register_test_subclass ();
  return done;
}

GstElement *make_test_element ()
{
  EXPECT_TRUE (registered ());
  GstElement *e = gst_element_factory_make ("testdlainfer", nullptr);
  EXPECT_NE (e, nullptr);
  return e;
}

std::set<std::string> property_names (GObjectClass *klass)
{
  guint n = 0;
  GParamSpec **specs = g_object_class_list_properties (klass, &n);
  std::set<std::string> out;
  for (guint i = 0; i < n; ++i)
    out.insert (specs[i]->name);
  g_free (specs);
  return out;
}

/* What every element of the family has (GObject's `name` and basetransform's `qos` aside). */
const std::set<std::string> kCommon = {
    "model",       "model-instance-id", "labels",      "dla-core",      "cuda-device-id", "mean",
    "std",         "mean-string",       "std-string",  "channel-order", "task-timeout",   "max-in-flight",
    "input-scale", "output-scale",      "resize-mode", "crop-fraction", "pad-value",      "antialias",
    "interval",    "tensor-meta",       "tensor-type", "dump-dir",      "dump-count",     "stats",
    "model-info"};
/* dlainfer's own: classification and roi-list. */
const std::set<std::string> kClassification = {"activation",
                                               "top-k",
                                               "threshold",
                                               "post-messages",
                                               "inference-region",
                                               "object-class",
                                               "reclassify-interval",
                                               "input-object-min-width",
                                               "input-object-min-height",
                                               "max-objects",
                                               "attribute-name"};

TEST (BaseSubclass, IsAnElementOfTheFamily)
{
  GstElement *e = make_test_element ();
  ASSERT_NE (e, nullptr);
  EXPECT_TRUE (GST_IS_DLA_BASE_INFER (e));
  EXPECT_TRUE (G_TYPE_IS_ABSTRACT (GST_TYPE_DLA_BASE_INFER));
  std::set<std::string> base = property_names (G_OBJECT_CLASS (g_type_class_peek (GST_TYPE_DLA_BASE_INFER)));
  base.erase ("name");
  base.erase ("parent");
  base.erase ("qos");
  EXPECT_EQ (base, kCommon);
  const std::set<std::string> own = property_names (G_OBJECT_GET_CLASS (e));
  for (const std::string &p : kCommon)
    EXPECT_EQ (own.count (p), 1u) << p;
  for (const std::string &p : kClassification)
    EXPECT_EQ (own.count (p), 0u) << p << " is dlainfer's, not the base's";
  for (const char *p : {"max-detections", "box-threshold", "frames-published"})
    EXPECT_EQ (own.count (p), 1u) << p;
  /* The base's pad templates: the formats the fused kernel reads, as Jetson NVMM (first), in CUDA
   * or system memory. */
  for (const char *pad : {"sink", "src"}) {
    GstPadTemplate *t = gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (e), pad);
    ASSERT_NE (t, nullptr) << pad;
    GstCaps *caps = gst_pad_template_get_caps (t);
    EXPECT_EQ (gst_caps_get_size (caps), 3u);
    EXPECT_TRUE (gst_caps_features_contains (gst_caps_get_features (caps, 0), "memory:NVMM")) << pad;
    gst_caps_unref (caps);
  }
  gst_object_unref (e);
}

/* The first warning on the element's bus, or "". */
std::string pop_warning (GstBus *bus)
{
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  if (!m)
    return "";
  GError *err = nullptr;
  gst_message_parse_warning (m, &err, nullptr);
  const std::string out = err->message;
  g_error_free (err);
  gst_message_unref (m);
  return out;
}

/* A READY-only property, the base's or the subclass's, is refused in PLAYING with the one message;
 * the others change. */
TEST (BaseSubclass, OneMutabilityCheckForBothClasses)
{
  GstElement *e = make_test_element ();
  ASSERT_NE (e, nullptr);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (e, bus);
  g_object_set (e, "model", "/a.bin", "max-detections", 7u, nullptr);
  GST_OBJECT_LOCK (e);
  GST_STATE (e) = GST_STATE_PLAYING;
  GST_OBJECT_UNLOCK (e);
  for (const char *name : {"model", "max-detections"}) {
    gst_util_set_object_arg (G_OBJECT (e), name, "9");
    EXPECT_EQ (pop_warning (bus),
               std::string ("Property '") + name +
                   "' can only change in the NULL or READY state; the new value is ignored");
  }
  gchar *model = nullptr;
  guint max = 0;
  g_object_get (e, "model", &model, "max-detections", &max, nullptr);
  EXPECT_STREQ (model, "/a.bin");
  EXPECT_EQ (max, 7u);
  g_free (model);
  g_object_set (e, "box-threshold", 0.25f, "interval", 3u, nullptr);
  gfloat threshold = 0.f;
  guint interval = 0;
  g_object_get (e, "box-threshold", &threshold, "interval", &interval, nullptr);
  EXPECT_FLOAT_EQ (threshold, 0.25f);
  EXPECT_EQ (interval, 3u);
  EXPECT_EQ (pop_warning (bus), "") << "per-frame properties change without a warning";
  GST_OBJECT_LOCK (e);
  GST_STATE (e) = GST_STATE_NULL;
  GST_OBJECT_UNLOCK (e);
  gst_element_set_bus (e, nullptr);
  gst_object_unref (bus);
  gst_object_unref (e);
}

/* Runs the subclass in a pipeline towards PAUSED: the first error. */
BusError start (const std::string &props)
{
  EXPECT_TRUE (registered ());
  const std::string desc =
      "videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=64,height=48 ! "
      "testdlainfer name=infer " +
      props + " ! fakesink";
  GError *perr = nullptr;
  GstElement *pipeline = gst_parse_launch (desc.c_str (), &perr);
  EXPECT_EQ (perr, nullptr) << desc;
  g_clear_error (&perr);
  if (!pipeline)
    return {};
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  BusError out = element_test::wait_bus_error (pipeline, 10 * GST_SECOND, GST_MESSAGE_ASYNC_DONE);
  GstElement *infer = gst_bin_get_by_name (GST_BIN (pipeline), "infer");
  guint published = 1;
  g_object_get (infer, "frames-published", &published, nullptr);
  EXPECT_EQ (published, 0u) << "no model, no stage";
  gst_object_unref (infer);
  EXPECT_EQ (gst_element_set_state (pipeline, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipeline);
  return out;
}

TEST (BaseSubclass, StartFailsAsDlainferDoes)
{
  BusError e = start ("");
  EXPECT_TRUE (e.posted);
  EXPECT_EQ (e.domain, GST_RESOURCE_ERROR);
  EXPECT_EQ (e.code, GST_RESOURCE_ERROR_SETTINGS);
  EXPECT_NE (e.message.find ("No model set"), std::string::npos) << e.message;
  e = start ("model=/nonexistent/model.bin");
  EXPECT_EQ (e.domain, GST_RESOURCE_ERROR);
  EXPECT_EQ (e.code, GST_RESOURCE_ERROR_NOT_FOUND);
  EXPECT_NE (e.message.find ("/nonexistent/model.bin"), std::string::npos) << e.message;
}

/* A subclass without a stage is told so at start, before any model is opened. */
TEST (BaseSubclass, NoStageIsRefusedAtStart)
{
  ASSERT_TRUE (registered ());
  GError *perr = nullptr;
  GstElement *pipeline = gst_parse_launch (
      "videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=64,height=48 ! "
      "testdlanostage model=/nonexistent/model.bin ! fakesink",
      &perr);
  ASSERT_EQ (perr, nullptr);
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  const BusError e = element_test::wait_bus_error (pipeline, 10 * GST_SECOND, GST_MESSAGE_ASYNC_DONE);
  EXPECT_EQ (e.domain, GST_CORE_ERROR);
  EXPECT_EQ (e.code, GST_CORE_ERROR_NOT_IMPLEMENTED);
  EXPECT_NE (e.message.find ("sets no make_stage"), std::string::npos) << e.message;
  EXPECT_EQ (gst_element_set_state (pipeline, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipeline);
}

/* With the software DLA and a real model, but no CUDA device: the same error as dlainfer's. */
TEST (BaseSubclass, StartWithoutCudaDevice)
{
  element_test::expect_no_cuda_device_error (start);
}

}  // namespace
