/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmarks of the dlainfer element (tests/bench): pre-rendered 1080p NV12 frames in CUDA memory
 * pushed from an appsrc, as fast as the pipeline takes them, timed between two frames at the sink
 * (warm-up excluded) with the wall clock and getrusage (CPU of every thread of the process). The
 * frames are pushed from appsrc's need-data callback, on the streaming thread itself: an app thread
 * blocked on a full queue would be woken once per frame, a cost that grows with the frame rate's
 * difference between the two elements compared, not with either element's work. */
#pragma once

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gst/meta/gstdlameta.h"
#include "test_support.h"
#include "thread_cpu.h"

namespace bench {

inline std::string model ()
{
  return dlainfer_test::test_data ("colours.swdla");
}
inline std::string labels ()
{
  return dlainfer_test::test_data ("colours.labels");
}

inline std::string swdla_missing ()
{
  const char *lib = g_getenv ("DLAINFER_CUDLA_LIBRARY");
  if (!lib || !g_file_test (lib, G_FILE_TEST_EXISTS))
    return std::string ("the software DLA library is missing: ") +
           (lib ? lib : "DLAINFER_CUDLA_LIBRARY unset");
  if (!g_file_test (model ().c_str (), G_FILE_TEST_EXISTS))
    return "the swdla models are missing (" + model () + ")";
  return "";
}

inline double cpu_seconds ()
{
  struct rusage ru {};
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

inline double rss_mib ()
{
  long pages = 0, resident = 0;
  if (FILE *f = std::fopen ("/proc/self/statm", "r")) {
    if (std::fscanf (f, "%ld %ld", &pages, &resident) != 2)
      resident = 0;
    std::fclose (f);
  }
  return resident * double (sysconf (_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

inline double gpu_used_mib ()
{
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo (&free_b, &total_b) != cudaSuccess)
    return -1;
  return double (total_b - free_b) / (1024.0 * 1024.0);
}

/* K distinct 1080p NV12 frames in CUDA memory of the device's primary context (rendered through a
 * dlainfer, which hands its context to cudaupload; its meta is removed again). The rendering
 * pipeline stays alive (idle at end of stream) as long as the frames are used. */
class Frames {
 public:
  explicit Frames (int k, const std::string &pattern = "ball")
  {
    const std::string desc = "videotestsrc num-buffers=" + std::to_string (k) + " pattern=" + pattern +
                             " ! video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1 ! cudaupload "
                             "! video/x-raw(memory:CUDAMemory) ! dlainfer model=\"" +
                             model () + "\" ! appsink name=sink sync=false";
    GError *err = nullptr;
    pipeline_ = gst_parse_launch (desc.c_str (), &err);
    if (!pipeline_ || err) {
      why_ = err ? err->message : "gst_parse_launch failed";
      g_clear_error (&err);
      return;
    }
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline_), "sink");
    gst_element_set_state (pipeline_, GST_STATE_PLAYING);
    for (int i = 0; i < k; ++i) {
      GstSample *s = nullptr;
      g_signal_emit_by_name (sink, "try-pull-sample", GstClockTime (30 * GST_SECOND), &s);
      if (!s)
        break;
      if (!caps_)
        caps_ = gst_caps_ref (gst_sample_get_caps (s));
      GstBuffer *b = gst_buffer_copy (gst_sample_get_buffer (s));
      if (GstDlaClassificationMeta *m = gst_buffer_get_dla_classification_meta (b))
        gst_buffer_remove_meta (b, &m->meta);
      frames_.push_back (b);
      gst_sample_unref (s);
    }
    gst_object_unref (sink);
    if (int (frames_.size ()) != k)
      why_ = "could not pre-render " + std::to_string (k) + " CUDA frames (got " +
             std::to_string (frames_.size ()) + ")";
  }
  ~Frames ()
  {
    for (GstBuffer *b : frames_)
      gst_buffer_unref (b);
    if (caps_)
      gst_caps_unref (caps_);
    if (pipeline_) {
      gst_element_set_state (pipeline_, GST_STATE_NULL);
      gst_object_unref (pipeline_);
    }
  }
  const std::string &error () const { return why_; }
  GstCaps *caps () const { return caps_; }
  GstBuffer *frame (guint64 i) const { return frames_[i % frames_.size ()]; }
  int count () const { return int (frames_.size ()); }

 private:
  GstElement *pipeline_ = nullptr;
  GstCaps *caps_ = nullptr;
  std::vector<GstBuffer *> frames_;
  std::string why_;
};

/* The preamble of every benchmark on swdla. SetUp fails the test at once (never skips), naming
 * what is missing, without swdla or its models; start () sets the test's swdla variables (they
 * stay set) and then pre-renders the frames through swdla, failing fatally when it cannot: call it
 * in ASSERT_NO_FATAL_FAILURE. A suite takes it under its own name: `using Soak = bench::SwdlaBench;`. */
class SwdlaBench : public testing::Test {
 protected:
  using Vars = std::initializer_list<std::pair<const char *, std::string>>;
  void SetUp () override
  {
    const std::string why = swdla_missing ();
    if (!why.empty ())
      GTEST_FAIL () << why;
  }
  void start (Vars vars, int k = 16, const std::string &pattern = "ball")
  {
    for (const auto &v : vars)
      g_setenv (v.first, v.second.c_str (), TRUE);
    frames_ = std::make_unique<Frames> (k, pattern);
    ASSERT_EQ (frames_->error (), "");
  }
  Frames &rendered () { return *frames_; }

 private:
  std::unique_ptr<Frames> frames_;
};

/* What the benchmarks read from an element's "stats" over its whole run. */
struct ElementStats {
  guint64 detections = 0;                       /* dladetect's */
  double dla_ms = 0, total_ms = 0, post_ms = 0; /* the means of dla, total, postprocess */
};

struct Result {
  std::string what;
  guint64 frames = 0; /* timed frames */
  double wall_s = 0, cpu_s = 0;
  double swdla_cpu_s = 0;                 /* of cpu_s, inside swdla's cudlaSubmitTask (0 without swdla) */
  std::map<int, double> swdla_core_cpu_s; /* of swdla_cpu_s, by the submitting handle's core */
  double streaming_cpu_s = 0; /* of cpu_s, the thread that pushes into fakesink (dlainfer: its src task) */
  std::map<std::string, double> thread_cpu_s; /* of cpu_s, by thread name (cpu_seconds_by_thread) */
  guint64 with_meta = 0;                      /* timed frames that left with a classification meta */
  /* dlainfer's own stats (CUDA events on 1 inference in dla::kTimingPeriod) over the timed frames
   * only (the warm-up, with swdla's first-task graph capture, taken out); < 0 without "infer". */
  double preprocess_ms = -1, dla_ms = -1, postprocess_ms = -1;
  guint64 inferences = 0, graph_launches = 0; /* kernel launches replayed from a CUDA graph */
  /* Every dlainfer's and dladetect's stats over the whole run (warm-up included), by element name. */
  std::map<std::string, ElementStats> stats_by;
  /* Per DLA core, over the timed frames (stats' cores): tasks, and busy ms (their DLA time). */
  std::map<int, guint64> core_tasks;
  std::map<int, double> core_busy_ms;
  /* The share of the wall time core `c` was busy (0 when it ran nothing). */
  double core_busy (int c) const
  {
    return wall_s > 0 && core_busy_ms.count (c) ? core_busy_ms.at (c) * 1e-3 / wall_s : 0;
  }
  std::string error;
  double fps () const { return wall_s > 0 ? frames / wall_s : 0; }
  double wall_us () const { return frames ? 1e6 * wall_s / frames : 0; }
  double cpu_us () const { return frames ? 1e6 * cpu_s / frames : 0; }
  double swdla_cpu_us () const { return frames ? 1e6 * swdla_cpu_s / frames : 0; }
  double streaming_cpu_us () const { return frames ? 1e6 * streaming_cpu_s / frames : 0; }
  /* CPU microseconds per timed frame of the thread named `name` (0 when there was none). */
  double thread_us (const char *name) const
  {
    const auto it = thread_cpu_s.find (name);
    return frames && it != thread_cpu_s.end () ? 1e6 * it->second / frames : 0;
  }
  /* The element's own CPU per timed frame: its streaming thread (behind a `queue name=q`, q:src) and
   * its src task (an element named infer, infer:src), swdla's emulated submit left out. The other
   * threads (appsrc, the sink) are not the element's and only add noise. */
  double element_cpu_us () const { return thread_us ("q:src") + thread_us ("infer:src") - swdla_cpu_us (); }
  /* The same for one of several elements, each behind its own queue and alone on its DLA core. */
  double element_cpu_us (const std::string &queue, const std::string &element, int core) const
  {
    const double swdla = swdla_core_cpu_s.count (core) ? swdla_core_cpu_s.at (core) : 0;
    return thread_us ((queue + ":src").c_str ()) + thread_us ((element + ":src").c_str ()) -
           (frames ? 1e6 * swdla / frames : 0);
  }
};

/* Each round's figure, "a / b / c", for a table's rounds column. */
inline std::string rounds_text (const std::vector<double> &v)
{
  std::string text;
  for (double x : v) {
    char one[32];
    std::snprintf (one, sizeof one, "%.1f", x);
    text += (text.empty () ? "" : " / ") + std::string (one);
  }
  return text;
}

/* A function of the cuDLA library loaded in this process, called with `args`: its nanoseconds in
 * seconds, 0 when the library is not swdla. */
template <typename... Args>
inline double swdla_seconds (const char *symbol, Args... args)
{
  const char *path = g_getenv ("DLAINFER_CUDLA_LIBRARY");
  void *lib = path ? dlopen (path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  if (!lib)
    return 0;
  auto fn = reinterpret_cast<uint64_t (*) (Args...)> (dlsym (lib, symbol));
  const double s = fn ? fn (args...) / 1e9 : 0;
  dlclose (lib);
  return s;
}

/* CPU seconds spent so far inside swdla's cudlaSubmitTask (its swdlaSubmitCpuNs). */
inline double swdla_submit_cpu_seconds ()
{
  return swdla_seconds ("swdlaSubmitCpuNs");
}

/* The same by core, for the cores a benchmark uses (swdlaSubmitCpuNsCore). */
constexpr int kSwdlaCoresCounted = 4;
inline std::map<int, double> swdla_submit_cpu_seconds_by_core ()
{
  std::map<int, double> by_core;
  for (int c = 0; c < kSwdlaCoresCounted; ++c)
    by_core[c] = swdla_seconds ("swdlaSubmitCpuNsCore", c);
  return by_core;
}

/* Every dlainfer's and dladetect's stats in `bin`, by element name. */
inline std::map<std::string, ElementStats> stats_by_element (GstBin *bin)
{
  std::map<std::string, ElementStats> by;
  GstIterator *it = gst_bin_iterate_recurse (bin);
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GstElement *e = GST_ELEMENT (g_value_get_object (&item));
    GstElementFactory *f = gst_element_get_factory (e);
    const char *kind = f ? GST_OBJECT_NAME (f) : "";
    GstStructure *stats = nullptr;
    if (g_strcmp0 (kind, "dladetect") == 0 || g_strcmp0 (kind, "dlainfer") == 0)
      g_object_get (e, "stats", &stats, nullptr);
    if (stats) {
      ElementStats &s = by[GST_OBJECT_NAME (e)];
      gst_structure_get_uint64 (stats, "detections", &s.detections);
      gst_structure_get_double (stats, "dla-mean-ms", &s.dla_ms);
      gst_structure_get_double (stats, "total-mean-ms", &s.total_ms);
      gst_structure_get_double (stats, "postprocess-mean-ms", &s.post_ms);
      gst_structure_free (stats);
    }
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  return by;
}

/* The element's stage means at one moment, with how many inferences each is over. */
struct StageMeans {
  double mean[3] = {-1, -1, -1}; /* preprocess, dla, postprocess (ms) */
  guint64 count[3] = {0, 0, 0};
  std::map<int, guint64> core_tasks; /* stats' cores */
  std::map<int, double> core_busy_ms;
};

inline StageMeans stage_means (GstElement *infer)
{
  StageMeans m;
  GstStructure *stats = nullptr;
  if (infer)
    g_object_get (infer, "stats", &stats, nullptr);
  if (!stats)
    return m;
  static const char *const names[3][2] = {{"preprocess-mean-ms", "preprocess-timed"},
                                          {"dla-mean-ms", "dla-timed"},
                                          {"postprocess-mean-ms", "postprocess-timed"}};
  for (int i = 0; i < 3; ++i) {
    gst_structure_get_double (stats, names[i][0], &m.mean[i]);
    gst_structure_get_uint64 (stats, names[i][1], &m.count[i]);
  }
  const GValue *cores = gst_structure_get_value (stats, "cores");
  for (guint i = 0; cores && GST_VALUE_HOLDS_ARRAY (cores) && i < gst_value_array_get_size (cores); ++i) {
    const GstStructure *c = gst_value_get_structure (gst_value_array_get_value (cores, i));
    int core = -1;
    gst_structure_get_int (c, "core", &core);
    gst_structure_get_uint64 (c, "tasks", &m.core_tasks[core]);
    gst_structure_get_double (c, "busy-ms", &m.core_busy_ms[core]);
  }
  gst_structure_free (stats);
  return m;
}

/* Mean of stage i over the inferences between two snapshots; -1 when none was timed. */
inline double window_mean (const StageMeans &a, const StageMeans &b, int i)
{
  const guint64 k = b.count[i] - a.count[i];
  return k > 0 ? (b.mean[i] * b.count[i] - a.mean[i] * a.count[i]) / k : -1;
}

/* Pushes warmup + n frames through `appsrc ! MIDDLE ! fakesink` and times the last n at the sink.
 * every(k) is called at the sink after each `period`-th timed frame (k = frames so far). */
inline Result run (const Frames &frames, const std::string &middle, guint64 warmup, guint64 n,
                   const std::function<void (guint64)> &every = nullptr, guint64 period = 10000)
{
  Result r;
  r.what = middle;
  const std::string desc = "appsrc name=src format=time ! " + middle + " ! fakesink name=sink sync=false";
  GError *err = nullptr;
  GstElement *pipeline = gst_parse_launch (desc.c_str (), &err);
  if (!pipeline || err) {
    r.error = err ? err->message : "gst_parse_launch failed";
    g_clear_error (&err);
    return r;
  }
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_app_src_set_caps (GST_APP_SRC (src), frames.caps ());

  struct Probe {
    guint64 seen = 0, warmup = 0, n = 0, with_meta = 0, period = 10000;
    gint64 t0 = 0, t1 = 0;
    double c0 = 0, c1 = 0, s0 = 0, s1 = 0, th0 = 0, th1 = 0;
    std::map<std::string, double> by_thread0, by_thread1;
    std::map<int, double> by_core0, by_core1;
    const std::function<void (guint64)> *every = nullptr;
    GstElement *infer = nullptr;
    StageMeans at_warmup;
  } p;
  p.infer = gst_bin_get_by_name (GST_BIN (pipeline), "infer");
  p.warmup = warmup;
  p.n = n;
  p.every = &every;
  p.period = period;
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (
      pad, GST_PAD_PROBE_TYPE_BUFFER,
      [] (GstPad *, GstPadProbeInfo *info, gpointer data) -> GstPadProbeReturn {
        auto *p = static_cast<Probe *> (data);
        const guint64 i = ++p->seen;
        if (i > p->warmup && gst_buffer_get_dla_classification_meta (GST_PAD_PROBE_INFO_BUFFER (info)))
          ++p->with_meta;
        if (i == p->warmup) {
          p->at_warmup = stage_means (p->infer);
          p->by_thread0 = cpu_seconds_by_thread ();
          p->c0 = cpu_seconds ();
          p->s0 = swdla_submit_cpu_seconds ();
          p->by_core0 = swdla_submit_cpu_seconds_by_core ();
          p->th0 = thread_cpu_seconds ();
          p->t0 = g_get_monotonic_time ();
        } else if (i == p->warmup + p->n) {
          p->t1 = g_get_monotonic_time ();
          p->s1 = swdla_submit_cpu_seconds ();
          p->by_core1 = swdla_submit_cpu_seconds_by_core ();
          p->th1 = thread_cpu_seconds ();
          p->c1 = cpu_seconds ();
          p->by_thread1 = cpu_seconds_by_thread ();
        }
        if (i > p->warmup && (i - p->warmup) % p->period == 0 && *p->every)
          (*p->every) (i - p->warmup);
        return GST_PAD_PROBE_OK;
      },
      &p, nullptr);
  gst_object_unref (pad);

  struct Feeder {
    const Frames *frames;
    guint64 next = 0, total = 0;
  } feeder{&frames, 0, warmup + n};
  GstAppSrcCallbacks callbacks{};
  callbacks.need_data = [] (GstAppSrc *appsrc, guint, gpointer data) {
    auto *f = static_cast<Feeder *> (data);
    if (f->next == f->total) {
      gst_app_src_end_of_stream (appsrc);
      return;
    }
    const GstClockTime frame_dur = GST_SECOND / 30;
    GstBuffer *b = gst_buffer_copy (f->frames->frame (f->next)); /* shallow: same CUDA memory, fresh buffer */
    GST_BUFFER_PTS (b) = f->next * frame_dur;
    GST_BUFFER_DURATION (b) = frame_dur;
    ++f->next;
    gst_app_src_push_buffer (appsrc, b);
  };
  gst_app_src_set_callbacks (GST_APP_SRC (src), &callbacks, &feeder, nullptr);

  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    r.error = "the pipeline did not start";
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
                                                GstMessageType (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (!msg) {
    r.error = "no end of stream within 600 s";
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *dbg = nullptr;
    gst_message_parse_error (msg, &err, &dbg);
    r.error = std::string (err->message) + " (" + (dbg ? dbg : "") + ")";
    g_clear_error (&err);
    g_free (dbg);
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  if (p.infer) {
    const StageMeans end = stage_means (p.infer);
    r.preprocess_ms = window_mean (p.at_warmup, end, 0);
    r.dla_ms = window_mean (p.at_warmup, end, 1);
    r.postprocess_ms = window_mean (p.at_warmup, end, 2);
    for (const auto &c : end.core_tasks) {
      r.core_tasks[c.first] = c.second - p.at_warmup.core_tasks[c.first];
      r.core_busy_ms[c.first] = end.core_busy_ms.at (c.first) - p.at_warmup.core_busy_ms[c.first];
    }
    GstStructure *stats = nullptr;
    g_object_get (p.infer, "stats", &stats, nullptr);
    if (stats) {
      gst_structure_get_uint64 (stats, "inferences", &r.inferences);
      gst_structure_get_uint64 (stats, "graph-launches", &r.graph_launches);
      gst_structure_free (stats);
    }
    gst_object_unref (p.infer);
  }
  r.stats_by = stats_by_element (GST_BIN (pipeline));
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  if (r.error.empty () && p.seen != warmup + n)
    r.error = "the sink saw " + std::to_string (p.seen) + " of " + std::to_string (warmup + n) + " frames";
  r.frames = n;
  r.wall_s = (p.t1 - p.t0) / 1e6;
  r.cpu_s = p.c1 - p.c0;
  for (const auto &[name, s] : p.by_thread1)
    r.thread_cpu_s[name] = s - (p.by_thread0.count (name) ? p.by_thread0.at (name) : 0.0);
  r.swdla_cpu_s = p.s1 - p.s0;
  for (const auto &[core, s] : p.by_core1)
    r.swdla_core_cpu_s[core] = s - p.by_core0[core];
  r.streaming_cpu_s = p.th1 - p.th0;
  r.with_meta = p.with_meta;
  return r;
}

inline std::string dlainfer (const std::string &extra = "")
{
  return "dlainfer name=infer model=\"" + model () + "\" labels=\"" + labels () + "\"" +
         (extra.empty () ? "" : " " + extra);
}

inline void print_machine ()
{
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice (&dev) == cudaSuccess && cudaGetDeviceProperties (&prop, dev) == cudaSuccess) {
    guint major = 0, minor = 0, micro = 0, nano = 0;
    gst_version (&major, &minor, &micro, &nano);
    std::printf (
        "machine: GPU %s; GStreamer %u.%u.%u; %ld CPUs online; DLA: swdla (software DLA on the GPU)\n",
        prop.name, major, minor, micro, sysconf (_SC_NPROCESSORS_ONLN));
  }
}

}  // namespace bench
