/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: one object a detector put on a frame, as the object pieces (gst/objects/) see it,
 * whichever meta described it. Not wired into the element yet (docs/architecture.md 8). */
#pragma once

#include <gst/video/video.h>

#include <cstdint>

namespace dlainfer {
namespace objects {

/* A rectangle in frame (luma) pixels, wide enough that any meta's values fit unclipped. */
struct Box {
  int64_t x = 0, y = 0, width = 0, height = 0;
  int64_t area () const { return width > 0 && height > 0 ? width * height : 0; }
};

/* Where a result is written back later: the ODMtd's id in the buffer's relation meta (>= 1.24)
 * and/or the ROI meta. Both may be set when both metas describe the object. */
struct WriteBack {
  bool has_od_mtd = false;
  guint od_mtd_id = 0;
  GstVideoRegionOfInterestMeta *roi = nullptr; /* owned by the buffer */
};

struct DetectedObject {
  Box box;
  GQuark label = 0; /* the detection's type; 0: none */
  bool has_confidence = false;
  float confidence = 0.0f; /* the detector's */
  bool tracked = false;
  guint64 tracking_id = 0;
  bool tracking_lost = false; /* the tracker gave the object up: drop its cached result */
  WriteBack write_back;
};

}  // namespace objects
}  // namespace dlainfer
