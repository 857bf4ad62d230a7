/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: Jetson surfaces as the preprocessing kernel reads them, without a copy.
 *
 * The documented way (docs/nvmm.md 5): NvBufSurfaceMapEglImage, cuGraphicsEGLRegisterImage,
 * cuGraphicsResourceGetMappedEglFrame. A block-linear surface comes back as CUDA arrays, read
 * through one texture object per plane; a pitch-linear one as device pointers. Decoders and
 * cameras recycle a fixed set of surfaces, so each is registered once and kept until release ()
 * (its memory is freed) or release_all () (stop); the caller keeps a frame's buffer, and so its
 * surface, alive until the DLA task that reads it has ended. Thread-safe; every call with the
 * CUDA context that imported current. */
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "host/status.h"
#include "nvmm/library.h"
#include "nvmm/surface_check.h"

namespace nvmm {

/* One surface's planes: textures (block-linear) or pointers and pitches (pitch-linear). */
struct Planes {
  bool textures_used = false;
  unsigned long long textures[3] = {0, 0, 0};
  const void *pointers[3] = {nullptr, nullptr, nullptr};
  int64_t pitches[3] = {0, 0, 0};
};

class Importer {
 public:
  explicit Importer (std::shared_ptr<const Library> library);
  ~Importer ();
  Importer (const Importer &) = delete;
  Importer &operator= (const Importer &) = delete;

  /* The planes of `surf` (check_surface passed for `format`), registered on first sight. */
  host::Status import (NvBufSurface *surf, Format format, Planes *out);
  /* Undoes the registration of `surf`, if any (its memory is going). */
  void release (NvBufSurface *surf) noexcept;
  /* Undoes every registration (stop). */
  void release_all () noexcept;
  size_t registered () const;

 private:
  struct Entry;
  host::Status register_surface (NvBufSurface *surf, Format format, Entry *e);
  void unregister (NvBufSurface *surf, Entry *e) noexcept;

  std::shared_ptr<const Library> library_;
  mutable std::mutex mutex_;
  std::map<NvBufSurface *, std::unique_ptr<Entry>> entries_;
};

}  // namespace nvmm
