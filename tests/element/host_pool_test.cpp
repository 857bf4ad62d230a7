/* The raw tensors' host buffers (gst/outputs/host_pool.h): bounded growth, buffers back when
 * downstream frees their memory, the pool alive until the last one is back. Plain memory here (the
 * element's is pinned CUDA memory). */
#include "gst/outputs/host_pool.h"

#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstdlib>
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

TEST (HostPool, GrowsToItsBoundThenSaysNo)
{
  gst_init (nullptr, nullptr);
  Counts c;
  auto pool = dlainfer::HostPool::Create (64, 3, counted (&c));
  std::set<void *> got;
  for (int i = 0; i < 3; ++i)
    got.insert (pool->acquire ());
  EXPECT_EQ (got.size (), 3u);
  EXPECT_EQ (got.count (nullptr), 0u);
  EXPECT_EQ (pool->acquire (), nullptr) << "past the bound: the caller falls back";
  EXPECT_EQ (c.allocs, 3);
  void *one = *got.begin ();
  pool->release (one);
  EXPECT_EQ (pool->acquire (), one) << "a released buffer is used again, nothing allocated";
  EXPECT_EQ (c.allocs, 3);
  for (void *p : got)
    pool->release (p); /* what the memories do when downstream frees them; the pool frees what it holds */
}

TEST (HostPool, WrappedMemoryIsTheBufferAndComesBackWhenFreed)
{
  gst_init (nullptr, nullptr);
  Counts c;
  auto pool = dlainfer::HostPool::Create (128, 1, counted (&c));
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
  GstBuffer *buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, pool->wrap (pool->acquire ()));
  pool->release (pool->acquire ());
  pool.reset (); /* the element stopped */
  EXPECT_EQ (c.frees, 0) << "a buffer is still downstream";
  gst_buffer_unref (buf);
  EXPECT_EQ (c.frees, 2) << "every buffer freed with the last one back";
}

}  // namespace
