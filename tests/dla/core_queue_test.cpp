/* Slot numbers across an engine's cores (dla/core_queue.h), on any machine: every number of every
 * core is one place and back, numbers outside the engine are nowhere. */
#include "dla/core_queue.h"

#include <gtest/gtest.h>

#include <set>

namespace {

TEST (SlotPlace, EveryNumberIsOnePlaceAndBack)
{
  for (int cores = 1; cores <= 3; ++cores)
    for (int per_core = 1; per_core <= 5; ++per_core) {
      std::set<int> seen;
      for (int c = 0; c < cores; ++c)
        for (int l = 0; l < per_core; ++l) {
          const int slot = dla::engine_slot (c, l, per_core);
          EXPECT_TRUE (seen.insert (slot).second) << "slot " << slot << " given twice";
          const dla::SlotPlace at = dla::place_of (slot, cores, per_core);
          EXPECT_EQ (at.core, c) << slot;
          EXPECT_EQ (at.local, l) << slot;
        }
      EXPECT_EQ (int (seen.size ()), cores * per_core);
      EXPECT_EQ (*seen.begin (), 0) << "numbers start at 0";
      EXPECT_EQ (*seen.rbegin (), cores * per_core - 1) << "and have no gaps";
    }
}

TEST (SlotPlace, OneCoreKeepsTheSlotNumbers)
{
  for (int l = 0; l < 4; ++l) {
    EXPECT_EQ (dla::engine_slot (0, l, 4), l);
    EXPECT_EQ (dla::place_of (l, 1, 4).local, l);
  }
}

TEST (SlotPlace, OutsideTheEngineIsNowhere)
{
  for (int slot : {-1, 6, 7, 1000}) {
    const dla::SlotPlace at = dla::place_of (slot, 2, 3);
    EXPECT_EQ (at.core, -1) << slot;
    EXPECT_EQ (at.local, -1) << slot;
  }
  EXPECT_EQ (dla::place_of (0, 2, 0).core, -1) << "no slots per core";
  EXPECT_EQ (dla::place_of (0, 0, 2).core, -1) << "no cores";
}

}  // namespace
