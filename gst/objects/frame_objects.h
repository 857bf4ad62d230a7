/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: one frame's objects on their way through the element (inference-region=roi-list,
 * docs/architecture.md 8): the objects on the buffer (object_source.h), those classified
 * (selection.h), the tracked ones whose cached result is carried (result_cache.h), the rest in
 * tasks and waves (work_plan.h); then each classified object's result from its batch item.
 *
 * ObjectFlow owns the result cache: the streaming thread decides (prepare) and the src task stores
 * what the DLA classified (classified), so a mutex guards it. A tracked object whose result is still
 * in flight when the next frame is prepared is classified again on that frame: with `max-in-flight`
 * frames in the pipeline the cache runs that many frames behind. No CUDA. */
#pragma once

#include <gst/gst.h>

#include <mutex>
#include <vector>

#include "gst/objects/object_source.h"
#include "gst/objects/result_cache.h"
#include "gst/objects/score_smoothing.h"
#include "gst/objects/selection.h"
#include "gst/objects/work_plan.h"
#include "host/postprocess.h"

namespace dlainfer {
namespace objects {

/* A selected object of a frame. */
struct FrameObject {
  DetectedObject source; /* as the detector described it; its write-back handles */
  Box box;               /* clipped to the frame: what is cropped */
  bool classify = true;  /* the model runs on it on this frame */
  bool has_result = false;
  uint32_t age = 0;  /* carried: frames since it was classified */
  int dla_core = -1; /* the core that classified it on this frame (-1: carried) */
  ObjectResult result;
};

/* What one frame counted (stats). */
struct FrameCounts {
  uint64_t seen = 0;       /* objects on the buffer */
  uint64_t classified = 0; /* planned for the model */
  uint64_t carried = 0;    /* a cached result carried instead */
  SelectionCounts selection;
};

struct FrameObjects {
  std::vector<FrameObject> objects; /* the selected ones, in input order */
  WorkPlan plan;                    /* indices into objects */
  uint64_t frame = 0;               /* the cache's frame number */
  FrameCounts counts;
  uint64_t tracking_lookups = 0; /* relation-meta queries for tracking (bounded by the selection) */
  float smoothing = 0.f;         /* the flow's, when the frame was prepared */
};

struct FlowParams {
  SelectionParams selection;
  uint32_t reclassify_interval = 0;
  uint32_t batch = 1;     /* the loadable's */
  uint32_t max_tasks = 1; /* the wave size: max-in-flight */
  float smoothing = 0.f;  /* per-track EWMA factor of the scores (score_smoothing.h); 0: off */
};

class ObjectFlow {
 public:
  /* Streaming thread: the buffer's objects for a width x height frame into *out (cleared first). */
  void prepare (GstBuffer *buffer, int64_t width, int64_t height, const FlowParams &params,
                FrameObjects *out);
  /* The src task: the classified tracked objects' results go into the cache. */
  void classified (const FrameObjects &frame);
  /* Flush, stream start, start: no result (and no smoothing state) carries across. */
  void reset ();
  size_t cached () const;
  size_t smoothed_tracks () const;

  /* Object `o` of `frame`: its result read from batch item `item` (read_item_result), the scores
   * of a tracked object blended into its track's first when the frame's smoothing is on. Either
   * reader thread. */
  void read_result (const tensor::View &view, const void *data, int64_t item,
                    const postprocess::Params &params, const std::vector<GQuark> &labels,
                    const FrameObjects &frame, std::vector<float> *scores,
                    std::vector<postprocess::Result> *results, FrameObject *o);

 private:
  mutable std::mutex mutex_;
  ResultCache cache_;
  ScoreSmoother smoother_{ResultCache::kDefaultCapacity};
};

/* Plan entry `k` (PlannedTask::first + batch item) of a frame: the selected object it classifies.
 * The one mapping from a task's batch items to objects, for the crops and for the results. */
inline FrameObject &planned_object (FrameObjects &fo, uint32_t k)
{
  return fo.objects[fo.plan.objects[k]];
}
inline const FrameObject &planned_object (const FrameObjects &fo, uint32_t k)
{
  return fo.objects[fo.plan.objects[k]];
}

/* The activated class scores of batch item `item` of an output laid out as `view` (host copy at
 * `data`). */
void read_item_scores (const tensor::View &view, const void *data, int64_t item,
                       const postprocess::Params &params, std::vector<float> *scores);
/* Scores to a result: top-k and threshold of `params`, the best kCachedTopK kept, labelled from
 * `labels`. */
void result_of_scores (const std::vector<float> &scores, const postprocess::Params &params,
                       const std::vector<GQuark> &labels, std::vector<postprocess::Result> *results,
                       ObjectResult *out);
/* Both: the result of batch item `item`. `scores` and `results` are the caller's scratch. */
void read_item_result (const tensor::View &view, const void *data, int64_t item,
                       const postprocess::Params &params, const std::vector<GQuark> &labels,
                       std::vector<float> *scores, std::vector<postprocess::Result> *results,
                       ObjectResult *out);

/* A task's results: batch items 0..count-1 of its output (host copy at `data`, laid out as `view`)
 * go to the objects of plan entries first..first+count-1 (`flow`'s read_result: smoothed where the
 * frame says so), classified on DLA core `dla_core`. Carried objects are not touched. */
void read_task_results (ObjectFlow *flow, FrameObjects *fo, uint32_t first, uint32_t count,
                        const tensor::View &view, const void *data, const postprocess::Params &params,
                        const std::vector<GQuark> &labels, int dla_core, std::vector<float> *scores,
                        std::vector<postprocess::Result> *results);

}  // namespace objects
}  // namespace dlainfer
