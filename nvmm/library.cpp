/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "nvmm/library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

#include "dla/driver_entry.h"
#include "host/library_cache.h"

namespace nvmm {
namespace {

host::LibraryCache<Library> cache;

std::string dl_error ()
{
  const char *e = dlerror ();
  return e ? e : "(no dlerror text)";
}

template <typename Fn>
void resolve (void *handle, const char *name, Fn *fn, std::vector<std::string> *missing)
{
  dlerror ();
  void *sym = dlsym (handle, name);
  if (sym)
    *fn = reinterpret_cast<Fn> (sym);
  else if (missing)
    missing->push_back (name);
}

std::string join (const std::vector<std::string> &names)
{
  std::string s;
  for (const std::string &n : names)
    s += (s.empty () ? "" : ", ") + n;
  return s;
}

host::Status open_handle (const std::string &path, bool from_env, void **handle)
{
  dlerror ();
  *handle = dlopen (path.c_str (), RTLD_NOW | RTLD_LOCAL);
  std::string why = *handle ? std::string () : dl_error ();
  if (!*handle && !from_env && path == kDefaultLibrary) {
    *handle = dlopen (kJetsonLibrary, RTLD_NOW | RTLD_LOCAL);
    if (!*handle)
      why += "; " + dl_error ();
  }
  if (*handle)
    return host::Status::Ok ();
  return host::Status::Error (host::Code::kNotFound,
                              std::string ("memory:NVMM frames need ") + path +
                                  (from_env ? std::string (" (named by ") + kLibraryEnv + ")"
                                            : std::string (" (JetPack's multimedia API)")) +
                                  ", which cannot be loaded (" + why + "); " + kWayOut);
}

/* The CUDA driver's EGL entry points (a CUDA 12 driver on Jetson has them). */
host::Status driver_interop (Api *a)
{
  std::vector<std::string> missing;
  if (!dla::driver_entry ("cuGraphicsEGLRegisterImage", &a->RegisterImage))
    missing.push_back ("cuGraphicsEGLRegisterImage");
  if (!dla::driver_entry ("cuGraphicsResourceGetMappedEglFrame", &a->GetMappedEglFrame))
    missing.push_back ("cuGraphicsResourceGetMappedEglFrame");
  if (!dla::driver_entry ("cuGraphicsUnregisterResource", &a->UnregisterResource))
    missing.push_back ("cuGraphicsUnregisterResource");
  if (missing.empty ())
    return host::Status::Ok ();
  return host::Status::Error (host::Code::kInit,
                              "memory:NVMM frames need the CUDA driver's EGL interop, and it "
                              "lacks " +
                                  join (missing) + "; " + kWayOut);
}

}  // namespace

host::Status Library::Open (const std::string &path, bool from_env, std::shared_ptr<Library> *out)
{
  void *handle = nullptr;
  host::Status st = open_handle (path, from_env, &handle);
  if (!st.ok ())
    return st;
  std::shared_ptr<Library> lib (new Library ());
  lib->handle_ = handle;
  lib->path_ = path;
  std::vector<std::string> missing;
  resolve (handle, "NvBufSurfaceMapEglImage", &lib->api_.MapEglImage, &missing);
  resolve (handle, "NvBufSurfaceUnMapEglImage", &lib->api_.UnMapEglImage, &missing);
  const char *(*name) (void) = nullptr;
  resolve (handle, "nvmmStandInName", &name, nullptr);
  if (name) {
    /* The tests' stand-in answers the CUDA side too (its CUDA arrays behind fake EGLImages). */
    lib->stand_in_ = name () ? name () : "nvmm-stand-in";
    resolve (handle, "cuGraphicsEGLRegisterImage", &lib->api_.RegisterImage, &missing);
    resolve (handle, "cuGraphicsResourceGetMappedEglFrame", &lib->api_.GetMappedEglFrame, &missing);
    resolve (handle, "cuGraphicsUnregisterResource", &lib->api_.UnregisterResource, &missing);
  }
  if (!missing.empty ())
    return host::Status::Error (host::Code::kInit, path + " lacks " + join (missing) +
                                                       ": it is not a usable libnvbufsurface.so; " + kWayOut);
  if (!name && !(st = driver_interop (&lib->api_)).ok ())
    return st;
  *out = std::move (lib);
  return host::Status::Ok ();
}

host::Status Library::Load (std::shared_ptr<const Library> *out)
{
  return cache.load (kLibraryEnv, kDefaultLibrary, Open, out);
}

void Library::ResetForTests ()
{
  cache.reset ();
}

Library::~Library ()
{
  if (handle_)
    dlclose (handle_);
}

}  // namespace nvmm
