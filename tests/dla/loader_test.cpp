/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The loader's failure cases and its identification of swdla, in one program: each test points
 * DLAINFER_CUDLA_LIBRARY at another file (fakes built in tests/dla) and drops the cached library. */
#include "dla/loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

std::string fake (const char *which)
{
  const char *p = std::getenv (which);
  return p ? p : "";
}

class Loader : public testing::Test {
 protected:
  void SetUp () override
  {
    dla::Library::ResetForTests ();
    dla::set_log_handler (
        [this] (dla::LogLevel level, const std::string &line) { logs_.emplace_back (level, line); });
  }
  void TearDown () override
  {
    dla::set_log_handler (nullptr);
    unsetenv (dla::kLibraryEnv);
    dla::Library::ResetForTests ();
  }
  dla::Status load (const std::string &path, std::shared_ptr<const dla::Library> *lib)
  {
    if (path.empty ())
      unsetenv (dla::kLibraryEnv);
    else
      setenv (dla::kLibraryEnv, path.c_str (), 1);
    return dla::Library::Load (lib);
  }
  int warnings () const
  {
    int n = 0;
    for (const auto &l : logs_)
      n += l.first == dla::LogLevel::kWarning;
    return n;
  }
  std::vector<std::pair<dla::LogLevel, std::string>> logs_;
};

TEST_F (Loader, NonexistentFileNamedByEnvironment)
{
  std::shared_ptr<const dla::Library> lib;
  const dla::Status st = load ("/nonexistent/dir/libcudla.so.1", &lib);
  EXPECT_EQ (st.code, dla::Code::kNotFound);
  EXPECT_NE (st.message.find ("/nonexistent/dir/libcudla.so.1"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("DLAINFER_CUDLA_LIBRARY"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("No such file"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("JetPack"), std::string::npos) << st.message;
  EXPECT_EQ (lib, nullptr);
}

/* On this x86 machine there is no libcudla.so.1 on the search path. */
TEST_F (Loader, DefaultLibraryNotFoundSaysWhereCudlaComesFrom)
{
  std::shared_ptr<const dla::Library> lib;
  const dla::Status st = load ("", &lib);
  if (st.ok ())
    GTEST_SKIP () << "a libcudla.so.1 is installed here (" << lib->path () << ")";
  EXPECT_EQ (st.code, dla::Code::kNotFound);
  for (const char *needle : {"libcudla.so.1", "JetPack", "Jetson AGX Orin", "Jetson BSP",
                             "DLAINFER_CUDLA_LIBRARY", "cannot open shared object file"})
    EXPECT_NE (st.message.find (needle), std::string::npos) << needle << " missing from: " << st.message;
}

TEST_F (Loader, SearchedNameNotFound)
{
  std::shared_ptr<const dla::Library> lib;
  const dla::Status st = load ("libcudla-does-not-exist.so.7", &lib);
  EXPECT_EQ (st.code, dla::Code::kNotFound);
  EXPECT_NE (st.message.find ("libcudla-does-not-exist.so.7"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("dlopen: "), std::string::npos) << st.message;
}

TEST_F (Loader, FileThatIsNotALibraryGivesDlerrorText)
{
  char tmpl[] = "/tmp/dlainfer-notalib-XXXXXX";
  const int fd = mkstemp (tmpl);
  ASSERT_GE (fd, 0);
  const std::string text (4096, 'x'); /* long enough for an ELF header check */
  ASSERT_EQ (write (fd, text.data (), text.size ()), ssize_t (text.size ()));
  close (fd);
  std::shared_ptr<const dla::Library> lib;
  const dla::Status st = load (tmpl, &lib);
  unlink (tmpl);
  EXPECT_EQ (st.code, dla::Code::kInit);
  EXPECT_NE (st.message.find (tmpl), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("dlopen: "), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("ELF"), std::string::npos) << "dlerror text expected: " << st.message;
}

TEST_F (Loader, LibraryLackingSymbolsNamesEachMissingOne)
{
  const std::string path = fake ("DLAINFER_FAKE_CUDLA_PARTIAL");
  ASSERT_FALSE (path.empty ());
  std::shared_ptr<const dla::Library> lib;
  const dla::Status st = load (path, &lib);
  EXPECT_EQ (st.code, dla::Code::kInit);
  EXPECT_NE (st.message.find ("lacks 10 required symbol(s)"), std::string::npos) << st.message;
  for (int i = 2; i < 12; ++i)
    EXPECT_NE (st.message.find (dla::kRequiredSymbols[i]), std::string::npos) << dla::kRequiredSymbols[i];
  /* The two it has are not listed as missing. */
  EXPECT_EQ (st.message.find ("cudlaGetVersion"), std::string::npos) << st.message;
  EXPECT_EQ (st.message.find ("cudlaDeviceGetCount"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("undefined symbol"), std::string::npos)
      << "dlsym text expected: " << st.message;
  EXPECT_EQ (lib, nullptr);
}

TEST_F (Loader, CompleteLibraryIsTheDlaBackend)
{
  const std::string path = fake ("DLAINFER_FAKE_CUDLA_FULL");
  std::shared_ptr<const dla::Library> lib;
  const dla::Status st = load (path, &lib);
  ASSERT_TRUE (st.ok ()) << st.message;
  EXPECT_EQ (lib->backend (), "dla");
  EXPECT_FALSE (lib->is_software ());
  EXPECT_TRUE (lib->has_task_timeout ());
  EXPECT_EQ (lib->version (), 1002001u);
  EXPECT_EQ (lib->version_string (), "1.2.1");
  EXPECT_EQ (lib->path (), path);
  EXPECT_EQ (lib->emulated_external_error (), 0);
  EXPECT_EQ (lib->refusal_detail (), "");
  EXPECT_EQ (warnings (), 0);
  uint64_t count = 0;
  EXPECT_EQ (lib->api ().DeviceGetCount (&count), cudlaSuccess);
  EXPECT_EQ (count, 2u);
  EXPECT_EQ (lib->api ().CreateDevice (0, nullptr, CUDLA_CUDA_DLA), cudlaErrorUnsupportedOperation);
}

TEST_F (Loader, SwdlaIdentifiesItselfAndIsLoggedAsSoftware)
{
  std::shared_ptr<const dla::Library> lib;
  const dla::Status st = load (fake ("DLAINFER_FAKE_CUDLA_SWDLA"), &lib);
  ASSERT_TRUE (st.ok ()) << st.message;
  EXPECT_EQ (lib->backend (), "swdla");
  EXPECT_TRUE (lib->is_software ());
  ASSERT_EQ (warnings (), 1);
  for (const auto &l : logs_)
    if (l.first == dla::LogLevel::kWarning) {
      EXPECT_NE (l.second.find ("swdla"), std::string::npos) << l.second;
      EXPECT_NE (l.second.find ("not from the DLA"), std::string::npos) << l.second;
    }
}

TEST_F (Loader, SameFileIsSharedAndAnotherFileReloads)
{
  std::shared_ptr<const dla::Library> a, b, c;
  ASSERT_TRUE (load (fake ("DLAINFER_FAKE_CUDLA_SWDLA"), &a).ok ());
  ASSERT_TRUE (load (fake ("DLAINFER_FAKE_CUDLA_SWDLA"), &b).ok ());
  EXPECT_EQ (a, b);
  EXPECT_EQ (warnings (), 1) << "the warning comes once per load, not per user";
  ASSERT_TRUE (load (fake ("DLAINFER_FAKE_CUDLA_FULL"), &c).ok ());
  EXPECT_NE (a, c);
  EXPECT_EQ (c->backend (), "dla");
  EXPECT_EQ (a->backend (), "swdla") << "a holder keeps its library";
}

TEST_F (Loader, FailureIsNotCached)
{
  std::shared_ptr<const dla::Library> lib;
  EXPECT_FALSE (load ("/nonexistent/libcudla.so.1", &lib).ok ());
  EXPECT_TRUE (load (fake ("DLAINFER_FAKE_CUDLA_FULL"), &lib).ok ());
}

TEST_F (Loader, ConcurrentLoadsShareOneInstance)
{
  setenv (dla::kLibraryEnv, fake ("DLAINFER_FAKE_CUDLA_FULL").c_str (), 1);
  std::vector<std::shared_ptr<const dla::Library>> libs (8);
  std::vector<std::thread> threads;
  for (auto &l : libs)
    threads.emplace_back ([&l] { EXPECT_TRUE (dla::Library::Load (&l).ok ()); });
  for (auto &t : threads)
    t.join ();
  for (const auto &l : libs)
    EXPECT_EQ (l, libs[0]);
}

TEST (LoaderDefaultLog, WarningGoesToStderr)
{
  dla::Library::ResetForTests ();
  setenv (dla::kLibraryEnv, fake ("DLAINFER_FAKE_CUDLA_SWDLA").c_str (), 1);
  testing::internal::CaptureStderr ();
  std::shared_ptr<const dla::Library> lib;
  const dla::Status st = dla::Library::Load (&lib);
  const std::string err = testing::internal::GetCapturedStderr ();
  unsetenv (dla::kLibraryEnv);
  dla::Library::ResetForTests ();
  ASSERT_TRUE (st.ok ()) << st.message;
  EXPECT_NE (err.find ("WARNING"), std::string::npos) << err;
  EXPECT_NE (err.find ("results come from software"), std::string::npos) << err;
}

}  // namespace
