/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: which of a frame's objects are classified (nvinfer's and DL Streamer's rules).
 *
 * In this order: each box is clipped to the frame; an empty one (nothing left inside) is skipped;
 * then the class filter (`object-class`: the detections' type labels, empty = every type); then
 * the minimum clipped width and height (nvinfer's defaults 16 x 16); then, when more remain than
 * the maximum per frame, the largest clipped areas are kept (ties: the earlier object). The kept
 * objects stay in input order. Every skipped object is counted under the first rule it failed;
 * nothing is an error. Pure C++: no GStreamer call. */
#pragma once

#include <cstdint>
#include <vector>

#include "gst/objects/detected_object.h"

namespace dlainfer {
namespace objects {

/* The most objects one frame can have classified, whatever the settings say: bounds the work and
 * the allocations per frame when a detector puts 10 000 boxes on one. */
constexpr uint32_t kMaxObjectsPerFrame = 1024;

struct SelectionParams {
  std::vector<GQuark> classes; /* empty: every type */
  int64_t min_width = 16, min_height = 16;
  uint32_t max_objects = 0; /* 0 or above kMaxObjectsPerFrame: kMaxObjectsPerFrame */
};

struct SelectionCounts {
  uint64_t degenerate = 0;   /* empty after clipping (outside the frame, width or height <= 0) */
  uint64_t filtered = 0;     /* type not in `classes` */
  uint64_t too_small = 0;    /* clipped box under the minimum width or height */
  uint64_t over_maximum = 0; /* beyond max_objects (the smallest) */
  SelectionCounts &operator+= (const SelectionCounts &o);
};

struct SelectedObject {
  uint32_t index; /* into the input */
  Box box;        /* clipped to the frame */
};

/* `box` clipped to a width x height frame; an empty box (area 0) when nothing is inside. */
Box clip_box (const Box &box, int64_t width, int64_t height);

/* The objects to classify, in input order; `counts` gets the skipped ones added. */
std::vector<SelectedObject> select_objects (const std::vector<DetectedObject> &objects, int64_t frame_width,
                                            int64_t frame_height, const SelectionParams &params,
                                            SelectionCounts *counts);

}  // namespace objects
}  // namespace dlainfer
