/* Several producers' work served in turn (dla/fair_queue.h), on any machine: the round-robin order,
 * the bound of each lane, a producer leaving with its items given back, and with threads: eight
 * saturating producers share evenly, and producers joining and leaving 100 times never stall the
 * others. Progress is counted, never timed. */
#include "dla/fair_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using Queue = dla::FairQueue<int>;

bool put (Queue &q, dla::ProducerId p, int v)
{
  return q.try_push (p, std::move (v));
}

std::string pop_order (Queue &q, const std::map<dla::ProducerId, char> &names, int n)
{
  std::string order;
  for (int i = 0; i < n; ++i) {
    int v = 0;
    dla::ProducerId from = 0;
    if (!q.pop (&v, &from))
      break;
    order += names.at (from);
  }
  return order;
}

TEST (FairQueue, OneFromEachProducerInTurn)
{
  Queue q;
  const dla::ProducerId a = q.join (8), b = q.join (8), c = q.join (8);
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE (put (q, a, i));
  ASSERT_TRUE (put (q, b, 0) && put (q, b, 1));
  ASSERT_TRUE (put (q, c, 0));
  EXPECT_EQ (q.waiting (), 3u);
  EXPECT_EQ (q.queued (), 8u);
  EXPECT_EQ (pop_order (q, {{a, 'a'}, {b, 'b'}, {c, 'c'}}, 8), "abcabaaa");
  EXPECT_EQ (q.queued (), 0u);
}

/* A producer with one item waits for at most one item of each other producer, however many they
 * have queued. */
TEST (FairQueue, ALoneItemIsServedWithinOneRound)
{
  Queue q;
  const dla::ProducerId flood = q.join (1000), other = q.join (1000), lone = q.join (1);
  for (int i = 0; i < 1000; ++i)
    ASSERT_TRUE (put (q, flood, i) && put (q, other, i));
  EXPECT_EQ (pop_order (q, {{flood, 'f'}, {other, 'o'}, {lone, 'l'}}, 3), "fof");
  ASSERT_TRUE (put (q, lone, 7));
  EXPECT_EQ (pop_order (q, {{flood, 'f'}, {other, 'o'}, {lone, 'l'}}, 3), "ofl");
}

TEST (FairQueue, ItemsOfOneProducerKeepTheirOrder)
{
  Queue q;
  const dla::ProducerId a = q.join (4);
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE (put (q, a, i));
  for (int i = 0; i < 4; ++i) {
    int v = -1;
    ASSERT_TRUE (q.pop (&v));
    EXPECT_EQ (v, i);
  }
}

TEST (FairQueue, EachLaneIsBounded)
{
  Queue q;
  const dla::ProducerId a = q.join (2), b = q.join (0);
  EXPECT_TRUE (put (q, a, 1) && put (q, a, 2));
  EXPECT_FALSE (put (q, a, 3)) << "a's lane is full";
  EXPECT_TRUE (put (q, b, 1)) << "b's lane is its own (a bound of 0 reads as 1)";
  EXPECT_FALSE (put (q, b, 2));
  int v = 0;
  ASSERT_TRUE (q.pop (&v));
  EXPECT_TRUE (put (q, a, 3)) << "room again";
}

/* A push waiting for room ends once an item of its lane is popped. */
TEST (FairQueue, PushWaitsForRoom)
{
  Queue q;
  const dla::ProducerId a = q.join (1);
  ASSERT_TRUE (put (q, a, 1));
  std::thread producer ([&] () { EXPECT_TRUE (q.push (a, 2)); });
  int v = 0;
  ASSERT_TRUE (q.pop (&v));
  EXPECT_EQ (v, 1);
  ASSERT_TRUE (q.pop (&v)); /* waits for the producer's push */
  EXPECT_EQ (v, 2);
  producer.join ();
}

TEST (FairQueue, LeavingGivesItsItemsBack)
{
  dla::FairQueue<std::unique_ptr<int>> q;
  const dla::ProducerId a = q.join (3), b = q.join (3);
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE (q.try_push (a, std::make_unique<int> (i)));
  ASSERT_TRUE (q.try_push (b, std::make_unique<int> (10)));
  const std::vector<std::unique_ptr<int>> back = q.leave (a);
  ASSERT_EQ (back.size (), 3u);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ (*back[size_t (i)], i) << "in their order";
  auto item = std::make_unique<int> (5);
  EXPECT_FALSE (q.try_push (a, std::move (item))) << "a left";
  EXPECT_NE (item, nullptr) << "a refused item is not moved from";
  EXPECT_TRUE (q.leave (a).empty ()) << "leaving twice is harmless";
  EXPECT_EQ (q.waiting (), 1u);
  std::unique_ptr<int> v;
  dla::ProducerId from = 0;
  ASSERT_TRUE (q.pop (&v, &from));
  EXPECT_EQ (from, b);
  EXPECT_EQ (*v, 10);
  const dla::ProducerId c = q.join (1);
  EXPECT_NE (c, a) << "handles are not reused";
}

/* A producer waiting for room is released by its own leave (a stop or a flush of its element). */
TEST (FairQueue, LeavingEndsAWaitingPush)
{
  Queue q;
  const dla::ProducerId a = q.join (1);
  ASSERT_TRUE (put (q, a, 1));
  std::thread producer ([&] () { EXPECT_FALSE (q.push (a, 2)); });
  const std::vector<int> back = q.leave (a);
  producer.join ();
  EXPECT_EQ (back, std::vector<int>{1});
  EXPECT_EQ (q.producers (), 0u);
}

TEST (FairQueue, CloseEndsEveryWait)
{
  Queue q;
  const dla::ProducerId a = q.join (1);
  ASSERT_TRUE (put (q, a, 1));
  std::thread producer ([&] () { EXPECT_FALSE (q.push (a, 2)); });
  q.close ();
  producer.join ();
  int v = 0;
  EXPECT_TRUE (q.pop (&v)) << "what was queued still comes out";
  EXPECT_FALSE (q.pop (&v));
  EXPECT_FALSE (put (q, a, 3));
}

/* Producers on their own threads push numbered items until the queue closes; the dispatcher checks
 * each producer's items arrive in order and counts them. */
class Threads : public testing::Test {
 protected:
  struct Producer {
    dla::ProducerId id = 0;
    std::atomic<int> pushed{0}, served{0};
    std::thread thread;
  };

  void TearDown () override
  {
    q_.close ();
    for (auto &p : producers_)
      p->thread.join ();
  }

  Producer &start_producer (size_t bound)
  {
    producers_.push_back (std::make_unique<Producer> ());
    Producer &p = *producers_.back ();
    p.id = q_.join (bound);
    by_id_[p.id] = &p;
    p.thread = std::thread ([this, &p] () {
      while (q_.push (p.id, p.pushed.load () + 0))
        ++p.pushed;
    });
    return p;
  }

  /* One item to the dispatcher; false once closed and empty. */
  bool serve ()
  {
    int v = -1;
    dla::ProducerId from = 0;
    if (!q_.pop (&v, &from))
      return false;
    EXPECT_EQ (v, next_[from]++) << "producer " << from << "'s items in order";
    auto it = by_id_.find (from);
    ++(it == by_id_.end () ? others_served_ : it->second->served);
    return true;
  }

  /* Until each producer with a thread was served twice more: stalls never end (the test's timeout). */
  void others_served_twice ()
  {
    std::vector<int> seen;
    for (const auto &p : producers_)
      seen.push_back (p->served.load ());
    for (size_t k = 0; k < producers_.size (); ++k)
      while (producers_[k]->served.load () < seen[k] + 2)
        std::this_thread::yield ();
  }

  Queue q_;
  std::vector<std::unique_ptr<Producer>> producers_;
  std::map<dla::ProducerId, Producer *> by_id_; /* filled before the dispatcher starts */
  std::map<dla::ProducerId, int> next_;         /* the dispatcher's */
  std::atomic<int> others_served_{0};           /* items of producers without a thread */
};

/* Eight producers that always have work waiting (the dispatcher pops only while all eight do):
 * each gets its eighth of 100 000 items, within 10 %. */
TEST_F (Threads, EightSaturatingProducersShareEvenly)
{
  constexpr int kProducers = 8, kItems = 100000;
  for (int i = 0; i < kProducers; ++i)
    start_producer (64);
  for (int i = 0; i < kItems; ++i) {
    while (q_.waiting () < size_t (kProducers))
      std::this_thread::yield ();
    ASSERT_TRUE (serve ());
  }
  for (const auto &p : producers_)
    EXPECT_NEAR (p->served.load (), kItems / kProducers, kItems / kProducers / 10) << "producer " << p->id;
}

/* Four producers run while a fifth joins, pushes up to 20 items and leaves, 100 times: every other
 * round it first waits until each of the four was served twice more (they never stall while it is
 * there), else it leaves at once with items queued. Every item is served or given back, once. */
TEST_F (Threads, JoinAndLeave100TimesWhileOthersRun)
{
  for (int i = 0; i < 4; ++i)
    start_producer (4);
  std::thread dispatcher ([this] () {
    while (serve ())
      ;
  });
  int pushed = 0, back = 0;
  for (int round = 0; round < 100; ++round) {
    const dla::ProducerId p = q_.join (32);
    for (int i = 0; i < round % 20 + 1; ++i, ++pushed)
      ASSERT_TRUE (q_.push (p, std::move (i)));
    if (round % 2) /* the others go on while it is there; else it leaves at once, items queued */
      others_served_twice ();
    back += int (q_.leave (p).size ());
  }
  q_.close ();
  dispatcher.join ();
  for (const auto &s : producers_) {
    s->thread.join ();
    EXPECT_EQ (s->pushed.load (), s->served.load () + int (q_.leave (s->id).size ())) << "producer " << s->id;
  }
  producers_.clear ();
  EXPECT_EQ (pushed, others_served_.load () + back) << "every item of the fifth served or given back";
}

}  // namespace
