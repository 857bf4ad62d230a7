/* gst-dlainfer: the cuDLA library, opened with dlopen at run time.
 *
 * libcudla.so.1 exists only on Jetson (JetPack), so nothing links it: the plugin builds and its CPU
 * tests run anywhere, and DLAINFER_CUDLA_LIBRARY names another file (swdla on x86 GPU hosts, fakes
 * in tests). One process-wide instance per file name, shared by its users: the library stays open
 * while any engine holds it. */
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "cudla_abi.h"
#include "status.h"

namespace dla {

/* The environment variable that names the library file instead of libcudla.so.1. */
constexpr const char *kLibraryEnv = "DLAINFER_CUDLA_LIBRARY";
constexpr const char *kDefaultLibrary = "libcudla.so.1";

/* The 12 hybrid-mode entry points are required; the rest are optional. */
struct CudlaApi {
  cudlaStatus (*GetVersion) (uint64_t *const) = nullptr;
  cudlaStatus (*DeviceGetCount) (uint64_t *const) = nullptr;
  cudlaStatus (*CreateDevice) (uint64_t const, cudlaDevHandle *const, uint32_t const) = nullptr;
  cudlaStatus (*MemRegister) (cudlaDevHandle const, const uint64_t *const, size_t const, uint64_t **const,
                              uint32_t const) = nullptr;
  cudlaStatus (*ModuleLoadFromMemory) (cudlaDevHandle const, const uint8_t *const, size_t const,
                                       cudlaModule *const, uint32_t const) = nullptr;
  cudlaStatus (*ModuleGetAttributes) (cudlaModule const, cudlaModuleAttributeType const,
                                      cudlaModuleAttribute *const) = nullptr;
  cudlaStatus (*ModuleUnload) (cudlaModule const, uint32_t const) = nullptr;
  cudlaStatus (*SubmitTask) (cudlaDevHandle const, const cudlaTask *const, uint32_t const, void *const,
                             uint32_t const) = nullptr;
  cudlaStatus (*DeviceGetAttribute) (cudlaDevHandle const, cudlaDevAttributeType const,
                                     cudlaDevAttribute *const) = nullptr;
  cudlaStatus (*MemUnregister) (cudlaDevHandle const, const uint64_t *const) = nullptr;
  cudlaStatus (*GetLastError) (cudlaDevHandle const) = nullptr;
  cudlaStatus (*DestroyDevice) (cudlaDevHandle const) = nullptr;
  /* Optional: absent from the 1.2.1 header (reference section 2). */
  cudlaStatus (*SetTaskTimeoutInMs) (cudlaDevHandle const, uint32_t const) = nullptr;
  /* Optional: exported only by swdla, which says so. */
  const char *(*SwdlaBackendName) (void) = nullptr;
  /* Optional, swdla only (tests/swdla/README.md): 911 once an injected DLA fault has completed on
   * its stream (swdla cannot make the CUDA runtime itself return 911), else 0. */
  int (*SwdlaExternalDeviceError) (void) = nullptr;
  /* Optional, swdla only: why this thread's last call was refused, or "". */
  const char *(*SwdlaLastRefusal) (void) = nullptr;
};

/* Names of the required symbols, in CudlaApi's order (for messages and tests). */
extern const char *const kRequiredSymbols[12];

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
  bool is_software () const { return api_.SwdlaBackendName != nullptr; }
  bool has_task_timeout () const { return api_.SetTaskTimeoutInMs != nullptr; }
  /* cudlaGetVersion's raw value (1000000 * major + 1000 * minor + patch), 0 if it failed. */
  uint64_t version () const { return version_; }
  std::string version_string () const;
  /* " (swdla: <reason>)" after a refused call on swdla, else "": appended to failure messages. */
  std::string refusal_detail () const;
  /* The external-device error swdla emulates (0 on real cuDLA). */
  int emulated_external_error () const
  {
    return api_.SwdlaExternalDeviceError ? api_.SwdlaExternalDeviceError () : 0;
  }

 private:
  Library () = default;
  static Status Open (const std::string &path, bool from_env, std::shared_ptr<Library> *out);

  void *handle_ = nullptr;
  std::string path_;
  std::string backend_ = "dla";
  uint64_t version_ = 0;
  CudlaApi api_;
};

}  // namespace dla
