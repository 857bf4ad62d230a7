/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: where a tensor's pixels come from in the frame, one axis at a time. The
 * preprocessing kernel samples with it (kernels/preprocess_plan.h) and the detection decoder maps
 * boxes back with it (common/detect_plan.h): one definition for both directions.
 *
 * Tensor pixel o of an axis is virtual pixel v = o + off of the crop [origin, origin + len) resized
 * to `size` pixels; v outside [0, size) is letterbox padding. Coordinates are continuous with pixel
 * i covering [i, i + 1), so tensor coordinate t is frame coordinate origin + (t + off) * len / size.
 */
#pragma once

#include "common/tensor_layout.h"

namespace geometry {

struct Axis {
  int origin, len;
  int size;
  int off;
};

/* A continuous tensor coordinate in frame pixels (no clipping). */
TENSOR_HD float to_frame (const Axis &a, float t)
{
  return float (a.origin) + (t + float (a.off)) * (float (a.len) / float (a.size));
}

/* The same, clipped to the crop the tensor was made from. */
TENSOR_HD float to_frame_clipped (const Axis &a, float t)
{
  const float v = to_frame (a, t), lo = float (a.origin), hi = float (a.origin + a.len);
  return v < lo ? lo : v > hi ? hi : v;
}

}  // namespace geometry
