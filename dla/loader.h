/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the cuDLA library, opened with dlopen at run time.
 *
 * libcudla.so.1 exists only on Jetson (JetPack), so nothing links it: the plugin builds and its CPU
 * tests run anywhere, and DLAINFER_CUDLA_LIBRARY names another file (swdla on x86 GPU hosts, fakes
 * in tests). One process-wide instance per file name, shared by its users: the library stays open
 * while any engine holds it. */
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "dla/abi/cudla_abi.h"
#include "dla/status.h"

namespace dla {

/* The environment variable that names the library file instead of libcudla.so.1. */
constexpr const char *kLibraryEnv = "DLAINFER_CUDLA_LIBRARY";
constexpr const char *kDefaultLibrary = "libcudla.so.1";

/* Every entry point the loader resolves, each named once: the list gives the CudlaApi field (the
 * symbol without its "cudla" prefix, typed from the prototype in cudla_abi.h), the symbol's name
 * (stringified, as GStreamer's LOAD_SYMBOL does) and kRequiredSymbols. The 12 hybrid-mode entry
 * points are required; cudlaSetTaskTimeoutInMs is optional (absent from the 1.2.1 header,
 * docs/cudla.md 2). */
// clang-format off
#define DLA_REQUIRED_SYMBOLS(X)                                                                    \
  X (GetVersion) X (DeviceGetCount) X (CreateDevice) X (MemRegister) X (ModuleLoadFromMemory)      \
  X (ModuleGetAttributes) X (ModuleUnload) X (SubmitTask) X (DeviceGetAttribute) X (MemUnregister) \
  X (GetLastError) X (DestroyDevice)
// clang-format on
#define DLA_OPTIONAL_SYMBOLS(X) X (SetTaskTimeoutInMs)

struct CudlaApi {
#define DLA_API_FIELD(name) decltype (&::cudla##name) name = nullptr;
  DLA_REQUIRED_SYMBOLS (DLA_API_FIELD)
  DLA_OPTIONAL_SYMBOLS (DLA_API_FIELD)
#undef DLA_API_FIELD
};

/* Names of the required symbols, in the list's order (for messages and tests). */
extern const char *const kRequiredSymbols[12];

/* What a software DLA adds to the cuDLA ABI (swdla: tests/swdla/README.md, its contracts 1 to 4):
 * the one seam between production code and the test backend. Resolved once at load; absent (a
 * null test_backend ()) on NVIDIA's library. The engine asks it nothing per frame: only a failed
 * call or task consults it. */
class TestBackend {
 public:
  virtual ~TestBackend () = default;
  /* The name it gives itself ("swdla"), shown as backend= in model-info and the meta. */
  virtual std::string name () const = 0;
  /* 911 once an injected DLA fault has completed on its stream (swdla cannot make the CUDA runtime
   * itself return 911), else 0. */
  virtual int emulated_external_error () const = 0;
  /* Why this thread's last call was refused, or "". */
  virtual std::string last_refusal () const = 0;
  /* CPU nanoseconds its cudlaSubmitTask has spent so far (benchmarks), 0 when it does not say. */
  virtual uint64_t submit_cpu_ns () const = 0;
};

enum class LogLevel { kInfo, kWarning };
/* Where the loader's log lines go; the element routes them to its debug category.
 * The default handler writes WARNING lines to stderr and drops INFO. */
using LogHandler = std::function<void (LogLevel, const std::string &)>;
void set_log_handler (LogHandler handler); /* an empty handler restores the default */

class Library {
 public:
  /* The library named by DLAINFER_CUDLA_LIBRARY, else libcudla.so.1; opened once per name and
   * shared. Thread-safe. A failure is not cached: the next call tries again. */
  static Status Load (std::shared_ptr<const Library> *out);
  /* Forgets the cached instance (tests switch files). Holders keep theirs open. */
  static void ResetForTests ();

  ~Library ();
  Library (const Library &) = delete;
  Library &operator= (const Library &) = delete;

  const CudlaApi &api () const { return api_; }
  const std::string &path () const { return path_; }
  /* "swdla" when the library identifies itself as the software DLA, else "dla". */
  const std::string &backend () const { return backend_; }
  /* The software DLA's seam, or nullptr on NVIDIA's library. */
  const TestBackend *test_backend () const { return test_backend_.get (); }
  bool is_software () const { return test_backend_ != nullptr; }
  bool has_task_timeout () const { return api_.SetTaskTimeoutInMs != nullptr; }
  /* cudlaGetVersion's raw value (1000000 * major + 1000 * minor + patch), 0 if it failed. */
  uint64_t version () const { return version_; }
  std::string version_string () const;
  /* " (swdla: <reason>)" after a refused call on swdla, else "": appended to failure messages. */
  std::string refusal_detail () const;
  /* On a failure path: the external-device error a test backend emulates (0 on real cuDLA). */
  int emulated_external_error () const
  {
    return test_backend_ ? test_backend_->emulated_external_error () : 0;
  }

 private:
  Library () = default;
  static Status Open (const std::string &path, bool from_env, std::shared_ptr<Library> *out);

  void *handle_ = nullptr;
  std::string path_;
  std::string backend_ = "dla";
  uint64_t version_ = 0;
  CudlaApi api_;
  std::unique_ptr<const TestBackend> test_backend_;
};

}  // namespace dla
