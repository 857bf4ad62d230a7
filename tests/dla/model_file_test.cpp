/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Model files: missing / unreadable / empty, what the first bytes say, which backend takes which,
 * and the engine's own checks that need neither GPU nor cuDLA. */
#include "dla/model_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "dla/engine.h"

namespace {

class TempFile {
 public:
  explicit TempFile (const std::vector<uint8_t> &bytes)
  {
    char tmpl[] = "/tmp/dlainfer-model-XXXXXX";
    const int fd = mkstemp (tmpl);
    path_ = tmpl;
    if (fd >= 0) {
      if (!bytes.empty () && write (fd, bytes.data (), bytes.size ()) != ssize_t (bytes.size ()))
        path_.clear ();
      close (fd);
    }
  }
  ~TempFile () { unlink (path_.c_str ()); }
  const std::string &path () const { return path_; }

 private:
  std::string path_;
};

std::vector<uint8_t> bytes_of (const std::string &s)
{
  return std::vector<uint8_t> (s.begin (), s.end ());
}

TEST (ModelFile, Missing)
{
  std::vector<uint8_t> b;
  const dla::Status st = dla::read_model_file ("/nonexistent/model.loadable", &b);
  EXPECT_EQ (st.code, dla::Code::kNotFound);
  EXPECT_NE (st.message.find ("'/nonexistent/model.loadable' does not exist"), std::string::npos)
      << st.message;
}

TEST (ModelFile, Directory)
{
  std::vector<uint8_t> b;
  const dla::Status st = dla::read_model_file ("/tmp", &b);
  EXPECT_EQ (st.code, dla::Code::kNotFound);
  EXPECT_NE (st.message.find ("is a directory"), std::string::npos) << st.message;
}

/* A device or FIFO would never end (or block): refused before reading. */
TEST (ModelFile, NotARegularFile)
{
  std::vector<uint8_t> b;
  const dla::Status st = dla::read_model_file ("/dev/zero", &b);
  EXPECT_EQ (st.code, dla::Code::kSettings);
  EXPECT_NE (st.message.find ("'/dev/zero' is not a regular file"), std::string::npos) << st.message;
  EXPECT_TRUE (b.empty ());
}

/* read_model_file's status as seen by an unprivileged user: root reads any file, so as root the
 * read runs in a child that first drops to nobody (65534); its code and message come back by pipe. */
dla::Status read_as_user (const std::string &path)
{
  if (geteuid () != 0) {
    std::vector<uint8_t> b;
    return dla::read_model_file (path, &b);
  }
  int fds[2];
  if (pipe (fds) != 0)
    return dla::Status::Error (dla::Code::kRuntime, "pipe failed");
  const pid_t pid = fork ();
  if (pid == 0) {
    close (fds[0]);
    std::string out = "setuid failed";
    int code = -1;
    if (setgid (65534) == 0 && setuid (65534) == 0) {
      std::vector<uint8_t> b;
      const dla::Status st = dla::read_model_file (path, &b);
      code = int (st.code);
      out = st.message;
    }
    const std::string msg = std::to_string (code) + "\n" + out;
    (void)!write (fds[1], msg.data (), msg.size ());
    _exit (0);
  }
  close (fds[1]);
  std::string msg;
  char buf[512];
  for (ssize_t n; (n = read (fds[0], buf, sizeof buf)) > 0;)
    msg.append (buf, size_t (n));
  close (fds[0]);
  waitpid (pid, nullptr, 0);
  const size_t nl = msg.find ('\n');
  if (nl == std::string::npos || msg.compare (0, 2, "-1") == 0)
    return dla::Status::Error (dla::Code::kRuntime, "the unprivileged child failed: " + msg);
  return dla::Status::Error (dla::Code (std::stoi (msg.substr (0, nl))), msg.substr (nl + 1));
}

TEST (ModelFile, Unreadable)
{
  TempFile f (bytes_of ("0123NVDA"));
  ASSERT_EQ (chmod (f.path ().c_str (), 0), 0);
  const dla::Status st = read_as_user (f.path ());
  EXPECT_EQ (st.code, dla::Code::kNotFound) << st.message;
  EXPECT_NE (st.message.find ("cannot be read: Permission denied"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find (f.path ()), std::string::npos) << st.message;
}

TEST (ModelFile, Empty)
{
  TempFile f ({});
  std::vector<uint8_t> b;
  const dla::Status st = dla::read_model_file (f.path (), &b);
  EXPECT_EQ (st.code, dla::Code::kModel);
  EXPECT_NE (st.message.find ("is empty"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find (f.path ()), std::string::npos) << st.message;
}

TEST (ModelFile, NoPath)
{
  std::vector<uint8_t> b;
  EXPECT_EQ (dla::read_model_file ("", &b).code, dla::Code::kSettings);
}

TEST (ModelFile, ReadsAllBytes)
{
  std::vector<uint8_t> want (100000);
  for (size_t i = 0; i < want.size (); ++i)
    want[i] = uint8_t (i * 7);
  TempFile f (want);
  std::vector<uint8_t> b;
  ASSERT_TRUE (dla::read_model_file (f.path (), &b).ok ());
  EXPECT_EQ (b, want);
}

TEST (ModelFile, KindFromMagic)
{
  const auto nv = bytes_of (std::string ("\x01\x02\x03\x04NVDA", 8) + "rest");
  const auto sw = bytes_of ("SWDLAMDL....");
  const auto other = bytes_of (
      "\x7f"
      "ELF and so on");
  EXPECT_EQ (dla::model_kind (nv.data (), nv.size ()), dla::ModelKind::kNvidiaLoadable);
  EXPECT_EQ (dla::model_kind (sw.data (), sw.size ()), dla::ModelKind::kSwdla);
  EXPECT_EQ (dla::model_kind (other.data (), other.size ()), dla::ModelKind::kUnknown);
  EXPECT_EQ (dla::model_kind (sw.data (), 7), dla::ModelKind::kUnknown) << "too short for a magic";
}

TEST (ModelFile, TensorRtEngineIsToldApart)
{
  const auto trt = bytes_of (std::string ("ftrt\x00\x00\x00\x00\x10\x00\x00\x00", 12) + "engine");
  EXPECT_EQ (dla::model_kind (trt.data (), trt.size ()), dla::ModelKind::kTensorRtEngine);
  EXPECT_EQ (dla::model_kind (trt.data (), 3), dla::ModelKind::kUnknown) << "too short for a magic";
  EXPECT_STREQ (dla::model_kind_name (dla::ModelKind::kTensorRtEngine), "TensorRT engine");
  for (const char *backend : {"dla", "swdla"}) {
    const dla::Status st = dla::check_model_for_backend (trt.data (), trt.size (), backend, "m.engine");
    EXPECT_EQ (st.code, dla::Code::kModel);
    EXPECT_NE (
        st.message.find ("'m.engine' (18 bytes) is a TensorRT engine, not a cuDLA loadable: rebuild it with "
                         "trtexec --buildDLAStandalone"),
        std::string::npos)
        << st.message;
  }
}

TEST (ModelFile, BackendMismatchMessages)
{
  const auto nv = bytes_of (std::string ("\0\0\0\0NVDA", 8));
  const auto sw = bytes_of ("SWDLAMDL");
  EXPECT_TRUE (dla::check_model_for_backend (nv.data (), nv.size (), "dla", "m").ok ());
  EXPECT_TRUE (dla::check_model_for_backend (sw.data (), sw.size (), "swdla", "m").ok ());

  dla::Status st = dla::check_model_for_backend (nv.data (), nv.size (), "swdla", "a.loadable");
  EXPECT_EQ (st.code, dla::Code::kModel);
  EXPECT_NE (st.message.find ("'a.loadable' is an NVIDIA DLA loadable"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("swdla"), std::string::npos) << st.message;

  st = dla::check_model_for_backend (sw.data (), sw.size (), "dla", "b.swdla");
  EXPECT_EQ (st.code, dla::Code::kModel);
  EXPECT_NE (st.message.find ("real cuDLA cannot load"), std::string::npos) << st.message;
}

TEST (ModelFile, UnknownBytesExplainWhatALoadableIs)
{
  const auto onnx = bytes_of ("\x08\x07\x12\x07pytorch");
  const dla::Status st = dla::check_model_for_backend (onnx.data (), onnx.size (), "dla", "model.onnx");
  EXPECT_EQ (st.code, dla::Code::kModel);
  for (const char *needle :
       {"'model.onnx'", "not a DLA loadable", "NVDA", "DLA standalone engine",
        "trtexec --onnx=model.onnx --useDLACore=0 --inputIOFormats=fp16:chw16 --outputIOFormats=fp16:chw16 "
        "--buildDLAStandalone --saveEngine=model.loadable"})
    EXPECT_NE (st.message.find (needle), std::string::npos) << needle << " missing from: " << st.message;
}

/* Engine::Open checks its settings and the file before any library or device. */
TEST (EngineOpen, SettingsOutOfRange)
{
  std::unique_ptr<dla::Engine> e;
  dla::EngineConfig cfg;
  cfg.model_path = "/nonexistent";
  cfg.task_timeout_ms = 0;
  dla::Status st = dla::Engine::Open (cfg, &e);
  EXPECT_EQ (st.code, dla::Code::kSettings);
  EXPECT_NE (st.message.find ("1..1000000 ms"), std::string::npos) << st.message;
  cfg.task_timeout_ms = 1000001;
  EXPECT_EQ (dla::Engine::Open (cfg, &e).code, dla::Code::kSettings);
  cfg.task_timeout_ms = 5000;
  cfg.num_slots = 0;
  st = dla::Engine::Open (cfg, &e);
  EXPECT_EQ (st.code, dla::Code::kSettings);
  EXPECT_NE (st.message.find ("1..64"), std::string::npos) << st.message;
  EXPECT_EQ (e, nullptr);
}

/* dla-core: a core from 0, or -1 (dla::kEveryCore) for every core; below that is refused naming
 * both meanings, before the file is read. */
TEST (EngineOpen, CoreBelowEveryCoreRefused)
{
  std::unique_ptr<dla::Engine> e;
  dla::EngineConfig cfg;
  cfg.model_path = "/nonexistent";
  cfg.dla_core = -2;
  const dla::Status st = dla::Engine::Open (cfg, &e);
  EXPECT_EQ (st.code, dla::Code::kSettings);
  for (const char *needle : {"DLA core -2", "cores count from 0", "-1 runs every core"})
    EXPECT_NE (st.message.find (needle), std::string::npos) << needle << " missing from: " << st.message;
  cfg.dla_core = dla::kEveryCore;
  EXPECT_EQ (dla::Engine::Open (cfg, &e).code, dla::Code::kNotFound) << "-1 passes the settings check";
}

TEST (EngineOpen, FileErrorsComeFirst)
{
  std::unique_ptr<dla::Engine> e;
  dla::EngineConfig cfg;
  cfg.model_path = "/nonexistent/model.loadable";
  EXPECT_EQ (dla::Engine::Open (cfg, &e).code, dla::Code::kNotFound);
  TempFile f (bytes_of ("not a model at all"));
  cfg.model_path = f.path ();
  const dla::Status st = dla::Engine::Open (cfg, &e);
  EXPECT_EQ (st.code, dla::Code::kModel);
  EXPECT_NE (st.message.find ("--buildDLAStandalone"), std::string::npos) << st.message;
}

/* The library is loaded before the device: a missing one is reported as such. */
TEST (EngineOpen, LibraryMissing)
{
  TempFile f (bytes_of (std::string ("\0\0\0\0NVDA", 8)));
  setenv ("DLAINFER_CUDLA_LIBRARY", "/nonexistent/libcudla.so.1", 1);
  dla::Library::ResetForTests ();
  std::unique_ptr<dla::Engine> e;
  dla::EngineConfig cfg;
  cfg.model_path = f.path ();
  const dla::Status st = dla::Engine::Open (cfg, &e);
  unsetenv ("DLAINFER_CUDLA_LIBRARY");
  EXPECT_EQ (st.code, dla::Code::kNotFound);
  EXPECT_NE (st.message.find ("JetPack"), std::string::npos) << st.message;
}

/* An swdla model given to a library that is not swdla. */
TEST (EngineOpen, SwdlaModelOnRealCudla)
{
  const char *full = std::getenv ("DLAINFER_FAKE_CUDLA_FULL");
  ASSERT_NE (full, nullptr);
  TempFile f (bytes_of ("SWDLAMDL and the rest"));
  setenv ("DLAINFER_CUDLA_LIBRARY", full, 1);
  dla::Library::ResetForTests ();
  std::unique_ptr<dla::Engine> e;
  dla::EngineConfig cfg;
  cfg.model_path = f.path ();
  const dla::Status st = dla::Engine::Open (cfg, &e);
  unsetenv ("DLAINFER_CUDLA_LIBRARY");
  dla::Library::ResetForTests ();
  EXPECT_EQ (st.code, dla::Code::kModel);
  EXPECT_NE (st.message.find ("real cuDLA cannot load"), std::string::npos) << st.message;
}

}  // namespace
