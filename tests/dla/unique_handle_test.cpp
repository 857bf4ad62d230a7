/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one move-only handle (dla/unique_handle.h): released exactly once, on reset, destruction or
 * move-assignment over it; never after a move or a release (); a class made of several handles
 * releases them in the reverse order of their declaration (a registration before its memory). */
#include "dla/unique_handle.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace {

std::vector<std::string> released;

/* Releases by writing "<tag>:<value>" into `released`. */
struct Record {
  const char *tag = "h";
  void operator() (int value) const noexcept
  {
    released.push_back (std::string (tag) + ":" + std::to_string (value));
  }
};
using Handle = dla::UniqueHandle<int, Record>;

class UniqueHandle : public testing::Test {
 protected:
  void SetUp () override { released.clear (); }
};

TEST_F (UniqueHandle, ReleasedOnceAtDestruction)
{
  {
    Handle h (7);
    EXPECT_TRUE (bool (h));
    EXPECT_EQ (h.get (), 7);
  }
  EXPECT_EQ (released, (std::vector<std::string>{"h:7"}));
  {
    Handle empty;
    EXPECT_FALSE (bool (empty));
  }
  EXPECT_EQ (released.size (), 1u) << "an empty handle releases nothing";
}

TEST_F (UniqueHandle, MoveTransfersWithoutReleasing)
{
  Handle a (1, Record{"a"});
  Handle b (std::move (a));
  EXPECT_FALSE (bool (a));
  EXPECT_EQ (b.get (), 1);
  EXPECT_STREQ (b.releaser ().tag, "a") << "the release moves with the value";
  EXPECT_TRUE (released.empty ());
  Handle c (2, Record{"c"});
  c = std::move (b); /* c's own value goes first */
  EXPECT_EQ (released, (std::vector<std::string>{"c:2"}));
  EXPECT_EQ (c.get (), 1);
  Handle &same = c;
  c = std::move (same); /* self-move keeps it */
  EXPECT_EQ (c.get (), 1);
  c.reset ();
  EXPECT_EQ (released, (std::vector<std::string>{"c:2", "a:1"}));
}

TEST_F (UniqueHandle, ResetAndReleaseOnce)
{
  Handle h (3);
  h.reset ();
  h.reset ();
  EXPECT_EQ (released, (std::vector<std::string>{"h:3"}));
  Handle g (4);
  EXPECT_EQ (g.release (), 4) << "given up: the caller owns it";
  EXPECT_FALSE (bool (g));
  EXPECT_EQ (released.size (), 1u);
}

/* As dla::RegisteredTensor: memory first, then its registration; torn down the other way. */
struct Composite {
  Handle memory{10, Record{"memory"}};
  Handle registration{11, Record{"registration"}};
};

TEST_F (UniqueHandle, MembersReleaseInReverseOrder)
{
  {
    Composite c;
    Composite moved (std::move (c)); /* rule of zero: the composite moves, nothing is released */
    EXPECT_TRUE (released.empty ());
  }
  EXPECT_EQ (released, (std::vector<std::string>{"registration:11", "memory:10"}));
}

}  // namespace
