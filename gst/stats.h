/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the element's counters and stage timings, read through the `stats` property.
 *
 * The src pad's task records one frame at a time under a mutex of its own (a few adds, no
 * allocation); readers copy everything out into a GstStructure. Times come from the engine's CUDA
 * events on one inference in dla::kTimingPeriod (preprocess, DLA) and a host clock on every one
 * (postprocess, total). */
#pragma once

#include <gst/gst.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <vector>

namespace dlainfer {

/* inference-region=roi-list: what became of the objects on the frames (objects/selection.h). */
struct ObjectCounts {
  uint64_t seen = 0, classified = 0, carried = 0;
  uint64_t degenerate = 0, filtered = 0, too_small = 0, over_maximum = 0;
  uint64_t launches = 0; /* objects launches (one a wave); those not replayed missed the graph cache */
};

/* Detection: what the decoder found on the inferred frames (detect::Result). */
struct DetectionCounts {
  uint64_t detections = 0; /* reported */
  uint64_t candidates = 0; /* above their class threshold */
  uint64_t dropped = 0;    /* of those, over max-candidates: never suppressed or reported */
};

class Stats {
 public:
  void reset ();
  /* The DLA cores the model runs on (start, after reset): each shows in `cores`, with or without
   * tasks. */
  void set_cores (const std::vector<int> &cores);
  /* One frame each; negative times were not measured and are left out of the means. `from_graph`:
   * the preprocessing kernel was replayed from a CUDA graph (preprocess::LaunchGraphs). `dla_core`
   * ran it, for `busy_ms` of its time (dla::SlotTimings::busy_ms; -1: not counted). */
  void inferred (float preprocess_ms, float dla_ms, float postprocess_ms, float total_ms, bool from_graph,
                 int dla_core = -1, float busy_ms = -1.f);
  void skipped ();
  void failed ();
  /* roi-list: one DLA task of a frame's objects (an inference; times as above), and one frame
   * with its objects' counts (whatever its tasks). */
  void object_task (float preprocess_ms, float dla_ms, float postprocess_ms, float total_ms, bool from_graph,
                    int dla_core = -1, float busy_ms = -1.f);
  void object_frame (const ObjectCounts &counts);
  /* roi-list: one objects launch (a wave's); graph-launches counts those replayed from a graph. */
  void object_launch ();
  /* Detection: one inferred frame's decode. */
  void detected (const DetectionCounts &frame);

  /* "dlainfer-stats": frames, inferences, skipped, errors, graph-launches (guint64) and, for preprocess, dla,
   * postprocess and total, <stage>-mean-ms and <stage>-max-ms (gdouble; 0 before any); `cores`, an
   * array of "dla-core" structures (core: int, tasks: guint64, busy-ms: gdouble), one per core the
   * model runs on, in core order: this element's tasks there and the DLA time they took;
   * objects-seen, -classified, -carried, -degenerate, -filtered, -too-small, -over-maximum,
   * -launches (guint64: roi-list's objects and launches; 0 in full-frame mode); detections,
   * detection-candidates, candidates-dropped (guint64: a detector's; 0 otherwise). */
  GstStructure *to_structure () const;

 private:
  struct Timing {
    double sum = 0, max = 0;
    uint64_t count = 0;
    void add (float ms);
    double mean () const { return count ? sum / double (count) : 0.0; }
  };

  void add_task (float preprocess_ms, float dla_ms, float postprocess_ms, float total_ms, bool from_graph,
                 int dla_core, float busy_ms); /* mutex_ held */

  mutable std::mutex mutex_;
  ObjectCounts objects_;
  DetectionCounts detections_;
  uint64_t frames_ = 0, inferences_ = 0, skipped_ = 0, errors_ = 0, graph_launches_ = 0;
  Timing preprocess_, dla_, postprocess_, total_;
  struct Core {
    bool bound = false;
    uint64_t tasks = 0;
    double busy_ms = 0;
  };
  static constexpr int kCores = 16; /* the dla-core property's range */
  std::array<Core, kCores> cores_{};
};

}  // namespace dlainfer
