/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/outputs/host_pool.h"

#include <algorithm>

namespace dlainfer {

std::shared_ptr<HostPool> HostPool::Create (size_t size, size_t max_buffers, Allocator allocator)
{
  return std::shared_ptr<HostPool> (new HostPool (size, max_buffers, std::move (allocator)));
}

HostPool::HostPool (size_t size, size_t max_buffers, Allocator allocator)
    : size_ (size), max_ (max_buffers), allocator_ (std::move (allocator))
{
  free_.reserve (max_);
}

HostPool::~HostPool ()
{
  for (void *p : free_)
    allocator_.free (p);
}

bool HostPool::grow (size_t n)
{
  if (n == 0) /* the usual case of a top-up per frame: no more locking */
    return true;
  {
    std::lock_guard<std::mutex> lock (mutex_);
    n = std::min (n, max_ - allocated_);
    allocated_ += n; /* claimed: a concurrent grow stays within the bound */
  }
  std::vector<void *> made;
  made.reserve (n);
  for (size_t i = 0; i < n; ++i)
    if (void *p = allocator_.alloc (size_))
      made.push_back (p);
  std::lock_guard<std::mutex> lock (mutex_);
  allocated_ -= n - made.size ();
  free_.insert (free_.end (), made.begin (), made.end ());
  return made.size () == n;
}

bool HostPool::reserve (size_t count)
{
  size_t n;
  {
    std::lock_guard<std::mutex> lock (mutex_);
    n = count > allocated_ ? count - allocated_ : 0;
  }
  return grow (n);
}

bool HostPool::top_up (size_t free)
{
  size_t n;
  {
    std::lock_guard<std::mutex> lock (mutex_);
    n = free > free_.size () ? free - free_.size () : 0;
  }
  return grow (n);
}

void *HostPool::acquire ()
{
  std::lock_guard<std::mutex> lock (mutex_);
  if (free_.empty ())
    return nullptr;
  void *p = free_.back ();
  free_.pop_back ();
  return p;
}

void HostPool::release (void *data)
{
  std::lock_guard<std::mutex> lock (mutex_);
  free_.push_back (data); /* reserved: never allocates */
}

size_t HostPool::allocated () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return allocated_;
}

size_t HostPool::free_count () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return free_.size ();
}

namespace {

/* What a wrapped memory keeps: its buffer and the pool, alive until the memory is freed. */
struct Loan {
  std::shared_ptr<HostPool> pool;
  void *data;
};

void give_back (gpointer user_data)
{
  auto *loan = static_cast<Loan *> (user_data);
  loan->pool->release (loan->data);
  delete loan; /* may drop the last reference: the pool frees every buffer */
}

}  // namespace

GstMemory *HostPool::wrap (void *data)
{
  auto *loan = new Loan{shared_from_this (), data};
  return gst_memory_new_wrapped (GstMemoryFlags (0), data, size_, 0, size_, loan, give_back);
}

}  // namespace dlainfer
