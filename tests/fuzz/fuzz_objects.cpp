/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The objects a detector put on a buffer (gst/objects/object_source.h, selection.h): ROI metas
 * with any rectangle, type, meta id and parameter structures (DL Streamer's object_id and
 * detection, or anything else), then collected, selected for a frame and their tracking resolved,
 * as the element does for every frame. The input, split at newlines: line 0 the frame's size and
 * the selection; then per object one line of numbers and one of parameters (structures as text,
 * ';'-separated), e.g. "1 10 20 30 40 7\nobject_id, id=(int)5;detection, confidence=(double)0.5". */
#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "gst/objects/object_source.h"
#include "gst/objects/selection.h"

namespace {

std::vector<std::string> split (const std::string &s, char sep)
{
  std::vector<std::string> out;
  std::string item;
  std::istringstream in (s);
  while (std::getline (in, item, sep))
    out.push_back (item);
  return out;
}

const char *const kTypes[] = {"car", "person", "", "bus", "car\xff"};

}  // namespace

/* GStreamer's one-time allocations (types, quarks) before the first input: not leaks of one. */
extern "C" int LLVMFuzzerInitialize (int *, char ***)
{
  gst_init (nullptr, nullptr);
  GstBuffer *warm = gst_buffer_new ();
  GstVideoRegionOfInterestMeta *roi = gst_buffer_add_video_region_of_interest_meta (warm, "car", 0, 0, 1, 1);
  gst_video_region_of_interest_meta_add_param (roi,
                                               gst_structure_from_string ("object_id, id=(int)1", nullptr));
  gst_buffer_unref (warm);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const std::vector<std::string> lines =
      split (std::string (reinterpret_cast<const char *> (data), size), '\n');
  if (lines.empty ())
    return 0;
  int64_t width = 320, height = 240, min_w = 16, min_h = 16;
  uint32_t max_objects = 0;
  std::istringstream (lines[0]) >> width >> height >> min_w >> min_h >> max_objects;
  GstBuffer *buf = gst_buffer_new ();
  for (size_t i = 1; i + 1 <= lines.size () && i < 1 + 2 * 64; i += 2) {
    unsigned type = 0, x = 0, y = 0, w = 0, h = 0;
    int id = 0;
    std::istringstream (lines[i]) >> type >> x >> y >> w >> h >> id;
    GstVideoRegionOfInterestMeta *roi =
        gst_buffer_add_video_region_of_interest_meta (buf, kTypes[type % G_N_ELEMENTS (kTypes)], x, y, w, h);
    roi->id = id;
    if (i + 1 < lines.size ())
      for (const std::string &text : split (lines[i + 1], ';'))
        if (GstStructure *s = gst_structure_from_string (text.c_str (), nullptr))
          gst_video_region_of_interest_meta_add_param (roi, s);
  }
  dlainfer::objects::CollectedObjects found = dlainfer::objects::collect_objects (buf);
  dlainfer::objects::SelectionParams p;
  p.min_width = min_w;
  p.min_height = min_h;
  p.max_objects = max_objects;
  if (width % 3 == 0)
    p.classes = {g_quark_from_string ("car")};
  dlainfer::objects::SelectionCounts counts;
  const std::vector<dlainfer::objects::SelectedObject> kept =
      dlainfer::objects::select_objects (found.objects, width, height, p, &counts);
  dlainfer::objects::resolve_tracking (buf, kept, &found);
  for (const dlainfer::objects::SelectedObject &k : kept) {
    fuzz::check (k.index < found.objects.size (), "a selected object is one of those collected");
    fuzz::check (k.box.width > 0 && k.box.height > 0, "a selected box is not empty");
    fuzz::check (
        k.box.x >= 0 && k.box.y >= 0 && k.box.x + k.box.width <= width && k.box.y + k.box.height <= height,
        "a selected box lies in the frame");
  }
  gst_buffer_unref (buf);
  return 0;
}
