/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/objects/frame_objects.h"

#include <algorithm>

namespace dlainfer {
namespace objects {

void ObjectFlow::prepare (GstBuffer *buffer, int64_t width, int64_t height, const FlowParams &params,
                          FrameObjects *out)
{
  out->objects.clear ();
  out->counts = {};
  CollectedObjects found = collect_objects (buffer);
  out->counts.seen = found.objects.size ();
  const std::vector<SelectedObject> kept =
      select_objects (found.objects, width, height, params.selection, &out->counts.selection);
  resolve_tracking (buffer, kept, &found);
  out->tracking_lookups = found.tracking_lookups;
  out->smoothing = params.smoothing;
  std::vector<bool> classify (kept.size (), true);
  out->objects.resize (kept.size ());
  {
    std::lock_guard<std::mutex> lock (mutex_);
    cache_.begin_frame ();
    out->frame = cache_.frame ();
    for (guint64 id : found.ended) { /* a tracker ended these tracks: their result and state go */
      cache_.lost (id);
      smoother_.forget (id);
    }
    for (size_t i = 0; i < kept.size (); ++i) {
      FrameObject &o = out->objects[i];
      o.source = found.objects[kept[i].index];
      o.box = kept[i].box;
      if (!o.source.tracked)
        continue;
      if (o.source.tracking_lost) {
        cache_.lost (o.source.tracking_id);
        smoother_.forget (o.source.tracking_id);
        continue;
      }
      const Decision d = cache_.decide (o.source.tracking_id, o.box.area (), params.reclassify_interval);
      if (d.classify)
        continue;
      o.classify = classify[i] = false;
      o.has_result = true;
      o.age = d.age;
      o.result = *d.carried;
    }
  }
  out->plan = plan_work (classify, params.batch, params.max_tasks);
  out->counts.classified = out->plan.objects.size ();
  out->counts.carried = out->plan.carried;
}

void ObjectFlow::classified (const FrameObjects &frame)
{
  std::lock_guard<std::mutex> lock (mutex_);
  for (const FrameObject &o : frame.objects)
    if (o.classify && o.has_result && o.source.tracked && !o.source.tracking_lost)
      cache_.store_at (o.source.tracking_id, o.box.area (), o.result, frame.frame);
}

void ObjectFlow::reset ()
{
  std::lock_guard<std::mutex> lock (mutex_);
  cache_.clear ();
  smoother_.clear ();
}

size_t ObjectFlow::cached () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return cache_.size ();
}

size_t ObjectFlow::smoothed_tracks () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return smoother_.size ();
}

void ObjectFlow::read_result (const tensor::View &view, const void *data, int64_t item,
                              const postprocess::Params &params, const std::vector<GQuark> &labels,
                              const FrameObjects &frame, std::vector<float> *scores,
                              std::vector<postprocess::Result> *results, FrameObject *o)
{
  read_item_scores (view, data, item, params, scores);
  if (frame.smoothing > 0.f && o->source.tracked && !o->source.tracking_lost) {
    std::lock_guard<std::mutex> lock (mutex_);
    smoother_.apply (o->source.tracking_id, frame.smoothing, frame.frame, scores);
  }
  result_of_scores (*scores, params, labels, results, &o->result);
}

void read_item_scores (const tensor::View &view, const void *data, int64_t item,
                       const postprocess::Params &params, std::vector<float> *scores)
{
  postprocess::read_scores (view, data, params.int8_scale, scores, item);
  postprocess::activate (params.activation, scores);
}

void read_item_result (const tensor::View &view, const void *data, int64_t item,
                       const postprocess::Params &params, const std::vector<GQuark> &labels,
                       std::vector<float> *scores, std::vector<postprocess::Result> *results,
                       ObjectResult *out)
{
  read_item_scores (view, data, item, params, scores);
  result_of_scores (*scores, params, labels, results, out);
}

void result_of_scores (const std::vector<float> &scores, const postprocess::Params &params,
                       const std::vector<GQuark> &labels, std::vector<postprocess::Result> *results,
                       ObjectResult *out)
{
  postprocess::top_k (scores, params.top_k, params.threshold, results);
  out->n_top = uint32_t (std::min (results->size (), kCachedTopK));
  for (uint32_t i = 0; i < out->n_top; ++i) {
    const postprocess::Result &r = (*results)[i];
    const GQuark label = size_t (r.class_id) < labels.size () ? labels[size_t (r.class_id)] : 0;
    out->top[i] = {r.class_id, r.confidence, label};
  }
}

void read_task_results (ObjectFlow *flow, FrameObjects *fo, uint32_t first, uint32_t count,
                        const tensor::View &view, const void *data, const postprocess::Params &params,
                        const std::vector<GQuark> &labels, int dla_core, std::vector<float> *scores,
                        std::vector<postprocess::Result> *results)
{
  for (uint32_t j = 0; j < count; ++j) {
    FrameObject &o = planned_object (*fo, first + j);
    flow->read_result (view, data, j, params, labels, *fo, scores, results, &o);
    o.has_result = true;
    o.dla_core = dla_core;
  }
}

}  // namespace objects
}  // namespace dlainfer
