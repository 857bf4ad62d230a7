/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/publish/publisher.h"

#include <algorithm>
#include <utility>

#include "gst/publish/frame_json.h"

namespace dlainfer {
namespace publish {
namespace {

constexpr int kPollMs = 5;
constexpr size_t kSpareRecords = 8;
constexpr size_t kBatch = 16;
constexpr auto kFirstBackoff = std::chrono::milliseconds (250);

}  // namespace

Publisher::Publisher (std::unique_ptr<Transport> transport, size_t queue_size, unsigned max_reconnect_s,
                      std::string source, ReportFn report)
    : transport_ (std::move (transport)),
      queue_size_ (std::max<size_t> (queue_size, 1)),
      max_reconnect_s_ (std::max (max_reconnect_s, 1u)),
      report_ (std::move (report)),
      source_ (std::move (source))
{
  thread_ = std::thread ([this] { run (); });
}

/* Keeps a few records for acquire (under the lock). */
void Publisher::recycle (FrameRecord &&record)
{
  if (spare_.size () < kSpareRecords)
    spare_.push_back (std::move (record));
}

Publisher::~Publisher ()
{
  stop ();
}

FrameRecord Publisher::acquire ()
{
  FrameRecord r;
  RecordSizes sizes;
  {
    std::lock_guard<std::mutex> lock (mutex_);
    if (!spare_.empty ()) {
      r = std::move (spare_.back ());
      spare_.pop_back ();
      return r;
    }
    sizes = last_sizes_;
  }
  /* Sized like the last frame's (one allocation per vector, not a doubling series), without the lock. */
  r.classes.reserve (sizes.classes);
  r.objects.reserve (sizes.objects);
  r.object_classes.reserve (sizes.object_classes);
  r.text.reserve (sizes.text);
  return r;
}

void Publisher::push (FrameRecord &&record)
{
  std::lock_guard<std::mutex> lock (mutex_);
  record.frame = counts_.frames++;
  last_sizes_ = {record.classes.size (), record.objects.size (), record.object_classes.size (),
                 record.text.size ()};
  if (queue_.size () >= queue_size_) {
    recycle (std::move (queue_.front ()));
    queue_.pop_front ();
    ++counts_.dropped_queue_full;
  }
  queue_.push_back (std::move (record));
  counts_.queued = queue_.size () + batch_.size ();
  counts_.max_queued = std::max<uint64_t> (counts_.max_queued, queue_.size ());
}

bool Publisher::drain (unsigned timeout_ms)
{
  std::unique_lock<std::mutex> lock (mutex_);
  return wake_.wait_for (lock, std::chrono::milliseconds (timeout_ms), [this] {
    return stopping_ || (counts_.queued == 0 && counts_.in_flight == 0 && reports_.empty () && !reporting_);
  });
}

void Publisher::stop ()
{
  {
    std::lock_guard<std::mutex> lock (mutex_);
    stopping_ = true;
  }
  wake_.notify_all ();
  if (thread_.joinable ())
    thread_.join ();
  std::lock_guard<std::mutex> lock (mutex_);
  if (transport_) {
    transport_->close ();
    sync_counts ();
    counts_.dropped_at_stop += queue_.size () + counts_.in_flight;
    transport_.reset ();
  }
  queue_.clear ();
  counts_.queued = counts_.in_flight = 0;
  counts_.up = false;
}

PublishCounts Publisher::counts () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return counts_;
}

void Publisher::set_source (const std::string &source)
{
  std::lock_guard<std::mutex> lock (mutex_);
  source_ = source;
}

/* The transport's counts into ours (under the lock; the transport is this thread's). */
void Publisher::sync_counts ()
{
  const TransportCounts &t = transport_->counts ();
  counts_.published = t.published;
  counts_.dropped_failed = t.failed;
  counts_.dropped_lost = t.lost;
  counts_.in_flight = transport_->in_flight ();
  counts_.up = transport_->up ();
}

/* The first failure of an outage is reported; later ones are counted only. */
void Publisher::note_failure (const std::string &reason)
{
  if (reason.empty () || in_outage_)
    return;
  in_outage_ = true;
  ++counts_.outages;
  dropped_at_outage_ = counts_.dropped ();
  reports_.emplace_back (Report::kWarning,
                         reason +
                             " (frames flow on; the oldest of queue-size messages are dropped, counted "
                             "in stats, until it is back)");
}

void Publisher::end_outage ()
{
  if (!in_outage_)
    return;
  in_outage_ = false;
  reports_.emplace_back (Report::kInfo, "publishing again; " +
                                            std::to_string (counts_.dropped () - dropped_at_outage_) +
                                            " message(s) dropped during the outage");
}

/* Not up: try again when the backoff says, else wait (a stop ends the wait). */
void Publisher::step_down (std::unique_lock<std::mutex> &lock)
{
  const auto now = std::chrono::steady_clock::now ();
  if (now < next_attempt_) {
    wake_.wait_until (lock, std::min (next_attempt_, now + std::chrono::milliseconds (100)));
    return;
  }
  lock.unlock ();
  const std::string failure = transport_->connect ();
  lock.lock ();
  if (failure.empty ())
    return; /* connecting: step_connecting finishes it */
  note_failure (failure);
  next_attempt_ = std::chrono::steady_clock::now () + backoff_;
  backoff_ = std::min<std::chrono::milliseconds> (backoff_ * 2, std::chrono::seconds (max_reconnect_s_));
}

void Publisher::step_connecting (std::unique_lock<std::mutex> &lock)
{
  lock.unlock ();
  transport_->poll (kPollMs);
  const std::string failure = transport_->take_failure ();
  lock.lock ();
  if (failure.empty ())
    return;
  note_failure (failure);
  next_attempt_ = std::chrono::steady_clock::now () + backoff_;
  backoff_ = std::min<std::chrono::milliseconds> (backoff_ * 2, std::chrono::seconds (max_reconnect_s_));
}

/* Up: takes up to kBatch records off the queue under one lock (so a push rarely finds the lock
 * taken), hands them over without it, puts back at the front what the transport had no room for,
 * then network work. The records being handed over still count as queued. */
void Publisher::step_up (std::unique_lock<std::mutex> &lock)
{
  bool sent = false;
  while (transport_->up () && transport_->room () && !queue_.empty ()) {
    while (batch_.size () < kBatch && !queue_.empty ()) {
      batch_.push_back (std::move (queue_.front ()));
      queue_.pop_front ();
    }
    const std::string source = source_;
    lock.unlock ();
    size_t handed = 0;
    for (; handed < batch_.size () && transport_->up () && transport_->room (); ++handed) {
      frame_json (batch_[handed], source, &json_);
      const bool ok = transport_->send (json_);
      outcomes_.push_back (ok ? std::string () : transport_->take_failure ());
      sent |= ok;
    }
    lock.lock ();
    for (const std::string &failure : outcomes_) {
      if (failure.empty ())
        end_outage (); /* a file that takes writes again */
      else
        note_failure (failure);
    }
    outcomes_.clear ();
    put_back (handed);
  }
  lock.unlock ();
  transport_->poll (kPollMs);
  const std::string failure = transport_->take_failure ();
  lock.lock ();
  note_failure (failure);
  if (!sent && transport_->up () && transport_->in_flight () == 0)
    wake_.wait_for (lock, std::chrono::milliseconds (kPollMs)); /* a file transport's poll returns at once */
}

/* The batch's first `handed` records to the spares, the rest back to the queue's front in order
 * (the oldest dropped and counted where pushes filled the queue meanwhile). Under the lock. */
void Publisher::put_back (size_t handed)
{
  for (size_t i = batch_.size (); i-- > handed;)
    queue_.push_front (std::move (batch_[i]));
  for (size_t i = 0; i < handed; ++i)
    recycle (std::move (batch_[i]));
  batch_.clear ();
  while (queue_.size () > queue_size_) {
    recycle (std::move (queue_.front ()));
    queue_.pop_front ();
    ++counts_.dropped_queue_full;
  }
  counts_.queued = queue_.size ();
  /* What left the queue counts as published or in flight before the lock goes, so a drain never
   * finds a record in neither. */
  sync_counts ();
}

void Publisher::run ()
{
  std::unique_lock<std::mutex> lock (mutex_);
  while (!stopping_) {
    if (transport_->up ()) {
      if (!was_up_) { /* connected (again) */
        was_up_ = true;
        ++counts_.connects;
        backoff_ = kFirstBackoff;
        end_outage ();
      }
      step_up (lock);
    } else {
      was_up_ = false;
      if (transport_->connecting ())
        step_connecting (lock);
      else
        step_down (lock);
    }
    sync_counts ();
    if (!reports_.empty ()) { /* said without the lock: a bus sync handler may read the counts */
      std::vector<std::pair<Report, std::string>> reports;
      reports.swap (reports_);
      reporting_ = true;
      lock.unlock ();
      for (const auto &r : reports)
        report_ (r.first, r.second);
      lock.lock ();
      reporting_ = false;
    }
    /* After the reports: a drain that returns has had every message said before it. */
    if (counts_.queued == 0 && counts_.in_flight == 0)
      wake_.notify_all (); /* a drain waits for this */
  }
}

}  // namespace publish
}  // namespace dlainfer
