/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: inference-region=roi-list. A frame's plan is the objects roi-list selects and the
 * result cache does not carry (objects/frame_objects.h), in tasks of the loadable's batch and waves
 * of max-in-flight; one launch crops a wave's objects into its tasks' inputs; each object's result
 * goes back on the buffer where its box came from (objects/object_output.h), and into the element
 * message. */
#include <chrono>

#include "gst/gstdlabaseinfer-private.h"
#include "gst/outputs/classification.h"
#include "gst/outputs/result_message.h"
#include "gst/stages/frame_stage.h"

#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace dlainfer {
namespace {

using Clock = std::chrono::steady_clock;

/* A reader's scratch for the post-processing. */
struct Scratch {
  std::vector<float> scores;
  std::vector<postprocess::Result> results;
};

class ObjectClassification final : public FrameStage {
 public:
  ObjectClassification (const Model &m, GQuark element, const objects::OutputNames &names) : names_ (names)
  {
    output_.prepare (m.labels, m.plan.classes, element, g_quark_from_string (m.engine->backend ().c_str ()));
  }

  void settings (const Settings &s, const Model &m, PendingFrame &f, FrameSettings *out) const override
  {
    f.post = postprocess_params (s);
    f.post_messages = s.post_messages;
    objects::FlowParams &p = out->flow;
    for (const std::string &c : object_classes (s))
      p.selection.classes.push_back (g_quark_from_string (c.c_str ()));
    p.selection.min_width = s.min_object_width;
    p.selection.min_height = s.min_object_height;
    p.selection.max_objects = s.max_objects;
    p.reclassify_interval = s.reclassify_interval;
    p.smoothing = s.smoothing;
    p.batch = uint32_t (m.plan.shape.batch);
    p.max_tasks = uint32_t (m.engine->max_tasks ());
  }
  void reset () override { flow_.reset (); }

  /* Room for a task before the cache decides: with max-in-flight=1 the frame before has stored
   * its results by then (with more, the cache runs that many frames behind). */
  InFlight::Wait plan (GstDlaBaseInfer *self, PendingFrame &f, const FrameSettings &s,
                       const objects::WorkPlan **plan) override
  {
    GstDlaBaseInferPrivate *priv = self->priv;
    const InFlight::Wait room = priv->inflight.wait_for_tasks (1);
    if (room != InFlight::Wait::kReady)
      return room;
    f.objects = std::make_shared<objects::FrameObjects> ();
    flow_.prepare (f.buffer, priv->input.width (), priv->input.height (), s.flow, f.objects.get ());
    const objects::WorkPlan &p = f.objects->plan;
    *plan = &p;
    GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": %u object(s), %u classified in %u task(s), %u carried",
                    GST_TIME_ARGS (GST_BUFFER_PTS (f.buffer)), guint (f.objects->objects.size ()),
                    guint (p.objects.size ()), guint (p.tasks.size ()), guint (p.carried));
    return InFlight::Wait::kReady;
  }

  dla::Status write (GstDlaBaseInfer *self, PendingFrame &f, const objects::WorkPlan &plan, size_t begin,
                     const std::vector<dla::Task> &tasks, const preprocess::Params &pre,
                     void **ready) override
  {
    GstDlaBaseInferPrivate *priv = self->priv;
    const objects::FrameObjects &fo = *f.objects;
    rois_.clear ();
    for (size_t i = 0; i < tasks.size (); ++i) {
      const objects::PlannedTask &pt = plan.tasks[begin + i];
      for (uint32_t j = 0; j < pt.count; ++j) {
        const objects::Box &b = objects::planned_object (fo, pt.first + j).box;
        rois_.push_back ({{int (b.x), int (b.y), int (b.width), int (b.height)}, tasks[i].input (), int (j)});
      }
    }
    MappedFrame frame;
    return priv->input.write_objects (GST_ELEMENT (self), priv->cuda, f.buffer, tasks[0], rois_.data (),
                                      int (rois_.size ()), priv->model->plan.input_view, pre, &frame, ready);
  }
  const char *write_step () const override { return "writing the objects' model inputs"; }

  /* Each object's result read from its task's batch item; the src task's (the last wave) kept for
   * the next frames' objects, as before the slots go: with one in flight the next frame's selection
   * sees it. */
  void read (GstDlaBaseInfer *self, PendingFrame &f, Reader who) override
  {
    GstDlaBaseInferPrivate *priv = self->priv;
    Scratch &scratch = who == Reader::kSrcTask ? src_scratch_ : streaming_scratch_;
    objects::FrameObjects &fo = *f.objects;
    for (const FrameTask &t : f.tasks) {
      const dla::SlotTimings timing = t.task.timings ();
      const auto post_start = Clock::now ();
      if (const void *out = t.task.host_output (0))
        objects::read_task_results (&flow_, &fo, t.first, t.count, priv->model->plan.output_view, out, f.post,
                                    output_.labels (), timing.dla_core, &scratch.scores, &scratch.results);
      const float post_ms = std::chrono::duration<float, std::milli> (Clock::now () - post_start).count ();
      if (t.first_of_wave)
        priv->stats.object_launch ();
      priv->stats.object_task (t.first_of_wave ? priv->input.preprocess_ms (t.task) : -1.f, timing.dla_ms,
                               post_ms, timing.total_ms, f.graphed && t.first_of_wave, timing.dla_core,
                               timing.busy_ms);
    }
    if (who == Reader::kSrcTask)
      flow_.classified (fo);
  }

  /* Each object's result written back on the buffer, the counts, the message. */
  void publish (GstDlaBaseInfer *self, PendingFrame &f) override
  {
    GstDlaBaseInferPrivate *priv = self->priv;
    const objects::FrameObjects &fo = *f.objects;
    objects::write_object_results (f.buffer, fo.objects, names_);
    const objects::FrameCounts &c = fo.counts;
    priv->stats.object_frame ({c.seen, c.classified, c.carried, c.selection.degenerate, c.selection.filtered,
                               c.selection.too_small, c.selection.over_maximum});
    if (f.post_messages)
      post_objects (self, f);
  }

 private:
  /* "dlainfer-result" with the frame's times, backend and `objects`, one entry per selected object
   * with its box and result (objects/object_output.h). */
  void post_objects (GstDlaBaseInfer *self, const PendingFrame &f) const
  {
    GValue array = G_VALUE_INIT;
    g_value_init (&array, GST_TYPE_ARRAY);
    for (const objects::FrameObject &o : f.objects->objects) {
      GValue item = G_VALUE_INIT;
      g_value_init (&item, GST_TYPE_STRUCTURE);
      g_value_take_boxed (&item, objects::object_message_entry (o));
      gst_value_array_append_and_take_value (&array, &item);
    }
    GstStructure *s = frame_structure (frame_times (f.buffer, &f.segment), output_.backend ());
    gst_structure_take_value (s, "objects", &array);
    gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self), s));
  }

  ClassificationOutput output_; /* its labels and backend */
  objects::ObjectFlow flow_;    /* its cache: the streaming thread decides, the src task stores */
  const objects::OutputNames names_;
  std::vector<preprocess::ObjectRoi> rois_; /* streaming thread */
  Scratch streaming_scratch_, src_scratch_;
};

}  // namespace

std::unique_ptr<FrameStage> make_object_classification (const Model &m, GQuark element,
                                                        const objects::OutputNames &names)
{
  return std::make_unique<ObjectClassification> (m, element, names);
}

}  // namespace dlainfer
