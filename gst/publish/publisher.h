/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: dlapublish's bounded queue and publishing thread (docs/publish.md).
 *
 * The streaming thread only reads the frame into a FrameRecord and pushes it (a lock, a move; no
 * wake-up: the thread polls every few milliseconds). When the queue holds queue-size records the
 * oldest is dropped and counted. The publishing thread takes records off the queue in batches (one
 * lock each), turns them into JSON and hands them to the transport, reconnecting with a doubling
 * backoff up to max-reconnect-interval; each outage is reported once through the report callback,
 * with its reason, and again when it ends. Counts add up exactly: frames = published + dropped +
 * queued + in flight. */
#pragma once

#include <gst/gst.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gst/publish/frame_record.h"
#include "gst/publish/transport.h"

namespace dlainfer {
namespace publish {

struct PublishCounts {
  uint64_t frames = 0, published = 0;
  uint64_t dropped_queue_full = 0, dropped_failed = 0, dropped_lost = 0, dropped_at_stop = 0;
  uint64_t queued = 0, in_flight = 0, max_queued = 0;
  uint64_t connects = 0, outages = 0;
  bool up = false;
  uint64_t dropped () const { return dropped_queue_full + dropped_failed + dropped_lost + dropped_at_stop; }
};

/* kWarning: an outage began (reason and fix); kInfo: it ended. */
enum class Report { kWarning, kInfo };
using ReportFn = std::function<void (Report, const std::string &)>;

class Publisher {
 public:
  Publisher (std::unique_ptr<Transport> transport, size_t queue_size, unsigned max_reconnect_s,
             std::string source, ReportFn report);
  ~Publisher ();
  Publisher (const Publisher &) = delete;
  Publisher &operator= (const Publisher &) = delete;

  /* Streaming thread: a record to fill, one the publishing thread is done with when there is one
   * (its vectors keep their capacity), else a new one. */
  FrameRecord acquire ();
  /* Streaming thread: queues one frame (its `frame` number is set here). */
  void push (FrameRecord &&record);
  /* Waits until everything queued is published, or timeout_ms; true when it was. */
  bool drain (unsigned timeout_ms);
  /* Ends the thread; what is left counts as dropped at stop. */
  void stop ();
  PublishCounts counts () const;
  void set_source (const std::string &source);

 private:
  void run ();
  void step_down (std::unique_lock<std::mutex> &lock);
  void step_up (std::unique_lock<std::mutex> &lock);
  void step_connecting (std::unique_lock<std::mutex> &lock);
  void note_failure (const std::string &reason);
  void end_outage ();
  void sync_counts ();
  void recycle (FrameRecord &&record);
  void put_back (size_t handed);

  std::unique_ptr<Transport> transport_;
  const size_t queue_size_;
  const unsigned max_reconnect_s_;
  ReportFn report_;

  /* The publishing thread's own. */
  std::string json_;
  std::vector<std::string> outcomes_; /* of each hand-over: "" or the failure, said under the lock */

  mutable std::mutex mutex_; /* guards all below (the batch's records are read without it) */
  std::condition_variable wake_;
  std::deque<FrameRecord> queue_;
  std::vector<FrameRecord> batch_; /* taken off the queue, being handed over (counted as queued) */
  std::vector<FrameRecord> spare_; /* records published, for acquire () */
  struct RecordSizes {
    size_t classes = 0, objects = 0, object_classes = 0, text = 0;
  };
  RecordSizes last_sizes_; /* of the last frame pushed: a new record's capacities */
  std::vector<std::pair<Report, std::string>> reports_; /* to say once the lock is released */
  bool reporting_ = false;                              /* reports being said: a drain waits */
  std::string source_;
  PublishCounts counts_;
  bool stopping_ = false, in_outage_ = false, was_up_ = false;
  uint64_t dropped_at_outage_ = 0;
  std::chrono::steady_clock::time_point next_attempt_{};
  std::chrono::milliseconds backoff_{250};
  std::thread thread_;
};

}  // namespace publish
}  // namespace dlainfer
