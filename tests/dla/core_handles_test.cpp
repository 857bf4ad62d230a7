/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The device handles of each DLA core (dla/core_handles.h), on any machine: 16 on a core work, the
 * 17th is refused with the limit and model-instance-id as the remedy, a handle given back makes
 * room, cores count apart. cuDLA's own refusal (dla/device.cpp) names the limit, model-instance-id
 * and fewer elements per core; that path
 * through a real cudlaCreateDevice needs CUDA (the primary context): tests/dla/engine_test.cpp,
 * Faults.CreateDeviceFailsWithItsStatus, on swdla. */
#include "dla/core_handles.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dla/device.h"

namespace {

const std::string kRemedy =
    "at most 16 device handles per DLA core; elements that run the same model can share one engine (one "
    "handle per core) by setting the same model-instance-id";

TEST (CoreHandles, SixteenPerCoreThenRefused)
{
  dla::CoreHandles handles;
  std::vector<dla::CoreHandles::Reservation> held (16);
  for (int i = 0; i < 16; ++i)
    ASSERT_TRUE (handles.reserve (0, "dlainfer" + std::to_string (i), &held[size_t (i)]).ok ()) << i;
  EXPECT_EQ (handles.held (0), 16);
  dla::CoreHandles::Reservation extra;
  const dla::Status st = handles.reserve (0, "dlainfer16", &extra);
  EXPECT_EQ (st.code, dla::Code::kInit);
  EXPECT_EQ (st.message,
             "dlainfer16: DLA core 0 has no device handle left (this process holds 16): " + kRemedy);
  EXPECT_FALSE (extra);
  EXPECT_TRUE (handles.reserve (1, "dlainfer16", &extra).ok ()) << "core 1 counts apart";
  EXPECT_EQ (handles.held (1), 1);
  held[3].reset ();
  EXPECT_EQ (handles.held (0), 15);
  EXPECT_TRUE (handles.reserve (0, "dlainfer17", &held[3]).ok ()) << "a handle given back makes room";
}

TEST (CoreHandles, AReservationOutlivesItsCounter)
{
  dla::CoreHandles::Reservation r;
  {
    dla::CoreHandles handles;
    ASSERT_TRUE (handles.reserve (0, "a", &r).ok ());
  }
  r.reset (); /* gives back to counts it keeps alive */
  EXPECT_FALSE (r);
}

/* cuDLA's refusal names the limit, model-instance-id, and fewer elements per core. */
TEST (CoreHandles, CudlaRefusalNamesTheLimitAndTheRemedy)
{
  const dla::Status st = dla::create_device_error (cudlaErrorOutOfResources, 1, "");
  EXPECT_EQ (st.code, dla::Code::kInit);
  EXPECT_EQ (st.message,
             "cudlaCreateDevice failed: cudlaErrorOutOfResources (2) (DLA core 1, hybrid mode): " + kRemedy +
                 " (other cuDLA users in the process count too); or run fewer elements on this core, or put "
                 "some on the other core (dla-core)");
  const dla::Status other = dla::create_device_error (cudlaErrorUnsupportedOperation, 0, " (swdla: why)");
  EXPECT_NE (other.message.find ("(swdla: why) (DLA core 0, hybrid mode): hybrid mode needs"),
             std::string::npos)
      << other.message;
  EXPECT_EQ (other.message.find ("model-instance-id"), std::string::npos) << other.message;
}

}  // namespace
