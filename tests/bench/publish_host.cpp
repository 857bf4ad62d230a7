/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark: dlapublish. (1) The streaming thread's CPU per frame at 16 objects (ROI metas with a
 * detection, a tracking id and a dlainfer result each, plus a whole-frame dlainfer meta): the
 * element's transform (read into a record, queued) less the making of the buffer, with the
 * publishing thread keeping up (and, for comparison, left behind); target <= 5 us.
 * (2) 8 elements at 30 fps x 16 objects each, QoS 1, to a local mosquitto for 3 s: no message may
 * be dropped. Prints the median of 9 rounds and the counts; (2) skips without /usr/sbin/mosquitto. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "gst/publish/frame_reader.h"
#include "gst/publish/publisher.h"
#include "tests/publish/broker.h"
#include "tests/publish/publish_test_support.h"
#include "thread_cpu.h"

namespace {

using publish_test::Publish;

constexpr int kObjects = 16, kFrames = 2000, kBurst = 8;

constexpr int kRounds = 9;

/* The thread's CPU per frame over one round of kFrames frames (round r). Without `settle` the
 * frames go back to back: the publishing thread (JSON) falls behind by thousands of frames, and the
 * streaming thread makes a new record for each, as it would only in an outage. With it, frames go
 * in bursts of kBurst and settle () runs untimed between them until the publisher has caught up: a
 * stream's steady state, where the records come back to be reused (the publisher keeps kBurst
 * spares). */
double round_us (int r, const std::function<void (int)> &frame,
                 const std::function<void ()> &settle = nullptr)
{
  const int burst = settle ? kBurst : kFrames;
  double cpu = 0.0;
  for (int i = 0; i < kFrames; i += burst) {
    const double t0 = bench::thread_cpu_seconds ();
    for (int j = i; j < i + burst; ++j)
      frame (r * kFrames + j);
    cpu += bench::thread_cpu_seconds () - t0;
    if (settle)
      settle ();
  }
  return 1e6 * cpu / kFrames;
}

double median (std::vector<double> v)
{
  std::sort (v.begin (), v.end ());
  return v[v.size () / 2];
}

/* The median of kRounds rounds. */
double us_per_frame (const std::function<void (int)> &frame, const std::function<void ()> &settle = nullptr)
{
  std::vector<double> rounds;
  for (int r = 0; r < kRounds; ++r)
    rounds.push_back (round_us (r, frame, settle));
  return median (rounds);
}

/* Between bursts, untimed: kPause at least, and until `queued` says nothing is left (the publisher
 * polls every 5 ms). Every burst then starts after the same pause, as a stream's frames do, whether
 * something was queued or not: what the pause costs the next burst (caches the other work of the
 * machine took) falls on both sides of a comparison. */
constexpr auto kPause = std::chrono::milliseconds (5);

std::function<void ()> pause_until_empty (const std::function<guint64 ()> &queued)
{
  return [queued] {
    const auto t0 = std::chrono::steady_clock::now ();
    while (queued () > 0 || std::chrono::steady_clock::now () - t0 < kPause)
      std::this_thread::yield ();
  };
}

/* The element's step alone, on buffers made once: the metas read into a record, the record queued. */
TEST (PublishHost, ReadAndQueuePerFrame)
{
  std::vector<GstBuffer *> buffers;
  for (int i = 0; i < 64; ++i)
    buffers.push_back (publish_test::frame_with_results (i, kObjects));
  dlainfer::objects::CollectedObjects scratch;
  dlainfer::publish::FrameRecord record;
  const double read = us_per_frame (
      [&] (int i) { dlainfer::publish::read_frame (buffers[size_t (i % 64)], &scratch, &record); });
  dlainfer::publish::Publisher pub (dlainfer::publish::make_file_transport ("/dev/null"), 100000, 1, "bench",
                                    [] (dlainfer::publish::Report, const std::string &) {});
  const auto read_and_queue = [&] (int i) {
    dlainfer::publish::FrameRecord r = pub.acquire ();
    dlainfer::publish::read_frame (buffers[size_t (i % 64)], &scratch, &r);
    pub.push (std::move (r));
  };
  const double behind = us_per_frame (read_and_queue);
  const double kept_up =
      us_per_frame (read_and_queue, pause_until_empty ([&] { return pub.counts ().queued; }));
  dlainfer::publish::FrameRecord own;
  const double read_paused =
      us_per_frame ([&] (int i) { dlainfer::publish::read_frame (buffers[size_t (i % 64)], &scratch, &own); },
                    pause_until_empty ([] { return guint64 (0); }));
  std::printf (
      "publish-host: metas read %.3f us back to back, %.3f in bursts of %d after a pause; read and "
      "queued %.3f us per frame in those bursts at %d objects (%.3f back to back with the publisher "
      "behind, every record new)\n",
      read, read_paused, kBurst, kept_up, kObjects, behind);
  EXPECT_TRUE (pub.drain (30000));
  EXPECT_EQ (pub.counts ().published, guint64 (2 * kRounds * kFrames));
  for (GstBuffer *b : buffers)
    gst_buffer_unref (b);
}

/* dlapublish's push against identity's, round after round, so that a drift of this machine's
 * speed (a shared VM) falls on both: the median of the rounds' differences. */
TEST (PublishHost, StreamingThreadPerFrame)
{
  Publish p ("method=file file-path=/dev/null queue-size=100000");
  ASSERT_TRUE (p.start ());
  GstHarness *h = gst_harness_new ("identity"); /* the same push, without dlapublish */
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=640,height=480,framerate=30/1");
  const auto bare = [&] (int i) {
    gst_buffer_unref (gst_harness_push_and_pull (h, publish_test::frame_with_results (i, kObjects)));
  };
  const auto push = [&] (int i) { p.push (publish_test::frame_with_results (i, kObjects)); };
  const auto settle = pause_until_empty ([&] { return p.stat ("queued"); });
  std::vector<double> bares, added, behind;
  for (int r = 0; r < kRounds; ++r) {
    bares.push_back (round_us (r, bare, pause_until_empty ([] { return guint64 (0); })));
    added.push_back (round_us (r, push, settle) - bares.back ());
    behind.push_back (round_us (r, push) - bares.back ());
    settle (); /* the next round starts with the publisher idle */
  }
  gst_harness_teardown (h);
  const double whole = median (added);
  std::printf (
      "publish-host: streaming thread %.3f us per frame at %d objects (median of %d rounds' "
      "differences; %.3f taken off: buffer and push; %.3f with the publisher behind, every record "
      "new); target <= 5 us: %s\n",
      whole, kObjects, kRounds, median (bares), median (behind), whole <= 5.0 ? "MET" : "MISSED");
  p.eos ();
  EXPECT_EQ (p.stat ("dropped"), 0u);
  EXPECT_EQ (p.stat ("published"), guint64 (2 * kRounds * kFrames));
}

TEST (PublishHost, EightStreamsNoDrop)
{
  if (!publish_test::Broker::available ())
    GTEST_SKIP () << "no /usr/sbin/mosquitto";
  publish_test::Broker broker;
  ASSERT_TRUE (broker.start ());
  constexpr int kStreams = 8, kFps = 30, kSeconds = 3;
  std::vector<std::unique_ptr<Publish>> pubs;
  for (int s = 0; s < kStreams; ++s) {
    pubs.push_back (std::make_unique<Publish> ("method=mqtt qos=1 drain-timeout=10000 topic=fleet/cam" +
                                               std::to_string (s) + " address=" + broker.address ()));
    ASSERT_TRUE (pubs.back ()->start ());
  }
  std::vector<std::thread> threads;
  for (int s = 0; s < kStreams; ++s)
    threads.emplace_back ([&, s] {
      const auto t0 = std::chrono::steady_clock::now ();
      for (int i = 0; i < kFps * kSeconds; ++i) {
        pubs[size_t (s)]->push (publish_test::frame_with_results (i, kObjects));
        std::this_thread::sleep_until (t0 + std::chrono::microseconds (1000000 / kFps * (i + 1)));
      }
      pubs[size_t (s)]->eos ();
    });
  for (std::thread &t : threads)
    t.join ();
  guint64 published = 0, dropped = 0, max_queued = 0;
  for (auto &p : pubs) {
    published += p->stat ("published");
    dropped += p->stat ("dropped");
    max_queued = std::max (max_queued, p->stat ("max-queued"));
  }
  std::printf ("publish-host: %d streams x %d fps x %d objects for %d s: %" G_GUINT64_FORMAT
               " published, %" G_GUINT64_FORMAT " dropped, max-queued %" G_GUINT64_FORMAT "\n",
               kStreams, kFps, kObjects, kSeconds, published, dropped, max_queued);
  EXPECT_EQ (published, guint64 (kStreams * kFps * kSeconds));
  EXPECT_EQ (dropped, 0u);
}

}  // namespace
