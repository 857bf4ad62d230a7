/* gst-dlainfer: the work of several producers (the elements sharing one engine, issue #23) served
 * to one dispatcher in turn, so that no stream starves.
 *
 * Each producer joins and gets a handle; it pushes into its own bounded lane; the dispatcher pops
 * round robin over the producers with work waiting: one item from each in turn, whatever their
 * rates (a producer flooding its lane gets one turn in a round, as does one with a single item).
 * Within a lane, items leave in the order they came. A producer leaving takes its queued items
 * back (leave () returns them), so the caller releases them where it knows how (a task slot, a
 * frame); an item already popped is the dispatcher's. Handles are never reused, so a stale one is
 * refused, never mistaken for a newer producer.
 *
 * Thread-safe: producers push from their threads, the dispatcher pops from its own, producers join
 * and leave while the others run. Not wired into the engine yet (docs/architecture.md 8). */
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace dla {

using ProducerId = uint64_t;

/* The turn order: the producers with work waiting, each once, the next to serve first. */
class RoundRobin {
 public:
  /* `p` got work while it had none: it takes the last place. */
  void waiting (ProducerId p) { order_.push_back (p); }
  bool empty () const { return order_.empty (); }
  size_t size () const { return order_.size (); }
  /* The producer whose turn it is, out of the order; it goes back with waiting () if it has more. */
  ProducerId next ();
  /* `p` left: out of the order. */
  void remove (ProducerId p);

 private:
  std::deque<ProducerId> order_;
};

template <typename T>
class FairQueue {
 public:
  /* A new producer whose lane holds at most `bound` items (at least 1). */
  ProducerId join (size_t bound);
  /* The producer's queued items, given back in order; a push of it that waits for room returns. */
  std::vector<T> leave (ProducerId p);

  /* Queues `item` (moved from only when queued), waiting while the lane is full. False, item
   * untouched, when `p` left (or never joined) or the queue is closed. */
  bool push (ProducerId p, T &&item);
  /* As push, but false at once when the lane is full. */
  bool try_push (ProducerId p, T &&item);
  /* The next item in turn and whose it is; waits for one. False once closed and empty. */
  bool pop (T *item, ProducerId *from = nullptr);
  /* Ends every wait: pushes are refused, pop returns what is left, then false. */
  void close ();

  size_t queued (ProducerId p) const; /* items in p's lane */
  size_t queued () const;             /* items in every lane: the sharers' work before a new task */
  size_t waiting () const;            /* producers with work waiting */
  size_t producers () const;

 private:
  /* Held by shared pointer: a push waiting for room keeps its lane (and the condition variable it
   * waits on) alive through the producer's leave. */
  struct Lane {
    std::deque<T> items;
    size_t bound = 1;
    bool gone = false; /* the producer left */
    std::condition_variable room;
  };
  std::shared_ptr<Lane> lane (ProducerId p) const; /* mutex_ held; null when p is not here */
  bool push_locked (Lane *lane, ProducerId p, T &&item);

  mutable std::mutex mutex_;
  std::condition_variable work_;
  std::map<ProducerId, std::shared_ptr<Lane>> lanes_;
  RoundRobin turns_;
  ProducerId next_id_ = 1;
  size_t total_ = 0;
  bool closed_ = false;
};

template <typename T>
ProducerId FairQueue<T>::join (size_t bound)
{
  std::lock_guard<std::mutex> lock (mutex_);
  const ProducerId p = next_id_++;
  lanes_[p] = std::make_shared<Lane> ();
  lanes_[p]->bound = bound ? bound : 1;
  return p;
}

template <typename T>
std::shared_ptr<typename FairQueue<T>::Lane> FairQueue<T>::lane (ProducerId p) const
{
  auto it = lanes_.find (p);
  return it == lanes_.end () ? nullptr : it->second;
}

template <typename T>
std::vector<T> FairQueue<T>::leave (ProducerId p)
{
  std::vector<T> back;
  std::lock_guard<std::mutex> lock (mutex_);
  const std::shared_ptr<Lane> l = lane (p);
  if (!l)
    return back;
  for (T &item : l->items)
    back.push_back (std::move (item));
  total_ -= l->items.size ();
  l->items.clear ();
  l->gone = true;
  l->room.notify_all (); /* its own push, waiting for room, returns */
  lanes_.erase (p);
  turns_.remove (p);
  return back;
}

template <typename T>
bool FairQueue<T>::push_locked (Lane *l, ProducerId p, T &&item)
{
  if (l->items.empty ())
    turns_.waiting (p);
  l->items.push_back (std::move (item));
  ++total_;
  work_.notify_one ();
  return true;
}

template <typename T>
bool FairQueue<T>::push (ProducerId p, T &&item)
{
  std::unique_lock<std::mutex> lock (mutex_);
  const std::shared_ptr<Lane> l = lane (p);
  if (!l)
    return false;
  l->room.wait (lock, [&] () { return closed_ || l->gone || l->items.size () < l->bound; });
  if (closed_ || l->gone)
    return false;
  return push_locked (l.get (), p, std::move (item));
}

template <typename T>
bool FairQueue<T>::try_push (ProducerId p, T &&item)
{
  std::lock_guard<std::mutex> lock (mutex_);
  const std::shared_ptr<Lane> l = lane (p);
  if (closed_ || !l || l->items.size () >= l->bound)
    return false;
  return push_locked (l.get (), p, std::move (item));
}

template <typename T>
bool FairQueue<T>::pop (T *item, ProducerId *from)
{
  std::unique_lock<std::mutex> lock (mutex_);
  work_.wait (lock, [this] () { return !turns_.empty () || closed_; });
  if (turns_.empty ())
    return false;
  const ProducerId p = turns_.next ();
  Lane &l = *lanes_.at (p);
  *item = std::move (l.items.front ());
  l.items.pop_front ();
  --total_;
  if (!l.items.empty ())
    turns_.waiting (p);
  if (from)
    *from = p;
  l.room.notify_one (); /* only this lane's producer waits for its room */
  return true;
}

template <typename T>
void FairQueue<T>::close ()
{
  std::lock_guard<std::mutex> lock (mutex_);
  closed_ = true;
  for (auto &l : lanes_)
    l.second->room.notify_all ();
  work_.notify_all ();
}

template <typename T>
size_t FairQueue<T>::queued (ProducerId p) const
{
  std::lock_guard<std::mutex> lock (mutex_);
  const std::shared_ptr<Lane> l = lane (p);
  return l ? l->items.size () : 0;
}

template <typename T>
size_t FairQueue<T>::queued () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return total_;
}

template <typename T>
size_t FairQueue<T>::waiting () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return turns_.size ();
}

template <typename T>
size_t FairQueue<T>::producers () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return lanes_.size ();
}

}  // namespace dla
