/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: what the whole-frame stages (classification, detection) share. */
#include "gst/stages/frame_stage.h"

#include "gst/gstdlabaseinfer-private.h"

namespace dlainfer {

dla::Status write_whole_frame (GstDlaBaseInfer *self, PendingFrame &f, const dla::Task &task,
                               const preprocess::Params &pre, void **ready)
{
  GstDlaBaseInferPrivate *priv = self->priv;
  /* Mapped for the kernel's launch only: the queued frame keeps the buffer (and its memory)
   * alive until the task that read it has ended. */
  MappedFrame frame;
  return priv->input.write (GST_ELEMENT (self), priv->cuda, f.buffer, task, priv->model->plan.input_view, pre,
                            &frame, ready);
}

void whole_frame_read (GstDlaBaseInfer *self, PendingFrame &f,
                       std::chrono::steady_clock::time_point post_start)
{
  GstDlaBaseInferPrivate *priv = self->priv;
  const dla::Task &task = f.tasks[0].task;
  const dla::SlotTimings t = task.timings ();
  const float post_ms =
      std::chrono::duration<float, std::milli> (std::chrono::steady_clock::now () - post_start).count ();
  priv->stats.inferred (priv->input.preprocess_ms (task), t.dla_ms, post_ms, t.total_ms, f.graphed,
                        t.dla_core, t.busy_ms);
  priv->tensors.attach (GST_ELEMENT (self), f.buffer, *priv->model->engine, task.slot ());
}

}  // namespace dlainfer
