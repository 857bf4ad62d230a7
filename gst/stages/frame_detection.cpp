/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: dladetect's stage. A frame's plan is one region, the whole frame, in one task (none
 * when `interval` skips it: a skipped frame carries the last inferred frame's detections); the decode runs on
 * the GPU after the task (outputs/device_detections.h), and its result becomes the buffer's objects and the
 * element message (outputs/detection_output.h). */
#include <chrono>

#include "gst/detect_settings.h"
#include "gst/gstdlabaseinfer-private.h"
#include "gst/interval.h"
#include "gst/outputs/detection_output.h"
#include "gst/outputs/device_detections.h"
#include "gst/stages/frame_stage.h"

#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace dlainfer {
namespace {

using Clock = std::chrono::steady_clock;

class FrameDetection final : public FrameStage {
 public:
  FrameDetection (const Model &m, const detect::Plan &plan, const DetectSettings *props) : props_ (props)
  {
    output_.prepare (m.labels, plan.classes, g_quark_from_string (m.engine->backend ().c_str ()));
  }
  /* The decoder on the engine (context current). */
  bool start (const Model &m, const detect::Plan &plan, void *context, bool host_copies, std::string *error)
  {
    return decoder_.start (*m.engine, plan, context, host_copies, error);
  }

  void settings (const Settings &, const Model &, PendingFrame &f, FrameSettings *) const override
  {
    f.post_messages = props_->post_messages; /* object lock held */
  }
  void reset () override { interval_.reset (); }

  InFlight::Wait plan (GstDlaBaseInfer *, PendingFrame &, const FrameSettings &s,
                       const objects::WorkPlan **plan) override
  {
    const bool now = interval_.infer_now (s.interval);
    if (now)
      interval_.inferred ();
    *plan = now ? &whole_frame_ : &nothing_;
    return InFlight::Wait::kReady;
  }

  dla::Status write (GstDlaBaseInfer *self, PendingFrame &f, const objects::WorkPlan &, size_t,
                     const std::vector<dla::Task> &tasks, const preprocess::Params &pre,
                     void **ready) override
  {
    GstDlaBaseInferPrivate *priv = self->priv;
    const tensor::View &input = priv->model->plan.input_view;
    geometry::Axis x, y;
    const dla::Status st = priv->input.geometry (input, pre, &x, &y);
    if (!st.ok ())
      return st;
    decoder_.set_frame (tasks[0].slot (), x, y); /* read by the AfterTask at the submit */
    return write_whole_frame (self, f, tasks[0], pre, ready);
  }
  const char *write_step () const override { return "writing the model input"; }

  /* The decoder's result (copied out: the slot goes back), the timings, the raw tensors. */
  void read (GstDlaBaseInfer *self, PendingFrame &f, Reader) override
  {
    if (!f.inferred ())
      return;
    const dla::Task &task = f.tasks[0].task;
    const auto post_start = Clock::now ();
    const detect::Result &r = decoder_.result (task.slot ());
    found_.assign (r.detections, r.detections + r.count);
    dla_core_ = task.dla_core ();
    self->priv->stats.detected ({uint64_t (r.count), uint64_t (r.candidates), uint64_t (r.dropped)});
    whole_frame_read (self, f, post_start);
  }

  void publish (GstDlaBaseInfer *self, PendingFrame &f) override
  {
    GstDlaBaseInferPrivate *priv = self->priv;
    if (!f.inferred ())
      priv->stats.skipped ();
    const int n = int (found_.size ());
    output_.attach (f.buffer, found_.data (), n, priv->input.width (), priv->input.height ());
    if (f.post_messages && f.inferred ())
      gst_element_post_message (
          GST_ELEMENT (self),
          gst_message_new_element (
              GST_OBJECT (self),
              output_.message (found_.data (), n, frame_times (f.buffer, &f.segment), dla_core_)));
    GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": %d detections", GST_TIME_ARGS (GST_BUFFER_PTS (f.buffer)),
                    n);
  }

 private:
  const DetectSettings *props_; /* the element's, read under its object lock */
  DeviceDetections decoder_;
  DetectionOutput output_;               /* the src task's */
  std::vector<detect::Detection> found_; /* the src task's: read, then published */
  int dla_core_ = -1;
  Interval interval_; /* streaming thread */
  const objects::WorkPlan whole_frame_{{}, {{0, 1, 0}}, 1};
  const objects::WorkPlan nothing_{};
};

}  // namespace

std::unique_ptr<FrameStage> make_frame_detection (GstDlaBaseInfer *self, const Model &m,
                                                  const detect::Plan &plan, const DetectSettings *props,
                                                  std::string *error)
{
  auto stage = std::make_unique<FrameDetection> (m, plan, props);
  /* Raw tensors whose GPU de-pad did not start are de-padded from the engine's host copies. */
  if (!stage->start (m, plan, self->priv->cuda.primary (), self->priv->tensors.reads_host_copies (), error))
    return nullptr;
  return stage;
}

}  // namespace dlainfer
