/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/objects/selection.h"

#include <algorithm>

namespace dlainfer {
namespace objects {

SelectionCounts &SelectionCounts::operator+= (const SelectionCounts &o)
{
  degenerate += o.degenerate;
  filtered += o.filtered;
  too_small += o.too_small;
  over_maximum += o.over_maximum;
  return *this;
}

Box clip_box (const Box &box, int64_t width, int64_t height)
{
  /* Degenerate first: a negative size must not become a positive one by clipping. */
  if (box.width <= 0 || box.height <= 0)
    return {};
  const int64_t x0 = std::max<int64_t> (box.x, 0), y0 = std::max<int64_t> (box.y, 0);
  const int64_t x1 = std::min (box.x + box.width, width), y1 = std::min (box.y + box.height, height);
  if (x1 <= x0 || y1 <= y0)
    return {};
  return {x0, y0, x1 - x0, y1 - y0};
}

namespace {

bool class_wanted (const std::vector<GQuark> &classes, GQuark label)
{
  return classes.empty () || std::find (classes.begin (), classes.end (), label) != classes.end ();
}

/* Keeps the `max` largest (ties: the earlier), then puts them back in input order. */
void keep_largest (std::vector<SelectedObject> &kept, size_t max)
{
  auto larger = [] (const SelectedObject &a, const SelectedObject &b) {
    const int64_t aa = a.box.area (), ba = b.box.area ();
    return aa != ba ? aa > ba : a.index < b.index;
  };
  std::nth_element (kept.begin (), kept.begin () + long (max), kept.end (), larger);
  kept.resize (max);
  std::sort (kept.begin (), kept.end (),
             [] (const SelectedObject &a, const SelectedObject &b) { return a.index < b.index; });
}

}  // namespace

std::vector<SelectedObject> select_objects (const std::vector<DetectedObject> &objects, int64_t frame_width,
                                            int64_t frame_height, const SelectionParams &params,
                                            SelectionCounts *counts)
{
  SelectionCounts c;
  std::vector<SelectedObject> kept;
  kept.reserve (objects.size ()); /* one allocation, not one per doubling */
  for (size_t i = 0; i < objects.size (); ++i) {
    const Box box = clip_box (objects[i].box, frame_width, frame_height);
    if (box.area () == 0)
      ++c.degenerate;
    else if (!class_wanted (params.classes, objects[i].label))
      ++c.filtered;
    else if (box.width < params.min_width || box.height < params.min_height)
      ++c.too_small;
    else
      kept.push_back ({uint32_t (i), box});
  }
  const size_t max =
      params.max_objects == 0 ? kMaxObjectsPerFrame : std::min (params.max_objects, kMaxObjectsPerFrame);
  if (kept.size () > max) {
    c.over_maximum = kept.size () - max;
    keep_largest (kept, max);
  }
  if (counts)
    *counts += c;
  return kept;
}

}  // namespace objects
}  // namespace dlainfer
