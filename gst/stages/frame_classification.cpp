/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: inference-region=full-frame. A frame's plan is one region, the whole frame, in one
 * task, or none when `interval` carries the last result; its result is the buffer's classification
 * (outputs/classification.h), its raw tensors (outputs/tensor_output.h) and the element message. */
#include <chrono>

#include "gst/gstdlabaseinfer-private.h"
#include "gst/interval.h"
#include "gst/outputs/classification.h"
#include "gst/stages/frame_stage.h"

#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace dlainfer {
namespace {

using Clock = std::chrono::steady_clock;

class FrameClassification final : public FrameStage {
 public:
  FrameClassification (const Model &m, GQuark element)
  {
    output_.prepare (m.labels, m.plan.classes, element, g_quark_from_string (m.engine->backend ().c_str ()));
  }

  void settings (const Settings &s, const Model &, PendingFrame &f, FrameSettings *) const override
  {
    f.post = postprocess_params (s);
    f.post_messages = s.post_messages;
  }
  void reset () override { interval_.reset (); }

  InFlight::Wait plan (GstDlaBaseInfer *, PendingFrame &f, const FrameSettings &s,
                       const objects::WorkPlan **plan) override
  {
    if (interval_.infer_now (s.interval)) {
      interval_.inferred ();
      *plan = &whole_frame_;
    } else {
      f.age = interval_.age ();
      *plan = &nothing_;
    }
    return InFlight::Wait::kReady;
  }

  dla::Status write (GstDlaBaseInfer *self, PendingFrame &f, const objects::WorkPlan &, size_t,
                     const std::vector<dla::Task> &tasks, const preprocess::Params &pre,
                     void **ready) override
  {
    return write_whole_frame (self, f, tasks[0], pre, ready);
  }
  const char *write_step () const override { return "writing the model input"; }

  /* The post-processing, the stage timings, the raw tensors. */
  void read (GstDlaBaseInfer *self, PendingFrame &f, Reader) override
  {
    GstDlaBaseInferPrivate *priv = self->priv;
    if (!f.inferred ())
      return;
    const dla::Task &task = f.tasks[0].task;
    const auto post_start = Clock::now ();
    output_.classify (priv->model->plan.output_view, task.host_output (0),
                      priv->tensors.class_scores (task.slot ()), f.post, task.dla_core ());
    whole_frame_read (self, f, post_start);
  }

  void publish (GstDlaBaseInfer *self, PendingFrame &f) override
  {
    if (!f.inferred ()) {
      output_.attach (GST_OBJECT (self), f.buffer, true, f.age);
      self->priv->stats.skipped ();
      return;
    }
    output_.attach (GST_OBJECT (self), f.buffer, false, 0);
    if (f.post_messages)
      output_.post (GST_ELEMENT (self), f.buffer, &f.segment);
    if (!output_.empty ())
      GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": %s %.3f", GST_TIME_ARGS (GST_BUFFER_PTS (f.buffer)),
                      output_.best_label (), double (output_.best_confidence ()));
  }

 private:
  ClassificationOutput output_; /* the src task's */
  Interval interval_;           /* streaming thread */
  const objects::WorkPlan whole_frame_{{}, {{0, 1, 0}}, 1};
  const objects::WorkPlan nothing_{};
};

}  // namespace

std::unique_ptr<FrameStage> make_frame_classification (const Model &m, GQuark element)
{
  return std::make_unique<FrameClassification> (m, element);
}

}  // namespace dlainfer
