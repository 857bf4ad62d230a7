/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/loader.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "host/library_cache.h"

namespace dla {

#define DLA_SYMBOL_NAME(name) "cudla" #name,
const char *const kRequiredSymbols[12] = {DLA_REQUIRED_SYMBOLS (DLA_SYMBOL_NAME)};
#undef DLA_SYMBOL_NAME

namespace {

std::mutex log_mutex;
LogHandler log_handler;

host::LibraryCache<Library> cache;

void log (LogLevel level, const std::string &line)
{
  LogHandler handler;
  {
    std::lock_guard<std::mutex> lock (log_mutex);
    handler = log_handler;
  }
  if (handler)
    handler (level, line);
  else if (level == LogLevel::kWarning)
    std::fprintf (stderr, "dlainfer WARNING: %s\n", line.c_str ());
}

std::string dl_error ()
{
  const char *e = dlerror ();
  return e ? e : "(no dlerror text)";
}

std::string not_found_hint ()
{
  return std::string (
             "cuDLA ships with JetPack on Jetson AGX Orin (and libcudla.so.1 needs the Jetson "
             "BSP's libnvcudla.so); to use another file, set ") +
         kLibraryEnv + " to its path";
}

/* Resolves `name` into *fn; records the name in *missing when absent. */
template <typename Fn>
void resolve (void *handle, const char *name, Fn *fn, std::vector<std::string> *missing)
{
  dlerror ();
  void *sym = dlsym (handle, name);
  if (!sym) {
    if (missing)
      missing->push_back (std::string (name) + " (" + dl_error () + ")");
    return;
  }
  *fn = reinterpret_cast<Fn> (sym);
}

/* swdla's own exports (tests/swdla/README.md contracts 1, 3, 4; swdlaSubmitCpuNs for benchmarks),
 * behind the one TestBackend seam. */
class SwdlaBackend : public TestBackend {
 public:
  static std::unique_ptr<const TestBackend> Find (void *handle)
  {
    std::unique_ptr<SwdlaBackend> b (new SwdlaBackend ());
    resolve (handle, "swdlaBackendName", &b->name_, nullptr);
    if (!b->name_)
      return nullptr; /* NVIDIA's library (or a fake of it) */
    resolve (handle, "swdlaExternalDeviceError", &b->external_error_, nullptr);
    resolve (handle, "swdlaLastRefusal", &b->last_refusal_, nullptr);
    resolve (handle, "swdlaSubmitCpuNs", &b->submit_cpu_ns_, nullptr);
    return b;
  }

  std::string name () const override
  {
    const char *n = name_ ();
    return n && *n ? n : "swdla";
  }
  int emulated_external_error () const override { return external_error_ ? external_error_ () : 0; }
  std::string last_refusal () const override
  {
    const char *why = last_refusal_ ? last_refusal_ () : nullptr;
    return why ? why : "";
  }
  uint64_t submit_cpu_ns () const override { return submit_cpu_ns_ ? submit_cpu_ns_ () : 0; }

 private:
  const char *(*name_) (void) = nullptr;
  int (*external_error_) (void) = nullptr;
  const char *(*last_refusal_) (void) = nullptr;
  uint64_t (*submit_cpu_ns_) (void) = nullptr;
};

}  // namespace

void set_log_handler (LogHandler handler)
{
  std::lock_guard<std::mutex> lock (log_mutex);
  log_handler = std::move (handler);
}

namespace {

/* dlopen, with a plain message for a missing file before dlopen's generic text. */
Status open_handle (const std::string &path, bool from_env, void **handle)
{
  /* A name with a slash is a file: say plainly when it is missing. */
  struct stat st;
  if (path.find ('/') != std::string::npos && stat (path.c_str (), &st) != 0) {
    const int err = errno;
    return Status::Error (Code::kNotFound,
                          std::string ("cuDLA library ") + path +
                              (from_env ? std::string (" (named by ") + kLibraryEnv + ")" : "") +
                              " cannot be opened: " + std::strerror (err) + "; " + not_found_hint ());
  }
  dlerror ();
  *handle = dlopen (path.c_str (), RTLD_NOW | RTLD_LOCAL);
  if (*handle)
    return Status::Ok ();
  const std::string why = dl_error ();
  /* dlerror names the file it could not find: ours, or a dependency of it. */
  const bool ours = why.compare (0, path.size (), path) == 0;
  if (ours && why.find ("cannot open shared object file") != std::string::npos)
    return Status::Error (Code::kNotFound,
                          "cuDLA library " + path + " not found (dlopen: " + why + "); " + not_found_hint ());
  return Status::Error (
      Code::kInit,
      "cuDLA library " + path + " could not be loaded (dlopen: " + why + ")" +
          (ours ? std::string () : "; a library it depends on is missing (on Jetson: install the BSP)"));
}

/* Every entry point of the list in loader.h; the required ones must all be there. */
Status resolve_api (void *handle, const std::string &path, CudlaApi *a)
{
  std::vector<std::string> missing;
#define DLA_LOAD_SYMBOL(name) resolve (handle, "cudla" #name, &a->name, &missing);
#define DLA_LOAD_OPTIONAL_SYMBOL(name) resolve (handle, "cudla" #name, &a->name, nullptr);
  DLA_REQUIRED_SYMBOLS (DLA_LOAD_SYMBOL)
  DLA_OPTIONAL_SYMBOLS (DLA_LOAD_OPTIONAL_SYMBOL)
#undef DLA_LOAD_SYMBOL
#undef DLA_LOAD_OPTIONAL_SYMBOL
  if (missing.empty ())
    return Status::Ok ();
  std::string list;
  for (const auto &m : missing)
    list += (list.empty () ? "" : ", ") + m;
  return Status::Error (Code::kInit, "cuDLA library " + path + " lacks " + std::to_string (missing.size ()) +
                                         " required symbol(s): " + list +
                                         "; it is not a usable libcudla.so.1 (hybrid mode needs the 12 " +
                                         "entry points of cuDLA 1.2 or later)");
}

}  // namespace

Status Library::Open (const std::string &path, bool from_env, std::shared_ptr<Library> *out)
{
  void *handle = nullptr;
  Status st = open_handle (path, from_env, &handle);
  if (!st.ok ())
    return st;
  std::shared_ptr<Library> lib (new Library ());
  lib->handle_ = handle;
  lib->path_ = path;
  if (!(st = resolve_api (handle, path, &lib->api_)).ok ())
    return st;
  lib->test_backend_ = SwdlaBackend::Find (handle);
  if (lib->test_backend_)
    lib->backend_ = lib->test_backend_->name ();
  uint64_t version = 0;
  if (lib->api_.GetVersion (&version) == cudlaSuccess)
    lib->version_ = version;

  if (lib->is_software ())
    log (LogLevel::kWarning, "cuDLA backend '" + lib->backend_ + "' loaded from " + path +
                                 ": the software DLA of gst-dlainfer's tests; results come from software on "
                                 "the GPU, not from the DLA");
  else
    log (LogLevel::kInfo, "cuDLA " + lib->version_string () + " loaded from " + path +
                              (lib->has_task_timeout ()
                                   ? ""
                                   : " (no cudlaSetTaskTimeoutInMs: tasks keep the 30 s default timeout)"));
  *out = std::move (lib);
  return Status::Ok ();
}

Status Library::Load (std::shared_ptr<const Library> *out)
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

std::string Library::version_string () const
{
  if (version_ == 0)
    return "(version unknown)";
  return std::to_string (version_ / 1000000) + "." + std::to_string (version_ / 1000 % 1000) + "." +
         std::to_string (version_ % 1000);
}

std::string Library::refusal_detail () const
{
  const std::string why = test_backend_ ? test_backend_->last_refusal () : std::string ();
  return why.empty () ? why : " (" + backend_ + ": " + why + ")";
}

}  // namespace dla
