/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: Jetson's NvBufSurface library and the CUDA driver's EGL interop, found at run time.
 *
 * libnvbufsurface.so exists only on Jetson (JetPack's multimedia API), so nothing links it: the
 * plugin loads it with dlopen when caps first say memory:NVMM (DLAINFER_NVBUFSURFACE_LIBRARY names
 * another file). The three CUDA calls come from the driver, through the runtime's entry-point
 * query; a library that says it is the tests' stand-in (it exports nvmmStandInName) gives them
 * instead, since a GPU host has no EGLImage to register (docs/nvmm.md 4). One process-wide instance
 * per file name. */
#pragma once

#include <memory>
#include <string>

#include "host/status.h"
#include "nvmm/abi/nvbufsurface_abi.h"

namespace nvmm {

constexpr const char *kLibraryEnv = "DLAINFER_NVBUFSURFACE_LIBRARY";
constexpr const char *kDefaultLibrary = "libnvbufsurface.so";
/* Where JetPack puts it, tried when the default name is not on the loader's path. */
constexpr const char *kJetsonLibrary = "/usr/lib/aarch64-linux-gnu/tegra/libnvbufsurface.so";

/* What to do when NVMM frames cannot be read: appended to every refusal. */
constexpr const char *kWayOut =
    "convert upstream instead: on a Jetson 'nvvidconv ! video/x-raw(memory:NVMM),format=NV12' for "
    "another NVMM format, or 'nvvidconv ! video/x-raw ! cudaupload' for CUDA memory; elsewhere cudaupload";

struct Api {
  NvBufSurfaceMapEglImageFn MapEglImage = nullptr;
  NvBufSurfaceUnMapEglImageFn UnMapEglImage = nullptr;
  GraphicsEGLRegisterImageFn RegisterImage = nullptr;
  GraphicsResourceGetMappedEglFrameFn GetMappedEglFrame = nullptr;
  GraphicsUnregisterResourceFn UnregisterResource = nullptr;
};

class Library {
 public:
  /* The file named by DLAINFER_NVBUFSURFACE_LIBRARY, else libnvbufsurface.so (then JetPack's
   * path); opened once per name and shared. Thread-safe; a failure is not cached. */
  static host::Status Load (std::shared_ptr<const Library> *out);
  static void ResetForTests ();

  ~Library ();
  Library (const Library &) = delete;
  Library &operator= (const Library &) = delete;

  const Api &api () const { return api_; }
  const std::string &path () const { return path_; }
  /* The stand-in's name ("nvmm-stand-in") when the tests' library is loaded, else "". */
  const std::string &stand_in () const { return stand_in_; }

 private:
  Library () = default;
  static host::Status Open (const std::string &path, bool from_env, std::shared_ptr<Library> *out);

  void *handle_ = nullptr;
  std::string path_;
  std::string stand_in_;
  Api api_;
};

}  // namespace nvmm
