/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmarks of dladetect on swdla, with the planted detector (tests/swdla/models.spec,
 * graph-detect-planted) on white 1080p NV12 CUDA frames: every cell of its heads passes, NMS leaves
 * dozens, and max-detections makes it exactly the count wanted.
 *
 * HostCpu: the host CPU dladetect adds per frame over full-frame classification (dlainfer, the
 * colours model) at 1 and 16 detections per frame. Target: <= 10 us + 0.3 us per detection. The
 * three elements run side by side in one pipeline (a tee, a named queue before each, each alone on
 * its swdla core at a 1 ms service): the same frames, the same period (the host's CPU per frame grows
 * with the period) and the same seconds of the machine, whose state moved a run's baseline by tens
 * of microseconds between runs made one after the other. Each element's own threads
 * (Result::element_cpu_us), its core's share of swdla's emulated submit left out; the median of
 * fifteen runs' differences.
 *
 * Cascade: `dladetect dla-core=0 max-detections=16 ! dlainfer inference-region=roi-list dla-core=1`
 * (colours-batch16), swdla's service 1 ms per task + 0.1 ms per item: the detector's task 1.1 ms,
 * the classifier's batch-16 task 2.6 ms, the slower core. Target: >= 95 % of its ceiling
 * (1 / 2.6 ms), one classifier task per frame. */
#include <glib/gstdio.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bench_support.h"

namespace {

constexpr int kServiceUs = 1000, kPerItemUs = 100, kDetections = 16, kRounds = 15;
constexpr guint64 kWarmup = 50;

/* The planted detector in a folder of its own beside its .modelinfo (the decoder's keys); removed
 * with it. */
class PlantedDetector {
 public:
  PlantedDetector ()
  {
    gchar *dir = g_dir_make_tmp ("bench-dladetect-XXXXXX", nullptr);
    dir_ = dir ? dir : "";
    g_free (dir);
    path_ = dir_ + "/det.swdla";
    const std::string model = dlainfer_test::test_data ("graph-detect-planted.swdla");
    ok_ = !dir_.empty () && symlink (model.c_str (), path_.c_str ()) == 0 &&
          g_file_set_contents ((dir_ + "/det.modelinfo").c_str (),
                               "[modelinfo]\nversion=1.0\ndlainfer-decoder=yolo-anchors\n"
                               "dlainfer-anchors=64,64;96,96\ndlainfer-threshold=0.5\n",
                               -1, nullptr);
  }
  ~PlantedDetector ()
  {
    g_unlink (path_.c_str ());
    g_unlink ((dir_ + "/det.modelinfo").c_str ());
    g_rmdir (dir_.c_str ());
  }
  bool ok () const { return ok_; }
  /* dladetect `name` on `core` keeping `detections` a frame (the fine output is INT8 at 1/16). */
  std::string element (const std::string &name, int core, int detections) const
  {
    return "dladetect name=" + name + " dla-core=" + std::to_string (core) +
           " max-detections=" + std::to_string (detections) +
           " output-scale=0.0625 post-messages=false model=\"" + path_ + "\"";
  }

 private:
  std::string dir_, path_;
  bool ok_ = false;
};

/* The whole process's CPU per frame, swdla's emulated submit left out (the cascade's two elements). */
double own_cpu_us (const bench::Result &r)
{
  return r.cpu_us () - r.swdla_cpu_us ();
}

double detections_per_frame (const bench::Result &r, const std::string &element)
{
  const auto it = r.stats_by.find (element);
  return r.frames && it != r.stats_by.end () ? double (it->second.detections) / double (r.frames + kWarmup)
                                             : 0;
}

/* One branch of the side-by-side run: its queue, its element, its DLA core. */
struct Branch {
  std::string queue, element;
  int core;
};

void unset_swdla ()
{
  for (const char *v : {"SWDLA_SERVICE_US", "SWDLA_SERVICE_PER_ITEM_US", "SWDLA_NUM_CORES"})
    g_unsetenv (v);
}

}  // namespace

using DetectBench = bench::SwdlaBench;

TEST_F (DetectBench, HostCpu)
{
  ASSERT_NO_FATAL_FAILURE (
      start ({{"SWDLA_NUM_CORES", "3"}, {"SWDLA_SERVICE_US", std::to_string (kServiceUs)}}, 16, "white"));
  PlantedDetector det;
  ASSERT_TRUE (det.ok ()) << "could not write the planted detector's folder";
  const guint64 n = 2000;
  /* The three side by side: appsrc ! tee, a queue and an element per branch, each on its own core. */
  const Branch branches[3] = {{"q", "infer", 0}, {"q1", "det1", 1}, {"q16", "det16", 2}};
  const std::string queue = " max-size-buffers=4 ! ";
  const std::string pipeline =
      "tee name=t t. ! queue name=q1" + queue + det.element ("det1", 1, 1) +
      " ! fakesink sync=false t. ! queue name=q16" + queue + det.element ("det16", 2, kDetections) +
      " ! fakesink sync=false t. ! queue name=q" + queue + bench::dlainfer ("dla-core=0 post-messages=false");
  std::vector<double> own[3], added[2], queue_thread[3], src_thread[3], dla_ms[3], total_ms[3], post_ms[3];
  double per_frame[2] = {0, 0};
  for (int round = 0; round < kRounds; ++round) {
    const bench::Result r = bench::run (rendered (), pipeline, kWarmup, n);
    ASSERT_EQ (r.error, "");
    for (int k = 0; k < 3; ++k) {
      const Branch &b = branches[k];
      ASSERT_GT (r.thread_us ((b.queue + ":src").c_str ()), 0.0)
          << "no thread named " << b.queue << ":src: the measure would miss " << b.element;
      own[k].push_back (r.element_cpu_us (b.queue, b.element, b.core));
      queue_thread[k].push_back (r.thread_us ((b.queue + ":src").c_str ()));
      src_thread[k].push_back (r.thread_us ((b.element + ":src").c_str ()));
      const bench::ElementStats &st = r.stats_by.at (b.element);
      dla_ms[k].push_back (st.dla_ms);
      total_ms[k].push_back (st.total_ms);
      post_ms[k].push_back (st.post_ms);
    }
    for (int k = 0; k < 2; ++k) {
      added[k].push_back (own[k + 1].back () - own[0].back ());
      per_frame[k] = detections_per_frame (r, branches[k + 1].element);
    }
  }
  unset_swdla ();

  bench::print_machine ();
  std::printf (
      "\nBenchmark: dladetect's host CPU over full-frame classification, 1080p NV12 CUDA frames through a "
      "tee to the three side by side, each on its own swdla core, %d us per task, %" G_GUINT64_FORMAT
      " frames a run, %d runs\n\n",
      kServiceUs, n, kRounds);
  std::printf (
      "| element | detections / frame | own CPU us/frame (median) | added us/frame (median of runs) | runs |"
      " target us | meets |\n|---|--:|--:|--:|---|--:|---|\n");
  std::printf ("| dlainfer (colours), full frame | - | %.1f | - | - | - | - |\n", bench::median (own[0]));
  for (int k = 0; k < 2; ++k) {
    const double add = bench::median (added[k]), target = 10.0 + 0.3 * per_frame[k];
    std::printf ("| dladetect (planted), max-detections=%d | %.1f | %.1f | %.1f | %s | %.1f | %s |\n",
                 k == 0 ? 1 : kDetections, per_frame[k], bench::median (own[k + 1]), add,
                 bench::rounds_text (added[k]).c_str (), target, add <= target ? "yes" : "NO");
    EXPECT_LE (add, target) << "dladetect adds at most 10 us + 0.3 us per detection a frame";
  }
  std::vector<double> slope;
  for (int i = 0; i < kRounds; ++i)
    slope.push_back ((own[2][size_t (i)] - own[1][size_t (i)]) / (kDetections - 1));
  std::printf ("\nper further detection (16 against 1, each run): median %.3f us (%s)\n",
               bench::median (slope), bench::rounds_text (slope).c_str ());
  /* Which thread carries what: the queue's (the element's streaming side, swdla's submit in it) and
   * the element's src task (wait, read, metas, push, the sink's free); and the element's stats: the
   * DLA task, acquire to outputs seen by the host (the decode inside), the src task's read. */
  std::printf (
      "\n| element | queue thread us/frame | src task us/frame | dla us | total us | postprocess us |\n"
      "|---|--:|--:|--:|--:|--:|\n");
  for (int k = 0; k < 3; ++k)
    std::printf ("| %s | %.1f | %.1f | %.1f | %.1f | %.2f |\n", branches[k].element.c_str (),
                 bench::median (queue_thread[k]), bench::median (src_thread[k]),
                 1e3 * bench::median (dla_ms[k]), 1e3 * bench::median (total_ms[k]),
                 1e3 * bench::median (post_ms[k]));
  std::printf ("(medians of the runs; the stats' means over each whole run)\n");
  EXPECT_NEAR (per_frame[0], 1.0, 0.01) << "the white frame keeps max-detections";
  EXPECT_NEAR (per_frame[1], double (kDetections), 0.01) << "the white frame keeps max-detections";
}

TEST_F (DetectBench, Cascade)
{
  ASSERT_NO_FATAL_FAILURE (start ({{"SWDLA_NUM_CORES", "2"},
                                   {"SWDLA_SERVICE_US", std::to_string (kServiceUs)},
                                   {"SWDLA_SERVICE_PER_ITEM_US", std::to_string (kPerItemUs)}},
                                  16, "white"));
  PlantedDetector det;
  ASSERT_TRUE (det.ok ()) << "could not write the planted detector's folder";
  const guint64 n = 1200;
  const std::string classifier =
      "dlainfer name=infer dla-core=1 inference-region=roi-list "
      "post-messages=false input-object-min-width=1 input-object-min-height=1 "
      "model=\"" +
      dlainfer_test::test_data ("colours-batch16.swdla") + "\" labels=\"" + bench::labels () + "\"";
  const std::string detector = det.element ("det", 0, kDetections);
  const bench::Result r = bench::run (rendered (), detector + " ! " + classifier, kWarmup, n);
  ASSERT_EQ (r.error, "");
  unset_swdla ();

  const double slower_ms = 1e-3 * (kServiceUs + 16.0 * kPerItemUs);
  const double pct = 100 * r.fps () * slower_ms * 1e-3;
  bench::print_machine ();
  std::printf (
      "\nBenchmark: cascade, dladetect dla-core=0 (planted, %d detections a frame) ! dlainfer "
      "inference-region=roi-list dla-core=1 (colours-batch16), swdla %d us per task + %d us per "
      "item, %" G_GUINT64_FORMAT " frames\n\n",
      kDetections, kServiceUs, kPerItemUs, n);
  std::printf (
      "| fps | ceiling fps | fps / ceiling | classifier tasks / frame | core 1 busy | own CPU "
      "us/frame | meets |\n|--:|--:|--:|--:|--:|--:|---|\n");
  std::printf ("| %.1f | %.1f | %.1f %% | %.2f | %.1f %% | %.1f | %s |\n", r.fps (), 1e3 / slower_ms, pct,
               double (r.inferences) / double (n + kWarmup), 100 * r.core_busy (1), own_cpu_us (r),
               pct >= 95.0 ? "yes" : "NO");
  std::printf ("\nceiling = 1 / (%d us + 16 x %d us): the classifier's batch-16 task, the slower core.\n",
               kServiceUs, kPerItemUs);
  EXPECT_GE (pct, 95.0) << "the cascade reaches 95 % of the slower core's ceiling";
  EXPECT_EQ (r.inferences, n + kWarmup) << "one classifier task (16 objects, batch 16) per frame";
}
