/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a detection decoder as the CPU reference (host/detect/decode_ref.h) and the GPU
 * kernel (kernels/detect_device.h) both run it: POD, resolved and checked by host/detect/plan.h,
 * copied to the device as is. The formulas: docs/detection.md; the per-candidate math both share:
 * common/detect_math.h.
 *
 * A candidate is one (level, anchor, cell); its channels are read straight from the outputs in
 * their DLA layout (tensor::View::offset). Boxes are computed in tensor pixels, suppressed there
 * (IoU is invariant under the per-axis affine map to the frame), then mapped to frame pixels with
 * the frame's geometry (common/crop_geometry.h) and clipped to the crop.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/crop_geometry.h"
#include "common/tensor_layout.h"

namespace detect {

constexpr int kMaxOutputs = 16;
constexpr int kMaxLevels = 8;
constexpr int kMaxAnchors = 16;
constexpr int kMaxClasses = 1024;
/* Candidates kept for NMS per frame (more are counted as dropped) and detections reported. */
constexpr int kMaxCandidates = 4096;
constexpr int kMaxDetections = 1024;
/* Candidate indices travel in 20 bits of the GPU's sort key. */
constexpr int64_t kMaxCandidateIndex = int64_t (1) << 20;

enum class Box : uint8_t {
  kYoloV2,  /* cx = (x + s(tx)) * stride, w = exp(tw) * anchor */
  kYoloV5,  /* cx = (x + 2 s(tx) - 0.5) * stride, w = (2 s(tw))^2 * anchor */
  kDfl,     /* YOLOv8: ltrb distances = expectation of a softmax over reg_max bins, times stride */
  kDecoded, /* cx, cy, w, h already in tensor pixels (the post-DFL [1, 4 + C, N] tensor) */
  kSsd,     /* centre-size deltas against a prior, scaled by the variances */
};

enum class Scores : uint8_t {
  kObjSigmoid, /* YOLO with objectness: s(obj) * s(best class logit), or s(obj) without classes */
  kObjSoftmax, /* YOLO with objectness: s(obj) * softmax(classes)[best] */
  kSigmoid,    /* s(best class logit) */
  kSoftmax,    /* softmax over all class channels (background included), best non-background */
  kProbability /* the values are probabilities already */
};

/* Where a level's field k of anchor a is: output `output`, channel channel0 + a * anchor_stride + k. */
struct Field {
  int32_t output; /* -1: the level has no such field */
  int32_t channel0;
  int32_t anchor_stride;
};

struct Level {
  int32_t h, w;             /* the grid (for the decoded tensor: 1 x N) */
  float stride_x, stride_y; /* tensor pixels per cell */
  float offset;             /* cell centre of a prior or DFL anchor point: 0.5; YOLO anchors: 0 */
  int32_t anchors;          /* A (1 for anchor-free) */
  float anchor_w[kMaxAnchors], anchor_h[kMaxAnchors]; /* tensor pixels (YOLO anchors, SSD priors) */
  Field box, obj, cls;
  int32_t first; /* index of the level's first candidate; candidate = first + (a * h + y) * w + x */
};

struct Plan {
  Box box;
  Scores scores;
  int32_t classes;    /* class channels per anchor (SSD: background included); 0: objectness only */
  int32_t background; /* SSD: the background's class channel, never reported; -1: none */
  int32_t reg_max;    /* DFL bins per side */
  bool yxhw;          /* SSD: deltas stored as (ty, tx, th, tw), TensorFlow's order */
  bool class_agnostic;
  float variance[4]; /* SSD: x, y, w, h */

  int32_t levels;
  Level level[kMaxLevels];
  int32_t candidates; /* all candidates of all levels */

  int32_t outputs;
  tensor::View output[kMaxOutputs]; /* as the DLA writes them; c = the channels read */
  float output_scale[kMaxOutputs];  /* INT8 outputs: value = q * scale */

  /* Rejection before any exp: a candidate whose deciding logit is <= min_logit cannot pass the
   * lowest threshold (for kProbability: the lowest threshold itself). */
  float min_logit;
  float threshold[kMaxClasses]; /* per class channel; a score must be > it (> 1: class never reported) */
  float iou;                    /* suppress when IoU > iou (same class unless class_agnostic) */
  int32_t max_candidates;       /* candidates kept for NMS; the rest are counted in Result::dropped */
  int32_t max_detections;
};

/* One frame's outputs (device memory for the kernel, host memory for the reference) and where
 * the input tensor came from in the frame. */
struct Frame {
  const void *outputs[kMaxOutputs]; /* in Plan::output order */
  int32_t batch;                    /* batch item to decode */
  geometry::Axis x, y;
};

/* A detection in frame pixels, clipped to the crop; cls is the class channel (labels index it). */
struct Detection {
  float x0, y0, x1, y1;
  float score;
  int32_t cls;
};

/* What one decode writes: the header, then `count` detections in descending score order. Copy
 * result_bytes (plan.max_detections) bytes of it. */
struct Result {
  int32_t count;      /* detections written */
  int32_t candidates; /* candidates above their class threshold */
  int32_t dropped;    /* of those, not kept for NMS (over max_candidates) */
  int32_t reserved;
  Detection detections[kMaxDetections];
};

inline size_t result_bytes (int max_detections)
{
  return offsetof (Result, detections) + size_t (max_detections) * sizeof (Detection);
}

}  // namespace detect
