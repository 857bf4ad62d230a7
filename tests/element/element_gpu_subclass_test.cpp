/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstDlaBaseInfer's seam on a GPU: testdlainfer (test_subclass.h), an element the tests define,
 * runs frames through the base's whole path (engine, fused kernel, frames in flight, src task) with
 * its own stage: each frame comes out in input order with its colour's classification, and the
 * stage published every one. The plugin is never loaded here (its copy of the base type would
 * clash with this program's). */
#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include <string>

#include "gpu_support.h"
#include "test_subclass.h"

namespace {

using namespace element_gpu;
/* Not SwdlaTest: that fixture wants the plugin registered, and the plugin's copy of the base type
 * must never load beside this program's (its plugin path is empty, tests/element/meson.build). */
TEST (Subclass, ItsStageRunsOnTheBasePath)
{
  ASSERT_TRUE (element_test::register_test_subclass ());
  const std::string desc =
      "testdlainfer name=infer max-in-flight=4 max-detections=3 model=" + model ("colours") +
      " labels=" + labels_of ("colours");
  GstHarness *h = gst_harness_new_parse (desc.c_str ());
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1");
  const guint64 n = 64;
  for (guint64 i = 0; i < n; ++i)
    ASSERT_EQ (gst_harness_push (h, coloured_frame (i, 64, 48)), GST_FLOW_OK) << i;
  for (guint64 i = 0; i < n; ++i) {
    GstBuffer *b = gst_harness_pull (h);
    ASSERT_NE (b, nullptr) << i;
    EXPECT_EQ (GST_BUFFER_OFFSET (b), i);
    const Result r = result_of (b);
    ASSERT_TRUE (r.found) << i;
    EXPECT_EQ (r.labels[0], kColours[i % 8].name) << "frame " << i;
    gst_buffer_unref (b);
  }
  GstElement *e = gst_harness_find_element (h, "testdlainfer");
  ASSERT_NE (e, nullptr);
  guint published = 0, max_detections = 0;
  g_object_get (e, "frames-published", &published, "max-detections", &max_detections, nullptr);
  EXPECT_EQ (published, guint (n)) << "the subclass's stage published every frame";
  EXPECT_EQ (max_detections, 3u);
  gst_object_unref (e);
  gst_harness_teardown (h);
}

}  // namespace
