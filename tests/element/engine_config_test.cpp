/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the element's settings make of the engine (gst/engine_config.h), dla-core above all: one core
 * is that core on every queue, -1 is each core in turn. CPU only: nothing is opened. */
#include "gst/engine_config.h"

#include <gtest/gtest.h>

namespace {

TEST (EngineConfig, DlaCoreReachesTheEngine)
{
  for (int core : {dla::kEveryCore, 0, 1, 2, 15}) {
    dlainfer::Settings s;
    s.model = "m.bin";
    s.dla_core = core;
    const dla::EngineConfig c = dlainfer::engine_config (s, "dlainfer7");
    EXPECT_EQ (c.dla_core, core);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ (dla::core_at (c.dla_core, i), core == dla::kEveryCore ? i : core)
          << "dla-core=" << core << ": the engine's queue " << i << " opens another core";
  }
}

TEST (EngineConfig, EverySettingTheEngineReads)
{
  dlainfer::Settings s;
  s.model = "/models/m.bin";
  s.dla_core = 1;
  s.task_timeout_ms = 1234;
  s.max_in_flight = 3;
  const dla::EngineConfig c = dlainfer::engine_config (s, "dlainfer7");
  EXPECT_EQ (c.model_path, "/models/m.bin");
  EXPECT_EQ (c.cuda_device, s.device ());
  EXPECT_EQ (c.task_timeout_ms, 1234u);
  EXPECT_EQ (c.num_slots, 3);
  EXPECT_FALSE (c.spare_slot);
  EXPECT_EQ (c.user, "dlainfer7");
  ASSERT_TRUE (bool (c.accept_tensors));
  /* One task in flight on full frames: the spare slot. */
  s.max_in_flight = 1;
  EXPECT_TRUE (dlainfer::engine_config (s, "x").spare_slot);
  s.inference_region = dlainfer::InferenceRegion::kRoiList;
  EXPECT_FALSE (dlainfer::engine_config (s, "x").spare_slot);
}

}  // namespace
