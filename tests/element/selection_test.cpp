/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which objects are classified (gst/objects/selection.h): clipping, degenerate boxes, the class
 * filter, the minimum size, the maximum per frame, each skip counted. */
#include "gst/objects/selection.h"

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <climits>

#include "gst/objects/object_source.h"

namespace {

using namespace dlainfer::objects;

DetectedObject obj (int64_t x, int64_t y, int64_t w, int64_t h, const char *type = "car")
{
  DetectedObject o;
  o.box = {x, y, w, h};
  o.label = g_quark_from_string (type);
  return o;
}

std::vector<uint32_t> indices (const std::vector<SelectedObject> &s)
{
  std::vector<uint32_t> out;
  for (const SelectedObject &o : s)
    out.push_back (o.index);
  return out;
}

void expect_box (const Box &b, int64_t x, int64_t y, int64_t w, int64_t h)
{
  EXPECT_EQ (b.x, x);
  EXPECT_EQ (b.y, y);
  EXPECT_EQ (b.width, w);
  EXPECT_EQ (b.height, h);
}

TEST (Selection, ClipsToTheFrame)
{
  expect_box (clip_box ({-10, -20, 50, 60}, 640, 480), 0, 0, 40, 40);
  expect_box (clip_box ({600, 450, 100, 100}, 640, 480), 600, 450, 40, 30);
  expect_box (clip_box ({5, 6, 7, 8}, 640, 480), 5, 6, 7, 8);
  /* ROI metas are unsigned: the largest values neither overflow nor wrap into the frame. */
  expect_box (clip_box ({UINT_MAX, 0, UINT_MAX, 10}, 640, 480), 0, 0, 0, 0);
}

TEST (Selection, DegenerateBoxesAreSkippedAndCounted)
{
  std::vector<DetectedObject> in = {obj (0, 0, 0, 20),    obj (0, 0, 20, -1),   obj (700, 0, 20, 20),
                                    obj (-40, 0, 40, 20), obj (10, 10, 20, 20), obj (-30, -30, 20, 20)};
  SelectionCounts c;
  std::vector<SelectedObject> s = select_objects (in, 640, 480, {}, &c);
  EXPECT_EQ (indices (s), (std::vector<uint32_t>{4}));
  EXPECT_EQ (c.degenerate, 5u);
  EXPECT_EQ (c.filtered, 0u);
  EXPECT_EQ (c.too_small, 0u);
  EXPECT_EQ (c.over_maximum, 0u);
}

TEST (Selection, ClassFilterKeepsTheListedTypes)
{
  std::vector<DetectedObject> in = {obj (0, 0, 20, 20, "car"), obj (0, 0, 20, 20, "person"),
                                    obj (0, 0, 20, 20, "truck"), obj (0, 0, 20, 20, "")};
  SelectionParams p;
  p.classes = {g_quark_from_string ("car"), g_quark_from_string ("truck")};
  SelectionCounts c;
  EXPECT_EQ (indices (select_objects (in, 640, 480, p, &c)), (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ (c.filtered, 2u);
  p.classes.clear ();
  EXPECT_EQ (select_objects (in, 640, 480, p, nullptr).size (), 4u);
}

TEST (Selection, MinimumSizeAppliesToTheClippedBox)
{
  std::vector<DetectedObject> in = {obj (0, 0, 15, 100), obj (0, 0, 16, 16), obj (630, 0, 40, 40),
                                    obj (0, 0, 100, 15)};
  SelectionCounts c;
  std::vector<SelectedObject> s = select_objects (in, 640, 480, {}, &c);
  EXPECT_EQ (indices (s), (std::vector<uint32_t>{1}));
  EXPECT_EQ (c.too_small, 3u); /* the third is 10 wide once clipped */
  SelectionParams p;
  p.min_width = 10;
  p.min_height = 15;
  c = {};
  EXPECT_EQ (indices (select_objects (in, 640, 480, p, &c)), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ (c.too_small, 0u);
}

TEST (Selection, MaximumKeepsTheLargestInInputOrder)
{
  /* Areas 400, 2500, 900, 2500, 10000 (the last clipped from 200 x 200 to 100 x 100). */
  std::vector<DetectedObject> in = {obj (0, 0, 20, 20), obj (0, 0, 50, 50), obj (0, 0, 30, 30),
                                    obj (10, 10, 50, 50), obj (540, 380, 200, 200)};
  SelectionParams p;
  p.max_objects = 2;
  SelectionCounts c;
  std::vector<SelectedObject> s = select_objects (in, 640, 480, p, &c);
  EXPECT_EQ (indices (s), (std::vector<uint32_t>{1, 4})); /* tie 1 vs 3: the earlier */
  expect_box (s[1].box, 540, 380, 100, 100);
  EXPECT_EQ (c.over_maximum, 3u);
  p.max_objects = 4;
  c = {};
  EXPECT_EQ (indices (select_objects (in, 640, 480, p, &c)), (std::vector<uint32_t>{1, 2, 3, 4}));
  EXPECT_EQ (c.over_maximum, 1u);
}

TEST (Selection, EachSkipCountedUnderItsFirstRuleAndAccumulated)
{
  std::vector<DetectedObject> in = {obj (0, 0, 0, 0, "person"), obj (0, 0, 8, 8, "person"),
                                    obj (0, 0, 8, 8, "car"), obj (0, 0, 40, 40, "car"),
                                    obj (0, 0, 50, 50, "car")};
  SelectionParams p;
  p.classes = {g_quark_from_string ("car")};
  p.max_objects = 1;
  SelectionCounts c;
  select_objects (in, 640, 480, p, &c);
  select_objects (in, 640, 480, p, &c);
  EXPECT_EQ (c.degenerate, 2u);
  EXPECT_EQ (c.filtered, 2u);
  EXPECT_EQ (c.too_small, 2u);
  EXPECT_EQ (c.over_maximum, 2u);
}

TEST (Selection, TenThousandBoxesAreCapped)
{
  std::vector<DetectedObject> in;
  for (int i = 0; i < 10000; ++i)
    in.push_back (obj (i % 100, i / 100, 16 + i % 7, 16));
  SelectionCounts c;
  std::vector<SelectedObject> s = select_objects (in, 1920, 1080, {}, &c);
  EXPECT_EQ (s.size (), size_t (kMaxObjectsPerFrame));
  EXPECT_EQ (c.over_maximum, 10000u - kMaxObjectsPerFrame);
  /* The largest are the 1428 boxes 22 wide (i % 7 == 6): the first 1024 of them. */
  for (const SelectedObject &o : s)
    ASSERT_EQ (o.box.width, 22);
  EXPECT_EQ (s.front ().index, 6u);
  EXPECT_EQ (s.back ().index, 6u + 7u * (kMaxObjectsPerFrame - 1));
}

TEST (Selection, FromRoiMetasOnABuffer)
{
  GstBuffer *buf = gst_buffer_new ();
  gst_buffer_add_video_region_of_interest_meta (buf, "car", 300, 200, 100, 100);
  gst_buffer_add_video_region_of_interest_meta (buf, "car", 2000, 0, 100, 100);
  gst_buffer_add_video_region_of_interest_meta (buf, "car", 10, 10, 4, 4);
  SelectionCounts c;
  std::vector<SelectedObject> s = select_objects (collect_objects (buf).objects, 320, 240, {}, &c);
  ASSERT_EQ (s.size (), 1u);
  expect_box (s[0].box, 300, 200, 20, 40);
  EXPECT_EQ (c.degenerate, 1u);
  EXPECT_EQ (c.too_small, 1u);
  gst_buffer_unref (buf);
}

}  // namespace
