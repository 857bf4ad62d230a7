/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: argument checks and per-ROI geometry, shared by the CUDA launch and the CPU
 * reference so both refuse the same calls and agree on where every output pixel samples.
 * Host code; the plan is POD and travels to the kernel as a parameter. */
#pragma once

#include <string>

#include "common/crop_geometry.h"
#include "kernels/preprocess.h"

namespace preprocess {
namespace detail {

/* One axis of one ROI (common/crop_geometry.h): output pixel o is virtual pixel v = o + off of the
 * crop [origin, origin + len) resized to `size` pixels; v outside [0, size) is letterbox padding. */
using AxisPlan = geometry::Axis;

struct RoiPlan {
  AxisPlan x, y;
  int batch;
};

struct Plan {
  int n_rois;
  RoiPlan rois[kMaxRois];
};

/* One object of an objects launch as the kernel reads it from device memory (plan_objects): its
 * geometry, the tensor it writes (null: a blank entry, skipped) and whether its centres fit the
 * 32-bit arithmetic. */
struct ObjectEntry {
  RoiPlan plan;
  uint8_t *dst;
  int narrow;
};

/* Whether a ROI's centre rationals fit 30 bits (the kernel's 32-bit path). */
bool narrow_centres (const RoiPlan &r);

/* Checks the arguments as make_plan does (each object's crop, batch item and tensor pointer) and
 * writes object_slots (n) entries: the n objects, then blanks. Two objects naming the same batch
 * item of the same tensor are not detected (the caller's plan gives each its own). */
Status plan_objects (const SourceView &src, const tensor::View &dst, const Params &p,
                     const ObjectRoi *objects, int n, ObjectEntry *entries, std::string *error);

/* Checks every argument (the same checks for host and device memory) and computes the geometry.
 * On failure returns the status with the reason in *error (when given) and leaves *out partial. */
Status make_plan (const SourceView &src, const tensor::View &dst, const void *dst_ptr, const Params &p,
                  const Roi *rois, int n_rois, Plan *out, std::string *error);

/* The geometry make_plan gives one crop into batch item 0 (checks as launch () makes them, less the
 * tensor's pointer and channels). */
Status frame_geometry (const SourceView &src, const tensor::View &dst, const Params &p, const Rect &crop,
                       RoiPlan *out, std::string *error);

/* Geometry of one axis for a mode (exposed for the golden tests). `len` and `other_len` are the
 * crop's display lengths (pixels times the pixel aspect ratio) along this axis and the other. */
struct AxisFit {
  int size, off;
};
void fit_axes (ResizeMode mode, float crop_fraction, int64_t disp_w, int64_t disp_h, int tensor_w,
               int tensor_h, AxisFit *x, AxisFit *y);

/* Chroma samples that own a luma pixel of [origin, origin + len): [first, last). */
TENSOR_HD void chroma_bounds (int origin, int len, int *first, int *last)
{
  *first = origin >> 1;
  *last = (origin + len + 1) >> 1;
}

}  // namespace detail
}  // namespace preprocess
