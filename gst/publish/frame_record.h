/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: what dlapublish takes from one frame on the streaming thread (frame_reader.h) and
 * turns into JSON on its publishing thread (frame_json.h): plain values, no GStreamer object, so
 * the buffer goes on at once and the JSON costs the streaming thread nothing. Records are reused
 * (Publisher::acquire): once their vectors have grown, reading a frame allocates nothing. */
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace dlainfer {
namespace publish {

/* A string of the record: `len` bytes at `at` in FrameRecord::text. One buffer instead of a string
 * object per field keeps a frame's record to a few cache lines, which both threads' cores touch. */
struct Text {
  uint32_t at = 0, len = 0;
  bool empty () const { return len == 0; }
};

/* One classifier's result: the whole frame's (a dlainfer meta or a ClsMtd related to nothing) or
 * an object's (a ROI parameter structure or a ClsMtd related to its ODMtd). */
struct ClassRecord {
  Text name;  /* the producing element or ROI attribute ("" unknown) */
  Text label; /* the top-1 class */
  Text backend;
  int32_t label_id = -1;
  float confidence = 0.0f;
  uint32_t age = 0;
  bool has_carried = false; /* carried/age/backend come from dlainfer's own metas only */
  bool carried = false;
};

struct ObjectRecord {
  int64_t x = 0, y = 0, w = 0, h = 0; /* frame pixels */
  uint64_t tracking_id = 0;
  Text label; /* the detector's ("" none) */
  int32_t label_id = -1;
  float confidence = 0.0f;
  uint32_t first_class = 0, n_classes = 0; /* in FrameRecord::object_classes */
  bool has_confidence = false;
  bool tracked = false;
};

struct FrameRecord {
  uint64_t frame = 0;                      /* 0, 1, ... since start: order and gaps are visible */
  int64_t timestamp = -1;                  /* PTS in ns, -1 none */
  int64_t width = 0, height = 0;           /* 0: the caps are no video */
  std::vector<ClassRecord> classes;        /* the whole frame's */
  std::vector<ObjectRecord> objects;       /* in the metas' order */
  std::vector<ClassRecord> object_classes; /* every object's, object after object: one allocation */
  std::string text;                        /* every Text's bytes, one after another */

  Text add (const char *s)
  {
    const Text t{uint32_t (text.size ()), uint32_t (s ? std::strlen (s) : 0)};
    text.append (s ? s : "", t.len);
    return t;
  }
  std::string_view str (Text t) const { return std::string_view (text).substr (t.at, t.len); }
};

}  // namespace publish
}  // namespace dlainfer
