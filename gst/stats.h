/* gst-dlainfer: the element's counters and stage timings, read through the `stats` property.
 *
 * The src pad's task records one frame at a time under a mutex of its own (a few adds, no
 * allocation); readers copy everything out into a GstStructure. Times come from the engine's CUDA
 * events on one inference in dla::kTimingPeriod (preprocess, DLA) and a host clock on every one
 * (postprocess, total). */
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <mutex>

namespace dlainfer {

class Stats {
 public:
  void reset ();
  /* One frame each; negative times were not measured and are left out of the means. `from_graph`:
   * the preprocessing kernel was replayed from a CUDA graph (preprocess::LaunchGraphs). */
  void inferred (float preprocess_ms, float dla_ms, float postprocess_ms, float total_ms, bool from_graph);
  void skipped ();
  void failed ();

  /* "dlainfer-stats": frames, inferences, skipped, errors, graph-launches (guint64) and, for preprocess, dla,
   * postprocess and total, <stage>-mean-ms and <stage>-max-ms (gdouble; 0 before any). */
  GstStructure *to_structure () const;

 private:
  struct Timing {
    double sum = 0, max = 0;
    uint64_t count = 0;
    void add (float ms);
    double mean () const { return count ? sum / double (count) : 0.0; }
  };

  mutable std::mutex mutex_;
  uint64_t frames_ = 0, inferences_ = 0, skipped_ = 0, errors_ = 0, graph_launches_ = 0;
  Timing preprocess_, dla_, postprocess_, total_;
};

}  // namespace dlainfer
