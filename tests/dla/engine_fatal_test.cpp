/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sync seam and a DLA fault: swdla emulates cudaErrorExternalDevice (911) after an injected
 * fault (SWDLA_EXTERNAL_DEVICE_ERROR, tests/swdla/README.md contract 3). wait() must report it as
 * fatal, naming cudlaGetLastError's status and "restart the process", and every engine must refuse
 * further work. The fault lasts for the process, so this program holds only this test. */
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "dla/fatal.h"
#include "engine_test_support.h"

namespace {

TEST (EngineFatal, ExternalDeviceErrorStopsTheEngine)
{
  if (!dla_test::have_model ("colours"))
    GTEST_FAIL () << "swdla test model " << dla_test::model ("colours") << " is missing (a build product)";
  std::unique_ptr<dla::Engine> e;
  dla::Status st = dla_test::open ("colours", &e, 2);
  ASSERT_TRUE (st.ok ()) << st.message;
  const auto bytes = dla_test::make_input (
      e->input ().view, 3, [] (int64_t, int64_t, int64_t, int64_t) { return 1.f; },
      dla_test::kInt8InputScale);
  ASSERT_TRUE (dla_test::run_once (*e, 0, bytes).ok ()) << "healthy before the fault";
  dla::Task held; /* a task its owner still holds when the fault comes */
  ASSERT_TRUE (e->acquire (&held).ok ());
  ASSERT_EQ (held.slot (), 1);

  setenv ("SWDLA_EXTERNAL_DEVICE_ERROR", "1:0x40000007", 1);
  st = dla_test::run_once (*e, 0, bytes);
  unsetenv ("SWDLA_EXTERNAL_DEVICE_ERROR");
  EXPECT_EQ (st.code, dla::Code::kFatal);
  for (const char *needle :
       {"cudaErrorExternalDevice (911)",
        "cudlaGetLastError reports cudlaErrorDlaErrDataMismatch (0x40000007)", "restart the process"})
    EXPECT_NE (st.message.find (needle), std::string::npos) << needle << " missing from: " << st.message;
  EXPECT_TRUE (e->failed ());
  EXPECT_TRUE (dla::process_poisoned ());

  /* Refused from now on, with the first fault's description. */
  dla::Task task;
  bool done = false;
  for (const dla::Status &again :
       {e->acquire (&task), held.submit (nullptr), held.wait (), held.poll (&done)}) {
    EXPECT_EQ (again.code, dla::Code::kFatal);
    EXPECT_NE (again.message.find ("cudlaErrorDlaErrDataMismatch"), std::string::npos) << again.message;
  }
  held.give_back ();
  e.reset (); /* teardown still completes (errors ignored) */
}

}  // namespace
