/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* objectdetectionoverlay (gst-plugins-bad >= 1.24) shows dlainfer's classification of a detection
 * in place of the detector's label: it draws "LABEL (c=LEVEL)" from the first ClsMtd related to the
 * ODMtd by RELATE_TO, else the ODMtd's own type and confidence. So a frame whose "car" detection
 * carries our "green" 0.90 result must render exactly as a frame whose detector said "green" with
 * 0.90, and differently from the bare "car" detection. CPU only; skipped where the element or the
 * analytics library is missing (GStreamer 1.22). */
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gst/objects/object_output.h"
#include "objects_test_support.h"

namespace {

#ifdef TEST_ANALYTICS
using namespace dlainfer::objects;

constexpr int kWidth = 320, kHeight = 240;
constexpr guint kX = 120, kY = 100, kW = 120, kH = 80;

/* A grey RGBA frame with one detection of `type` at `confidence`; with `classified`, dlainfer's
 * result for it ("green" 0.90, "red" 0.05 second) written as the element writes it. */
GstBuffer *frame (const char *type, float confidence, bool classified)
{
  GstBuffer *b = gst_buffer_new_allocate (nullptr, kWidth * kHeight * 4, nullptr);
  gst_buffer_memset (b, 0, 0x80, kWidth * kHeight * 4);
  GstAnalyticsRelationMeta *rmeta = gst_buffer_add_analytics_relation_meta (b);
  GstAnalyticsODMtd od;
  EXPECT_TRUE (gst_analytics_relation_meta_add_od_mtd (rmeta, g_quark_from_string (type), kX, kY, kW, kH,
                                                       confidence, &od));
  if (classified) {
    FrameObject o;
    o.box = {kX, kY, kW, kH};
    o.classify = true;
    o.has_result = true;
    o.result.n_top = 2;
    o.result.top[0] = {2, 0.9f, g_quark_from_string ("green")};
    o.result.top[1] = {0, 0.05f, g_quark_from_string ("red")};
    o.source.write_back.has_od_mtd = true;
    o.source.write_back.od_mtd_id = od.id;
    const OutputNames names{"infer", "colours.bin", "scores", "swdla"};
    EXPECT_EQ (write_object_result (b, o, names), 1);
  }
  return b;
}

/* The frame's pixels after objectdetectionoverlay draw-labels=true. */
std::vector<guint8> rendered (GstBuffer *in)
{
  GstHarness *h = gst_harness_new_parse ("objectdetectionoverlay draw-labels=true");
  gst_harness_set_src_caps_str (h, ("video/x-raw,format=RGBA,width=" + std::to_string (kWidth) +
                                    ",height=" + std::to_string (kHeight) + ",framerate=30/1")
                                       .c_str ());
  std::vector<guint8> pixels;
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  GstMapInfo map;
  if (out && gst_buffer_map (out, &map, GST_MAP_READ)) {
    pixels.assign (map.data, map.data + map.size);
    gst_buffer_unmap (out, &map);
  }
  if (out)
    gst_buffer_unref (out);
  gst_harness_teardown (h);
  return pixels;
}

TEST (OverlayLabel, ObjectDetectionOverlayShowsDlainfersLabel)
{
  GstElementFactory *f = gst_element_factory_find ("objectdetectionoverlay");
  if (!f)
    GTEST_SKIP () << "no objectdetectionoverlay (gst-plugins-bad's analyticsoverlay) in this GStreamer";
  gst_object_unref (f);
  const std::vector<guint8> ours = rendered (frame ("car", 0.8f, true));
  const std::vector<guint8> as_if_detected = rendered (frame ("green", 0.9f, false));
  const std::vector<guint8> detector_only = rendered (frame ("car", 0.8f, false));
  const std::vector<guint8> blank (size_t (kWidth) * kHeight * 4, 0x80);
  ASSERT_EQ (ours.size (), blank.size ());
  ASSERT_NE (ours, blank) << "nothing drawn: the overlay cannot show a label here";
  EXPECT_NE (detector_only, ours) << "the detector's own label renders like dlainfer's: the test cannot tell";
  EXPECT_EQ (ours, as_if_detected) << "objectdetectionoverlay does not show \"green (c=0.90)\"";
}
#endif

}  // namespace
