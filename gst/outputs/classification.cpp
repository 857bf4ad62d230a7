/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/outputs/classification.h"

#include "gst/outputs/analytics_output.h"
#include "gst/outputs/result_message.h"
#include "host/labels.h"

GST_DEBUG_CATEGORY_EXTERN (gst_dla_infer_debug);
#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace dlainfer {

void ClassificationOutput::prepare (const std::vector<std::string> &labels, int classes, GQuark element,
                                    GQuark backend)
{
  active_ = classes > 0;
  label_quarks_.resize (size_t (classes));
  for (int i = 0; i < classes; ++i)
    label_quarks_[size_t (i)] = g_quark_from_string (labels::name_for (labels, i).c_str ());
  element_ = element;
  backend_ = backend;
  dla_core_ = -1;
  for (auto *v : {&scores_, &analytics_confidences_})
    v->reserve (size_t (classes));
  results_.reserve (size_t (classes));
  meta_results_.reserve (size_t (classes));
  analytics_labels_.reserve (size_t (classes));
  meta_results_.clear ();
}

void ClassificationOutput::clear ()
{
  active_ = false;
  label_quarks_.clear ();
  meta_results_.clear ();
}

void ClassificationOutput::classify (const tensor::View &view, const void *data, const float *scores,
                                     const postprocess::Params &params, int dla_core)
{
  if (!active_)
    return;
  dla_core_ = dla_core;
  if (scores)
    postprocess::run_scores (scores, int64_t (label_quarks_.size ()), params, &scores_, &results_);
  else
    postprocess::run (view, data, params, &scores_, &results_);
  meta_results_.clear ();
  for (const postprocess::Result &r : results_)
    meta_results_.push_back ({r.class_id, label_quarks_[size_t (r.class_id)], r.confidence});
}

void ClassificationOutput::attach (GstObject *element, GstBuffer *buf, bool carried, guint age)
{
  if (!active_)
    return;
  gst_buffer_add_dla_classification_meta_full (buf, meta_results_.data (), guint (meta_results_.size ()),
                                               element_, backend_, dla_core_, carried, age);
  /* An empty classification is no ClsMtd (the analytics API wants at least one class). */
  if (!analytics_enabled () || meta_results_.empty ())
    return;
  analytics_confidences_.clear ();
  analytics_labels_.clear ();
  for (const GstDlaClassification &r : meta_results_) {
    analytics_confidences_.push_back (r.confidence);
    analytics_labels_.push_back (r.label);
  }
  if (!add_analytics_classification (buf, analytics_confidences_.data (), analytics_labels_.data (),
                                     analytics_labels_.size ()))
    GST_DEBUG_OBJECT (element, "could not add the GstAnalyticsClsMtd");
}

void ClassificationOutput::post (GstElement *element, GstBuffer *buf, const GstSegment *segment) const
{
  if (!active_)
    return;
  GstStructure *s = result_structure (meta_results_.data (), guint (meta_results_.size ()),
                                      frame_times (buf, segment), backend_, dla_core_);
  gst_element_post_message (element, gst_message_new_element (GST_OBJECT (element), s));
}

const char *ClassificationOutput::best_label () const
{
  return meta_results_.empty () ? "" : g_quark_to_string (meta_results_[0].label);
}

float ClassificationOutput::best_confidence () const
{
  return results_.empty () ? 0.f : results_[0].confidence;
}

}  // namespace dlainfer
