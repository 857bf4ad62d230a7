/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the classification a frame's output tensor holds, as the element shows it: the
 * scores post-processed (host/postprocess.h), the meta on the buffer (our public meta, and a
 * GstAnalyticsClsMtd where the build has GstAnalytics), and the "dlainfer-result" bus message.
 * Everything is sized at start so that frames do not allocate (but the metas themselves). */
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

#include "gst/meta/gstdlameta.h"
#include "host/postprocess.h"

namespace dlainfer {

class ClassificationOutput {
 public:
  /* start: the label quark of each of `classes` classes, and who produced the results. With 0
   * classes (a model run for its tensors only) nothing is classified, attached or posted. */
  void prepare (const std::vector<std::string> &labels, int classes, GQuark element, GQuark backend);
  void clear ();

  /* An inferred frame: the results from the padded host copy `data` of the class vector (laid out
   * as `view`), or, when not null, from its `scores` the GPU de-padded (raw tensors on: the same
   * values, docs/tensors.md 4); DLA core `dla_core` produced them (carried frames name it too). */
  void classify (const tensor::View &view, const void *data, const float *scores,
                 const postprocess::Params &params, int dla_core);
  /* Puts the current results on `buf` (carried: the last results on a frame not inferred, `age`
   * frames old). */
  void attach (GstObject *element, GstBuffer *buf, bool carried, guint age);
  /* One "dlainfer-result" element message for an inferred frame. */
  void post (GstElement *element, GstBuffer *buf, const GstSegment *segment) const;

  bool empty () const { return results_.empty (); }
  const char *best_label () const;
  float best_confidence () const;
  GQuark backend () const { return backend_; }
  /* The label quark of each class (roi-list reads its objects' results with them). */
  const std::vector<GQuark> &labels () const { return label_quarks_; }

 private:
  bool active_ = false; /* prepared for a model with a class vector */
  std::vector<GQuark> label_quarks_;
  GQuark element_ = 0, backend_ = 0;
  int dla_core_ = -1;
  /* Per-frame scratch, sized once. */
  std::vector<float> scores_;
  std::vector<postprocess::Result> results_;
  std::vector<GstDlaClassification> meta_results_; /* the last inferred frame's, carried on the next */
  std::vector<float> analytics_confidences_;       /* meta_results_ split for GstAnalyticsClsMtd */
  std::vector<GQuark> analytics_labels_;
};

}  // namespace dlainfer
