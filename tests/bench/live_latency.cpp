/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark 4, live latency: videotestsrc is-live=true at 5 and 30 fps into dlainfer (swdla, one
 * core, 2 ms service) into a fakesink. Pad probes time each frame at the element's sink pad (in)
 * and src pad (out): the added latency's median and 99th percentile against the targets
 * service + 1 ms and service + 3 ms; and the element's share of a LATENCY query (its min latency
 * minus upstream's) against the measured 99th percentile, which it must cover. Judged with
 * sync=false: a sink that syncs holds each push until the frame's running time plus the pipeline's
 * latency (basesink adds a 20 ms processing deadline), and the next frame, already taken by the
 * element, waits behind that push: downstream's latency, not the element's. The GPU host measured
 * about 25 ms of "added" latency at either rate with sync=true, which matches that 20 ms plus the
 * element's announced 4.8 ms; the sync=false rows are to confirm it. A sync=true row shows it, not
 * judged. */
#include <algorithm>
#include <deque>
#include <mutex>

#include "bench_support.h"

namespace {

constexpr int kServiceUs = 2000;

struct Timing {
  std::mutex mutex;
  std::deque<gint64> in; /* frames entered, not yet out (the element keeps their order) */
  std::vector<double> added_ms;
};

GstPadProbeReturn on_in (GstPad *, GstPadProbeInfo *, gpointer data)
{
  auto *t = static_cast<Timing *> (data);
  std::lock_guard<std::mutex> lock (t->mutex);
  t->in.push_back (g_get_monotonic_time ());
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn on_out (GstPad *, GstPadProbeInfo *, gpointer data)
{
  auto *t = static_cast<Timing *> (data);
  const gint64 now = g_get_monotonic_time ();
  std::lock_guard<std::mutex> lock (t->mutex);
  if (!t->in.empty ()) {
    t->added_ms.push_back ((now - t->in.front ()) / 1000.0);
    t->in.pop_front ();
  }
  return GST_PAD_PROBE_OK;
}

double percentile (std::vector<double> v, double p)
{
  if (v.empty ())
    return -1;
  std::sort (v.begin (), v.end ());
  return v[std::min (v.size () - 1, size_t (p * double (v.size () - 1) + 0.5))];
}

struct Row {
  int fps = 0;
  bool sync = false;
  size_t frames = 0;
  double median = -1, p99 = -1, reported = -1;
  std::string error;
};

/* The element's own share of a LATENCY query (ms), or -1. */
double reported_ms (GstElement *infer)
{
  GstPad *src = gst_element_get_static_pad (infer, "src");
  GstPad *sink = gst_element_get_static_pad (infer, "sink");
  GstQuery *ours = gst_query_new_latency ();
  GstQuery *up = gst_query_new_latency ();
  double ms = -1;
  if (gst_pad_query (src, ours) && gst_pad_peer_query (sink, up)) {
    GstClockTime min = 0, up_min = 0;
    gst_query_parse_latency (ours, nullptr, &min, nullptr);
    gst_query_parse_latency (up, nullptr, &up_min, nullptr);
    ms = double (GST_CLOCK_DIFF (up_min, min)) / 1e6;
  }
  gst_query_unref (ours);
  gst_query_unref (up);
  gst_object_unref (src);
  gst_object_unref (sink);
  return ms;
}

Row run_live (int fps, int seconds, bool sync = false)
{
  Row row;
  row.fps = fps;
  row.sync = sync;
  const std::string desc =
      "videotestsrc is-live=true num-buffers=" + std::to_string (fps * seconds) +
      " ! video/x-raw,format=NV12,width=640,height=480,framerate=" + std::to_string (fps) + "/1 ! " +
      bench::dlainfer ("dla-core=0") + " ! fakesink sync=" + (sync ? "true" : "false");
  GError *err = nullptr;
  GstElement *pipeline = gst_parse_launch (desc.c_str (), &err);
  if (!pipeline || err) {
    row.error = err ? err->message : "gst_parse_launch failed";
    g_clear_error (&err);
    return row;
  }
  GstElement *infer = gst_bin_get_by_name (GST_BIN (pipeline), "infer");
  Timing t;
  GstPad *in = gst_element_get_static_pad (infer, "sink");
  GstPad *out = gst_element_get_static_pad (infer, "src");
  gst_pad_add_probe (in, GST_PAD_PROBE_TYPE_BUFFER, on_in, &t, nullptr);
  gst_pad_add_probe (out, GST_PAD_PROBE_TYPE_BUFFER, on_out, &t, nullptr);
  gst_object_unref (in);
  gst_object_unref (out);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, GstClockTime (seconds + 30) * GST_SECOND,
                                                GstMessageType (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (!msg || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    row.error = msg ? "an error on the bus" : "no end of stream";
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  row.reported = reported_ms (infer); /* after the run: any re-announcement included */
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (infer);
  gst_object_unref (pipeline);
  std::lock_guard<std::mutex> lock (t.mutex);
  /* The first frames load the kernel's graphs: left out. */
  const size_t skip = std::min<size_t> (t.added_ms.size (), 5);
  const std::vector<double> steady (t.added_ms.begin () + skip, t.added_ms.end ());
  row.frames = steady.size ();
  row.median = percentile (steady, 0.5);
  row.p99 = percentile (steady, 0.99);
  return row;
}

}  // namespace

using LiveLatency = bench::SwdlaBench;

TEST_F (LiveLatency, FiveAndThirtyFps)
{
  g_setenv ("SWDLA_NUM_CORES", "1", TRUE);
  g_setenv ("SWDLA_SERVICE_US", std::to_string (kServiceUs).c_str (), TRUE);
  std::vector<Row> rows = {run_live (5, 20), run_live (30, 10), run_live (30, 10, true)};
  g_unsetenv ("SWDLA_SERVICE_US");
  bench::print_machine ();
  const double service_ms = kServiceUs / 1000.0;
  std::printf (
      "\nBenchmark 4 - live latency: videotestsrc is-live=true ! NV12 640x480 ! dlainfer ! fakesink, "
      "swdla one core, service %.1f ms (swdla/GPU)\n\n",
      service_ms);
  std::printf (
      "| fps | sink sync | frames | added median ms | target <= %.1f | added p99 ms | target <= %.1f | "
      "reported ms | >= p99 |\n|--:|---|--:|--:|---|--:|---|--:|---|\n",
      service_ms + 1, service_ms + 3);
  for (const Row &r : rows) {
    ASSERT_EQ (r.error, "") << r.fps << " fps";
    EXPECT_GT (r.frames, 0u) << r.fps << " fps";
    const auto judged = [&] (bool ok) { return r.sync ? "(not judged)" : ok ? "yes" : "NO"; };
    std::printf ("| %d | %s | %zu | %.3f | %s | %.3f | %s | %.3f | %s |\n", r.fps, r.sync ? "true" : "false",
                 r.frames, r.median, judged (r.median <= service_ms + 1), r.p99,
                 judged (r.p99 <= service_ms + 3), r.reported, judged (r.reported >= r.p99));
    /* Orders of magnitude only: a frame is never held for a second. */
    EXPECT_LT (r.p99, 1000.0) << r.fps << " fps";
  }
  std::printf (
      "\nadded = the time between the element's sink pad and its src pad (pad probes, host clock); reported "
      "=\n"
      "the element's min latency (LATENCY query on its src pad minus upstream's), after the run.\n");
}
