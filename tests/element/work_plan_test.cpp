/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A frame's objects as DLA tasks (gst/objects/work_plan.h): batch 1, 4 and 16, partial last
 * batches, waves, carried objects, zero objects, 10 000 objects. */
#include "gst/objects/work_plan.h"

#include <gtest/gtest.h>

#include "gst/objects/selection.h"

namespace {

using dlainfer::objects::kMaxObjectsPerFrame;
using dlainfer::objects::plan_work;
using dlainfer::objects::PlannedTask;
using dlainfer::objects::WorkPlan;

void expect_task (const PlannedTask &t, uint32_t first, uint32_t count, uint32_t wave)
{
  EXPECT_EQ (t.first, first);
  EXPECT_EQ (t.count, count);
  EXPECT_EQ (t.wave, wave);
}

TEST (WorkPlan, BatchOneRunsATaskPerObjectInWaves)
{
  WorkPlan p = plan_work (std::vector<bool> (5, true), 1, 2);
  ASSERT_EQ (p.tasks.size (), 5u);
  for (uint32_t i = 0; i < 5; ++i)
    expect_task (p.tasks[i], i, 1, i / 2);
  EXPECT_EQ (p.waves, 3u);
  EXPECT_EQ (p.objects, (std::vector<uint32_t>{0, 1, 2, 3, 4}));
}

TEST (WorkPlan, BatchFourWithAPartialLastBatch)
{
  WorkPlan p = plan_work (std::vector<bool> (10, true), 4, 8);
  ASSERT_EQ (p.tasks.size (), 3u);
  expect_task (p.tasks[0], 0, 4, 0);
  expect_task (p.tasks[1], 4, 4, 0);
  expect_task (p.tasks[2], 8, 2, 0);
  EXPECT_EQ (p.waves, 1u);
}

TEST (WorkPlan, BatchSixteenFullAndOneOver)
{
  WorkPlan full = plan_work (std::vector<bool> (16, true), 16, 2);
  ASSERT_EQ (full.tasks.size (), 1u);
  expect_task (full.tasks[0], 0, 16, 0);
  WorkPlan over = plan_work (std::vector<bool> (17, true), 16, 1);
  ASSERT_EQ (over.tasks.size (), 2u);
  expect_task (over.tasks[0], 0, 16, 0);
  expect_task (over.tasks[1], 16, 1, 1);
  EXPECT_EQ (over.waves, 2u);
}

TEST (WorkPlan, CarriedObjectsGetNoTask)
{
  WorkPlan p = plan_work ({true, false, true, true, false}, 2, 4);
  EXPECT_EQ (p.objects, (std::vector<uint32_t>{0, 2, 3}));
  ASSERT_EQ (p.tasks.size (), 2u);
  expect_task (p.tasks[0], 0, 2, 0);
  expect_task (p.tasks[1], 2, 1, 0);
  EXPECT_EQ (p.carried, 2u);
  EXPECT_EQ (p.over_cap, 0u);
}

TEST (WorkPlan, ZeroObjectsNoTask)
{
  WorkPlan none = plan_work ({}, 16, 2);
  EXPECT_TRUE (none.tasks.empty ());
  EXPECT_TRUE (none.objects.empty ());
  EXPECT_EQ (none.waves, 0u);
  WorkPlan all_carried = plan_work (std::vector<bool> (3, false), 4, 2);
  EXPECT_TRUE (all_carried.tasks.empty ());
  EXPECT_EQ (all_carried.waves, 0u);
  EXPECT_EQ (all_carried.carried, 3u);
}

TEST (WorkPlan, ZeroBatchOrSlotsCountAsOne)
{
  WorkPlan p = plan_work (std::vector<bool> (3, true), 0, 0);
  ASSERT_EQ (p.tasks.size (), 3u);
  expect_task (p.tasks[2], 2, 1, 2);
  EXPECT_EQ (p.waves, 3u);
}

TEST (WorkPlan, TenThousandObjectsAreCappedAndCounted)
{
  WorkPlan p = plan_work (std::vector<bool> (10000, true), 16, 2);
  EXPECT_EQ (p.objects.size (), size_t (kMaxObjectsPerFrame));
  EXPECT_EQ (p.over_cap, 10000u - kMaxObjectsPerFrame);
  EXPECT_EQ (p.objects.capacity (), size_t (kMaxObjectsPerFrame)); /* allocated once, bounded */
  ASSERT_EQ (p.tasks.size (), kMaxObjectsPerFrame / 16);
  EXPECT_EQ (p.tasks.capacity (), p.tasks.size ());
  expect_task (p.tasks.back (), kMaxObjectsPerFrame - 16, 16, kMaxObjectsPerFrame / 16 / 2 - 1);
  EXPECT_EQ (p.waves, kMaxObjectsPerFrame / 16 / 2);
  EXPECT_EQ (p.objects.back (), kMaxObjectsPerFrame - 1);
}

}  // namespace
