/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/stats.h"

namespace dlainfer {

void Stats::Timing::add (float ms)
{
  if (!(ms >= 0.f))
    return;
  sum += ms;
  if (ms > max)
    max = ms;
  ++count;
}

void Stats::reset ()
{
  std::lock_guard<std::mutex> lock (mutex_);
  frames_ = inferences_ = skipped_ = errors_ = graph_launches_ = 0;
  preprocess_ = dla_ = postprocess_ = total_ = Timing ();
  cores_ = {};
  objects_ = {};
  detections_ = {};
}

void Stats::set_cores (const std::vector<int> &cores)
{
  std::lock_guard<std::mutex> lock (mutex_);
  for (int c : cores)
    if (c >= 0 && c < kCores)
      cores_[size_t (c)].bound = true;
}

void Stats::inferred (float preprocess_ms, float dla_ms, float postprocess_ms, float total_ms,
                      bool from_graph, int dla_core, float busy_ms)
{
  std::lock_guard<std::mutex> lock (mutex_);
  ++frames_;
  add_task (preprocess_ms, dla_ms, postprocess_ms, total_ms, from_graph, dla_core, busy_ms);
}

void Stats::object_task (float preprocess_ms, float dla_ms, float postprocess_ms, float total_ms,
                         bool from_graph, int dla_core, float busy_ms)
{
  std::lock_guard<std::mutex> lock (mutex_);
  add_task (preprocess_ms, dla_ms, postprocess_ms, total_ms, from_graph, dla_core, busy_ms);
}

void Stats::object_frame (const ObjectCounts &c)
{
  std::lock_guard<std::mutex> lock (mutex_);
  ++frames_;
  objects_.seen += c.seen;
  objects_.classified += c.classified;
  objects_.carried += c.carried;
  objects_.degenerate += c.degenerate;
  objects_.filtered += c.filtered;
  objects_.too_small += c.too_small;
  objects_.over_maximum += c.over_maximum;
}

void Stats::object_launch ()
{
  std::lock_guard<std::mutex> lock (mutex_);
  ++objects_.launches;
}

void Stats::detected (const DetectionCounts &frame)
{
  std::lock_guard<std::mutex> lock (mutex_);
  detections_.detections += frame.detections;
  detections_.candidates += frame.candidates;
  detections_.dropped += frame.dropped;
}

void Stats::add_task (float preprocess_ms, float dla_ms, float postprocess_ms, float total_ms,
                      bool from_graph, int dla_core, float busy_ms)
{
  ++inferences_;
  graph_launches_ += from_graph;
  preprocess_.add (preprocess_ms);
  dla_.add (dla_ms);
  postprocess_.add (postprocess_ms);
  total_.add (total_ms);
  if (dla_core < 0 || dla_core >= kCores)
    return;
  Core &c = cores_[size_t (dla_core)];
  c.bound = true;
  ++c.tasks;
  if (busy_ms > 0.f)
    c.busy_ms += double (busy_ms);
}

void Stats::skipped ()
{
  std::lock_guard<std::mutex> lock (mutex_);
  ++frames_;
  ++skipped_;
}

void Stats::failed ()
{
  std::lock_guard<std::mutex> lock (mutex_);
  ++frames_;
  ++errors_;
}

GstStructure *Stats::to_structure () const
{
  uint64_t frames, inferences, skipped, errors, graph_launches;
  Timing t[4];
  std::array<Core, kCores> cores;
  ObjectCounts o;
  DetectionCounts d;
  {
    std::lock_guard<std::mutex> lock (mutex_);
    frames = frames_;
    inferences = inferences_;
    skipped = skipped_;
    errors = errors_;
    graph_launches = graph_launches_;
    t[0] = preprocess_;
    t[1] = dla_;
    t[2] = postprocess_;
    t[3] = total_;
    cores = cores_;
    o = objects_;
    d = detections_;
  }
  GstStructure *s = gst_structure_new (
      "dlainfer-stats", "frames", G_TYPE_UINT64, guint64 (frames), "inferences", G_TYPE_UINT64,
      guint64 (inferences), "skipped", G_TYPE_UINT64, guint64 (skipped), "errors", G_TYPE_UINT64,
      guint64 (errors), "graph-launches", G_TYPE_UINT64, guint64 (graph_launches), nullptr);
  static const char *const names[4][3] = {{"preprocess-mean-ms", "preprocess-max-ms", "preprocess-timed"},
                                          {"dla-mean-ms", "dla-max-ms", "dla-timed"},
                                          {"postprocess-mean-ms", "postprocess-max-ms", "postprocess-timed"},
                                          {"total-mean-ms", "total-max-ms", "total-timed"}};
  /* "-timed": how many inferences the mean is over, so a reader can take a window's mean. */
  for (int i = 0; i < 4; ++i)
    gst_structure_set (s, names[i][0], G_TYPE_DOUBLE, t[i].mean (), names[i][1], G_TYPE_DOUBLE, t[i].max,
                       names[i][2], G_TYPE_UINT64, guint64 (t[i].count), nullptr);
  GValue array = G_VALUE_INIT;
  g_value_init (&array, GST_TYPE_ARRAY);
  for (int i = 0; i < kCores; ++i) {
    if (!cores[size_t (i)].bound)
      continue;
    GValue item = G_VALUE_INIT;
    g_value_init (&item, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&item, gst_structure_new ("dla-core", "core", G_TYPE_INT, i, "tasks", G_TYPE_UINT64,
                                                  guint64 (cores[size_t (i)].tasks), "busy-ms", G_TYPE_DOUBLE,
                                                  cores[size_t (i)].busy_ms, nullptr));
    gst_value_array_append_and_take_value (&array, &item);
  }
  gst_structure_take_value (s, "cores", &array);
  gst_structure_set (s, "objects-seen", G_TYPE_UINT64, guint64 (o.seen), "objects-classified", G_TYPE_UINT64,
                     guint64 (o.classified), "objects-carried", G_TYPE_UINT64, guint64 (o.carried),
                     "objects-degenerate", G_TYPE_UINT64, guint64 (o.degenerate), "objects-filtered",
                     G_TYPE_UINT64, guint64 (o.filtered), "objects-too-small", G_TYPE_UINT64,
                     guint64 (o.too_small), "objects-over-maximum", G_TYPE_UINT64, guint64 (o.over_maximum),
                     "objects-launches", G_TYPE_UINT64, guint64 (o.launches), nullptr);
  gst_structure_set (s, "detections", G_TYPE_UINT64, guint64 (d.detections), "detection-candidates",
                     G_TYPE_UINT64, guint64 (d.candidates), "candidates-dropped", G_TYPE_UINT64,
                     guint64 (d.dropped), nullptr);
  return s;
}

}  // namespace dlainfer
