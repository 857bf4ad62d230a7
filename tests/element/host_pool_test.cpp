/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The raw tensors' host buffers (gst/outputs/host_pool.h): acquire () never allocates, growth is
 * bounded and runs outside the pool's lock, buffers come back when downstream frees their memory,
 * the pool lives until the last one is back. Plain memory here (the element's is pinned CUDA
 * memory). */
#include "gst/outputs/host_pool.h"

#include <gst/gst.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <set>

namespace {

struct Counts {
  int allocs = 0, frees = 0;
};

dlainfer::HostPool::Allocator counted (Counts *c)
{
  dlainfer::HostPool::Allocator a;
  a.alloc = [c] (size_t n) {
    ++c->allocs;
    return std::malloc (n);
  };
  a.free = [c] (void *p) {
    ++c->frees;
    std::free (p);
  };
  return a;
}

/* acquire () runs under the engine's lock (DeviceTensors::queue): once reserved it hands out what it
 * has and never calls the allocator, not even when none is free. */
TEST (HostPool, AcquireNeverAllocates)
{
  gst_init (nullptr, nullptr);
  Counts c;
  auto pool = dlainfer::HostPool::Create (64, 5, counted (&c));
  EXPECT_EQ (pool->acquire (), nullptr) << "nothing reserved yet";
  EXPECT_EQ (c.allocs, 0);
  ASSERT_TRUE (pool->reserve (3));
  EXPECT_EQ (c.allocs, 3);
  EXPECT_EQ (pool->allocated (), 3u);
  std::set<void *> got;
  for (int i = 0; i < 3; ++i)
    got.insert (pool->acquire ());
  EXPECT_EQ (got.size (), 3u);
  EXPECT_EQ (got.count (nullptr), 0u);
  EXPECT_EQ (pool->acquire (), nullptr) << "none free, below the bound: still no allocation";
  EXPECT_EQ (c.allocs, 3);
  void *one = *got.begin ();
  pool->release (one);
  EXPECT_EQ (pool->acquire (), one) << "a released buffer is used again";
  EXPECT_EQ (c.allocs, 3);
  for (void *p : got)
    pool->release (p); /* what the memories do when downstream frees them; the pool frees what it holds */
}

/* top_up () (the src pad's task, after a tensor went downstream) grows to `free` free buffers, never
 * past the bound; reserve () counts the buffers out as well. */
TEST (HostPool, TopUpGrowsToTheBound)
{
  gst_init (nullptr, nullptr);
  Counts c;
  auto pool = dlainfer::HostPool::Create (32, 4, counted (&c));
  ASSERT_TRUE (pool->reserve (2));
  void *a = pool->acquire (), *b = pool->acquire ();
  ASSERT_TRUE (a && b);
  ASSERT_TRUE (pool->reserve (2));
  EXPECT_EQ (c.allocs, 2) << "two exist (both out): reserve (2) has nothing to do";
  ASSERT_TRUE (pool->top_up (1));
  EXPECT_EQ (c.allocs, 3);
  EXPECT_EQ (pool->free_count (), 1u);
  ASSERT_TRUE (pool->top_up (1));
  EXPECT_EQ (c.allocs, 3) << "one is free already";
  ASSERT_TRUE (pool->top_up (5));
  EXPECT_EQ (c.allocs, 4) << "the bound";
  EXPECT_EQ (pool->allocated (), 4u);
  void *d = pool->acquire (), *e = pool->acquire ();
  ASSERT_TRUE (d && e);
  EXPECT_EQ (pool->acquire (), nullptr) << "past the bound: the caller falls back";
  for (void *p : {a, b, d, e})
    pool->release (p);
}

/* The allocator runs without the pool's lock: an acquire on another thread (the engine's, while the
 * src task tops up) gets a free buffer at once instead of waiting for cudaMallocHost. */
TEST (HostPool, AcquireDoesNotWaitForAGrowingPool)
{
  gst_init (nullptr, nullptr);
  std::promise<void> entered, go;
  std::shared_future<void> go_f = go.get_future ().share ();
  Counts c;
  dlainfer::HostPool::Allocator a = counted (&c);
  auto plain = a.alloc;
  a.alloc = [&, plain] (size_t n) {
    if (c.allocs == 1) { /* the second allocation blocks until the test lets it go */
      entered.set_value ();
      go_f.wait ();
    }
    return plain (n);
  };
  auto pool = dlainfer::HostPool::Create (16, 4, a);
  ASSERT_TRUE (pool->reserve (1));
  std::future<bool> growing = std::async (std::launch::async, [&] { return pool->top_up (2); });
  entered.get_future ().wait ();
  std::future<void *> got = std::async (std::launch::async, [&] { return pool->acquire (); });
  const bool prompt = got.wait_for (std::chrono::seconds (5)) == std::future_status::ready;
  go.set_value ();
  EXPECT_TRUE (prompt) << "acquire () waited for the allocator";
  void *p = got.get ();
  EXPECT_NE (p, nullptr) << "the reserved buffer";
  EXPECT_TRUE (growing.get ());
  EXPECT_EQ (c.allocs, 2) << "one reserved, one topped up";
  pool->release (p);
}

/* An allocator that fails: reserve () says so and counts only what it got. */
TEST (HostPool, ReserveReportsAFailedAllocation)
{
  gst_init (nullptr, nullptr);
  Counts c;
  dlainfer::HostPool::Allocator a = counted (&c);
  auto plain = a.alloc;
  a.alloc = [&, plain] (size_t n) { return c.allocs >= 2 ? nullptr : plain (n); };
  auto pool = dlainfer::HostPool::Create (16, 8, a);
  EXPECT_FALSE (pool->reserve (4));
  EXPECT_EQ (pool->allocated (), 2u);
  EXPECT_EQ (pool->free_count (), 2u);
}

TEST (HostPool, WrappedMemoryIsTheBufferAndComesBackWhenFreed)
{
  gst_init (nullptr, nullptr);
  Counts c;
  auto pool = dlainfer::HostPool::Create (128, 1, counted (&c));
  ASSERT_TRUE (pool->reserve (1));
  void *p = pool->acquire ();
  static_cast<unsigned char *> (p)[5] = 42;
  GstBuffer *buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, pool->wrap (p));
  EXPECT_EQ (gst_buffer_get_size (buf), 128u);
  GstMapInfo map;
  ASSERT_TRUE (gst_buffer_map (buf, &map, GST_MAP_READ));
  EXPECT_EQ (map.data, p) << "no copy";
  EXPECT_EQ (map.data[5], 42);
  gst_buffer_unmap (buf, &map);
  EXPECT_EQ (pool->acquire (), nullptr) << "held downstream";
  gst_buffer_unref (buf);
  EXPECT_EQ (pool->free_count (), 1u);
  EXPECT_EQ (pool->acquire (), p);
  pool->release (p);
}

TEST (HostPool, OutlivesItsOwnerWhileDownstreamHoldsABuffer)
{
  gst_init (nullptr, nullptr);
  Counts c;
  auto pool = dlainfer::HostPool::Create (16, 2, counted (&c));
  ASSERT_TRUE (pool->reserve (2));
  GstBuffer *buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, pool->wrap (pool->acquire ()));
  pool->release (pool->acquire ());
  pool.reset (); /* the element stopped */
  EXPECT_EQ (c.frees, 0) << "a buffer is still downstream";
  gst_buffer_unref (buf);
  EXPECT_EQ (c.frees, 2) << "every buffer freed with the last one back";
}

}  // namespace
