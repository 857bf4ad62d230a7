/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The NVMM loader's refusals name the file, what it lacks and the way out; the stand-in is told
 * apart from NVIDIA's library. */
#include "nvmm/library.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace {

class NvmmLibrary : public ::testing::Test {
 protected:
  void TearDown () override
  {
    unsetenv (nvmm::kLibraryEnv);
    nvmm::Library::ResetForTests ();
  }
  host::Status load_from (const char *path, std::shared_ptr<const nvmm::Library> *lib)
  {
    setenv (nvmm::kLibraryEnv, path, 1);
    nvmm::Library::ResetForTests ();
    return nvmm::Library::Load (lib);
  }
};

void expect_way_out (const std::string &m)
{
  EXPECT_NE (m.find ("nvvidconv"), std::string::npos) << m;
  EXPECT_NE (m.find ("cudaupload"), std::string::npos) << m;
}

TEST_F (NvmmLibrary, MissingFileNamesItAndTheWayOut)
{
  std::shared_ptr<const nvmm::Library> lib;
  const host::Status st = load_from ("/nonexistent/libnvbufsurface.so", &lib);
  ASSERT_FALSE (st.ok ());
  EXPECT_EQ (st.code, host::Code::kNotFound);
  EXPECT_NE (st.message.find ("/nonexistent/libnvbufsurface.so"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find (nvmm::kLibraryEnv), std::string::npos) << st.message;
  expect_way_out (st.message);
  EXPECT_EQ (lib, nullptr);
}

TEST_F (NvmmLibrary, DefaultNameAbsentOffJetson)
{
  std::shared_ptr<const nvmm::Library> lib;
  nvmm::Library::ResetForTests ();
  const host::Status st = nvmm::Library::Load (&lib);
  if (st.ok ())
    GTEST_SKIP () << "a libnvbufsurface.so is installed here: " << lib->path ();
  EXPECT_NE (st.message.find ("libnvbufsurface.so (JetPack's multimedia API)"), std::string::npos)
      << st.message;
  expect_way_out (st.message);
}

TEST_F (NvmmLibrary, LackingSymbolsAreListed)
{
  std::shared_ptr<const nvmm::Library> lib;
  const host::Status st = load_from (std::getenv ("DLAINFER_FAKE_NVBUFSURFACE_PARTIAL"), &lib);
  ASSERT_FALSE (st.ok ());
  EXPECT_EQ (st.code, host::Code::kInit);
  EXPECT_NE (st.message.find ("lacks NvBufSurfaceUnMapEglImage"), std::string::npos) << st.message;
  EXPECT_EQ (st.message.find ("NvBufSurfaceMapEglImage,"), std::string::npos) << st.message;
  expect_way_out (st.message);
}

TEST_F (NvmmLibrary, StandInGivesTheInteropItself)
{
  std::shared_ptr<const nvmm::Library> lib;
  const host::Status st = load_from (std::getenv ("DLAINFER_FAKE_NVBUFSURFACE_STAND_IN"), &lib);
  ASSERT_TRUE (st.ok ()) << st.message;
  EXPECT_EQ (lib->stand_in (), "fake-stand-in");
  EXPECT_NE (lib->api ().MapEglImage, nullptr);
  EXPECT_NE (lib->api ().UnMapEglImage, nullptr);
  ASSERT_NE (lib->api ().RegisterImage, nullptr);
  EXPECT_EQ (lib->api ().RegisterImage (nullptr, nullptr, 0), 1); /* the fake's, not the driver's */
  EXPECT_NE (lib->api ().GetMappedEglFrame, nullptr);
  EXPECT_NE (lib->api ().UnregisterResource, nullptr);
  /* Loaded once per name. */
  std::shared_ptr<const nvmm::Library> again;
  ASSERT_TRUE (nvmm::Library::Load (&again).ok ());
  EXPECT_EQ (again.get (), lib.get ());
}

}  // namespace
