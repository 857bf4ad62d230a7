/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: what one kind of inference makes of a frame, chosen once at start by the element
 * class (GstDlaBaseInferClass::make_stage): dlainfer classifies the whole frame, or the objects on
 * it (roi-list); a detector plugs in beside them. The base's one per-frame path (docs/architecture.md 8)
 * calls it at four points: plan     (streaming thread) the frame's regions in DLA tasks and waves; none:
 * nothing to infer write    (streaming thread) one launch of the fused kernel into a wave's task inputs read
 * (the thread that waited for the tasks) what needs the tasks' slots: results, timings publish  (src task,
 * after the slots went back) the results on the buffer and the bus The path itself owns the tasks: acquiring,
 * submitting, waiting, giving back (frame_submit.cpp, push_loop.cpp). */
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "dla/status.h"
#include "dla/task.h"
#include "gst/gstdlabaseinfer.h"
#include "gst/inflight.h"
#include "gst/objects/frame_objects.h"
#include "gst/objects/object_output.h"
#include "kernels/preprocess.h"

namespace detect {
struct Plan;
}

namespace dlainfer {

struct DetectSettings;
struct Model;
struct Settings;

/* The settings one frame uses, copied under the object lock at its submit. */
struct FrameSettings {
  preprocess::Params pre;
  uint32_t interval = 0;    /* full frame */
  objects::FlowParams flow; /* roi-list */
};

/* Who reads a frame's tasks: the streaming thread an earlier wave (its slots are needed again),
 * the src task the last one. Each reader has scratch of its own. */
enum class Reader { kStreaming, kSrcTask };

class FrameStage {
 public:
  virtual ~FrameStage () = default;

  /* The frame's own settings (object lock held, at submit; the path copied `pre` and `interval`):
   * what the stage's later steps read, into `f` and `out`. */
  virtual void settings (const Settings &s, const Model &m, PendingFrame &f, FrameSettings *out) const = 0;
  /* Start, flush, stream start: nothing carries across. */
  virtual void reset () = 0;
  /* The frame's regions in tasks (first, count, wave), valid while the frame is; it may wait for
   * room first: anything but kReady ends the frame. */
  virtual InFlight::Wait plan (GstDlaBaseInfer *self, PendingFrame &f, const FrameSettings &s,
                               const objects::WorkPlan **plan) = 0;
  /* Writes the inputs of `tasks` (acquired: plan tasks `begin`..) from the frame's regions in one
   * launch; *ready: the event after it. `step` names it in an error. */
  virtual dla::Status write (GstDlaBaseInfer *self, PendingFrame &f, const objects::WorkPlan &plan,
                             size_t begin, const std::vector<dla::Task> &tasks, const preprocess::Params &pre,
                             void **ready) = 0;
  virtual const char *write_step () const = 0;
  /* The frame's tasks ended: reads what needs their slots. */
  virtual void read (GstDlaBaseInfer *self, PendingFrame &f, Reader who) = 0;
  /* The frame's results on its buffer and the bus; its tasks are given back. */
  virtual void publish (GstDlaBaseInfer *self, PendingFrame &f) = 0;
};

/* For the whole-frame stages. write_whole_frame: the frame into `task`'s input (FrameStage::write).
 * whole_frame_read: after the stage's own read of the frame's one task, begun at `post_start`: its
 * timings in stats, its raw tensors on the buffer. */
dla::Status write_whole_frame (GstDlaBaseInfer *self, PendingFrame &f, const dla::Task &task,
                               const preprocess::Params &pre, void **ready);
void whole_frame_read (GstDlaBaseInfer *self, PendingFrame &f,
                       std::chrono::steady_clock::time_point post_start);

/* inference-region=full-frame: one region, the whole frame; `interval` frames carry the last result.
 * Results named with `m`'s labels, produced by `element`. */
std::unique_ptr<FrameStage> make_frame_classification (const Model &m, GQuark element);
/* inference-region=roi-list: the objects roi-list selects, in batches and waves; results are
 * written under `names`. */
std::unique_ptr<FrameStage> make_object_classification (const Model &m, GQuark element,
                                                        const objects::OutputNames &names);
/* dladetect: the whole frame decoded into detections with `plan` (host/detect/plan.h) on the GPU
 * after each task; `props` (the element's, under its object lock) give the per-frame settings.
 * Null with *error when the decoder's memory cannot be had. */
std::unique_ptr<FrameStage> make_frame_detection (GstDlaBaseInfer *self, const Model &m,
                                                  const detect::Plan &plan, const DetectSettings *props,
                                                  std::string *error);

}  // namespace dlainfer
