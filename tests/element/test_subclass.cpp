/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_subclass.h"

#include <memory>
#include <vector>

#include "gst/gstdlabaseinfer.h"
#include "gst/open_model.h"
#include "gst/property_table.h"
#include "gst/stages/frame_stage.h"

struct GstTestDlaInfer {
  GstDlaBaseInfer parent;
  guint max_detections; /* its own values live in its own instance */
  gfloat box_threshold;
  gint published; /* g_atomic: the src task adds, the test reads */
};

struct GstTestDlaInferClass {
  GstDlaBaseInferClass parent_class;
};

G_DEFINE_TYPE (GstTestDlaInfer, gst_test_dla_infer, GST_TYPE_DLA_BASE_INFER)

/* A subclass that forgot its stage: refused at start, never a crash. */
struct GstTestDlaNoStage {
  GstDlaBaseInfer parent;
};
struct GstTestDlaNoStageClass {
  GstDlaBaseInferClass parent_class;
};
G_DEFINE_TYPE (GstTestDlaNoStage, gst_test_dla_no_stage, GST_TYPE_DLA_BASE_INFER)

static void gst_test_dla_no_stage_class_init (GstTestDlaNoStageClass *klass)
{
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "Test DLA element without a stage",
                                         "Filter/Analyzer/Video", "A subclass that sets no make_stage",
                                         "gst-dlainfer tests");
}

static void gst_test_dla_no_stage_init (GstTestDlaNoStage *) {}

namespace {

GstTestDlaInfer *test_cast (GstDlaBaseInfer *self)
{
  return G_TYPE_CHECK_INSTANCE_CAST (self, gst_test_dla_infer_get_type (), GstTestDlaInfer);
}

/* Its own stage: the base's path calls it; it hands each step to a whole-frame classification and
 * counts the frames it published. */
class CountingStage final : public dlainfer::FrameStage {
 public:
  CountingStage (std::unique_ptr<dlainfer::FrameStage> inner, gint *published)
      : inner_ (std::move (inner)), published_ (published)
  {
  }

  void settings (const dlainfer::Settings &s, const dlainfer::Model &m, dlainfer::PendingFrame &f,
                 dlainfer::FrameSettings *out) const override
  {
    inner_->settings (s, m, f, out);
  }
  void reset () override { inner_->reset (); }
  dlainfer::InFlight::Wait plan (GstDlaBaseInfer *self, dlainfer::PendingFrame &f,
                                 const dlainfer::FrameSettings &s,
                                 const dlainfer::objects::WorkPlan **plan) override
  {
    return inner_->plan (self, f, s, plan);
  }
  dla::Status write (GstDlaBaseInfer *self, dlainfer::PendingFrame &f,
                     const dlainfer::objects::WorkPlan &plan, size_t begin,
                     const std::vector<dla::Task> &tasks, const preprocess::Params &pre,
                     void **ready) override
  {
    return inner_->write (self, f, plan, begin, tasks, pre, ready);
  }
  const char *write_step () const override { return inner_->write_step (); }
  void read (GstDlaBaseInfer *self, dlainfer::PendingFrame &f, dlainfer::Reader who) override
  {
    inner_->read (self, f, who);
  }
  void publish (GstDlaBaseInfer *self, dlainfer::PendingFrame &f) override
  {
    inner_->publish (self, f);
    g_atomic_int_inc (published_);
  }

 private:
  std::unique_ptr<dlainfer::FrameStage> inner_;
  gint *published_;
};

std::unique_ptr<dlainfer::FrameStage> make_stage (GstDlaBaseInfer *self, const dlainfer::Settings &,
                                                  const dlainfer::Model &m)
{
  auto inner = dlainfer::make_frame_classification (m, g_quark_from_string (GST_OBJECT_NAME (self)));
  return std::make_unique<CountingStage> (std::move (inner), &test_cast (self)->published);
}

std::vector<dlainfer::Property> properties ()
{
  using dlainfer::SetNote;
  using dlainfer::Settings;
  return {
      {g_param_spec_uint ("max-detections", "Max detections", "Most detections per frame", 1, 1000, 100,
                          dlainfer::kReadyFlags),
       [] (GstDlaBaseInfer *self, Settings &, const GValue *v, SetNote *) {
         test_cast (self)->max_detections = g_value_get_uint (v);
       },
       [] (GstDlaBaseInfer *self, const Settings &, GValue *v) {
         g_value_set_uint (v, test_cast (self)->max_detections);
       }},
      {g_param_spec_float ("box-threshold", "Box threshold", "Boxes below this confidence are dropped", 0.f,
                           1.f, 0.5f, dlainfer::kPlayingFlags),
       [] (GstDlaBaseInfer *self, Settings &, const GValue *v, SetNote *) {
         test_cast (self)->box_threshold = g_value_get_float (v);
       },
       [] (GstDlaBaseInfer *self, const Settings &, GValue *v) {
         g_value_set_float (v, test_cast (self)->box_threshold);
       }},
      {g_param_spec_uint ("frames-published", "Frames published", "Frames the stage published", 0, G_MAXUINT,
                          0, dlainfer::kReadOnlyFlags),
       nullptr,
       [] (GstDlaBaseInfer *self, const Settings &, GValue *v) {
         g_value_set_uint (v, guint (g_atomic_int_get (&test_cast (self)->published)));
       },
       false},
  };
}

}  // namespace

static void gst_test_dla_infer_class_init (GstTestDlaInferClass *klass)
{
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "Test DLA element",
                                         "Filter/Analyzer/Video",
                                         "A subclass of GstDlaBaseInfer in the tests", "gst-dlainfer tests");
  klass->parent_class.make_stage = make_stage;
  gst_dla_base_infer_class_install_properties (&klass->parent_class, properties ());
}

static void gst_test_dla_infer_init (GstTestDlaInfer *self)
{
  self->max_detections = 100;
  self->box_threshold = 0.5f;
}

namespace element_test {

bool register_test_subclass ()
{
  return gst_element_register (nullptr, "testdlainfer", GST_RANK_NONE, gst_test_dla_infer_get_type ()) &&
         gst_element_register (nullptr, "testdlanostage", GST_RANK_NONE, gst_test_dla_no_stage_get_type ());
}

}  // namespace element_test
