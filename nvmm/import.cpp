/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "nvmm/import.h"

#include <cuda_runtime_api.h>

#include <string>

#include "dla/status_names.h"

namespace nvmm {

struct Importer::Entry {
  uint64_t fd = 0; /* bufferDesc when registered: another dma-buf at the same address is new */
  bool egl_mapped = false;
  GraphicsResource resource = nullptr;
  Planes planes;
};

namespace {

host::Status failure (const std::string &what)
{
  return host::Status::Error (host::Code::kRuntime,
                              "Cannot import the memory:NVMM frame: " + what + "; " + kWayOut);
}

int plane_count (Format f)
{
  return f == Format::kNV12 ? 2 : 1;
}

/* A texture over a plane's CUDA array: texel (x, y) read unchanged at its centre. */
host::Status make_texture (void *array, unsigned long long *out)
{
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = static_cast<cudaArray_t> (array);
  cudaTextureDesc td{};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 0;
  cudaTextureObject_t tex = 0;
  const cudaError_t err = cudaCreateTextureObject (&tex, &res, &td, nullptr);
  if (err != cudaSuccess)
    return failure (dla::cuda_call_failed ("cudaCreateTextureObject", int (err)));
  *out = tex;
  return host::Status::Ok ();
}

/* The mapped frame against the surface it came from. */
host::Status check_frame (const EglFrame &f, const NvBufSurfaceParams &p, Format format)
{
  const bool array = p.layout == NVBUF_LAYOUT_BLOCK_LINEAR;
  if (f.frameType != (array ? kEglFrameArray : kEglFramePitch))
    return failure (std::string ("a ") + layout_name (p.layout) + " surface mapped as an EGL frame of type " +
                    std::to_string (int (f.frameType)) + " (0 array, 1 pitch)");
  if (int (f.planeCount) != plane_count (format))
    return failure ("an EGL frame of " + std::to_string (f.planeCount) + " planes for " +
                    (format == Format::kNV12 ? "NV12 (2)" : "RGBA (1)"));
  if (f.width != p.width || f.height != p.height)
    return failure ("an EGL frame of " + std::to_string (f.width) + "x" + std::to_string (f.height) +
                    " for a " + std::to_string (p.width) + "x" + std::to_string (p.height) + " surface");
  if (array && f.cuFormat != kCuArrayUint8)
    return failure ("CUDA arrays of format " + std::to_string (f.cuFormat) + ", not 8-bit unsigned");
  for (int i = 0; i < plane_count (format); ++i)
    if (!f.frame.pArray[i])
      return failure ("an EGL frame without plane " + std::to_string (i));
  if (!array && f.pitch != p.planeParams.pitch[0])
    return failure ("an EGL frame of pitch " + std::to_string (f.pitch) + " for a surface of pitch " +
                    std::to_string (p.planeParams.pitch[0]));
  return host::Status::Ok ();
}

}  // namespace

Importer::Importer (std::shared_ptr<const Library> library) : library_ (std::move (library)) {}

Importer::~Importer ()
{
  release_all ();
}

host::Status Importer::register_surface (NvBufSurface *surf, Format format, Entry *e)
{
  const Api &api = library_->api ();
  NvBufSurfaceParams &p = surf->surfaceList[0];
  e->fd = p.bufferDesc;
  if (api.MapEglImage (surf, 0) != 0)
    return failure ("NvBufSurfaceMapEglImage failed (" + std::string (mem_type_name (surf->memType)) + ", " +
                    layout_name (p.layout) + ")");
  e->egl_mapped = true;
  if (!p.mappedAddr.eglImage)
    return failure ("NvBufSurfaceMapEglImage left mappedAddr.eglImage empty");
  CuResult r = api.RegisterImage (&e->resource, p.mappedAddr.eglImage, kRegisterReadOnly);
  if (r != 0) {
    e->resource = nullptr;
    return failure ("cuGraphicsEGLRegisterImage failed (CUresult " + std::to_string (r) + ")");
  }
  EglFrame frame{};
  if ((r = api.GetMappedEglFrame (&frame, e->resource, 0, 0)) != 0)
    return failure ("cuGraphicsResourceGetMappedEglFrame failed (CUresult " + std::to_string (r) + ")");
  host::Status st = check_frame (frame, p, format);
  Planes &out = e->planes;
  out.textures_used = frame.frameType == kEglFrameArray;
  for (int i = 0; st.ok () && i < plane_count (format); ++i) {
    if (out.textures_used) {
      st = make_texture (frame.frame.pArray[i], &out.textures[i]);
    } else {
      out.pointers[i] = frame.frame.pPitch[i];
      out.pitches[i] = int64_t (p.planeParams.pitch[i]);
    }
  }
  return st;
}

void Importer::unregister (NvBufSurface *surf, Entry *e) noexcept
{
  for (unsigned long long &t : e->planes.textures) {
    if (t)
      cudaDestroyTextureObject (cudaTextureObject_t (t));
    t = 0;
  }
  if (e->resource)
    library_->api ().UnregisterResource (e->resource);
  e->resource = nullptr;
  if (e->egl_mapped)
    library_->api ().UnMapEglImage (surf, 0);
  e->egl_mapped = false;
}

host::Status Importer::import (NvBufSurface *surf, Format format, Planes *out)
{
  std::lock_guard<std::mutex> lock (mutex_);
  auto it = entries_.find (surf);
  if (it != entries_.end () && it->second->fd != surf->surfaceList[0].bufferDesc) {
    unregister (surf, it->second.get ());
    entries_.erase (it);
    it = entries_.end ();
  }
  if (it == entries_.end ()) {
    std::unique_ptr<Entry> e (new Entry ());
    const host::Status st = register_surface (surf, format, e.get ());
    if (!st.ok ()) {
      unregister (surf, e.get ());
      return st;
    }
    it = entries_.emplace (surf, std::move (e)).first;
  }
  *out = it->second->planes;
  return host::Status::Ok ();
}

void Importer::release (NvBufSurface *surf) noexcept
{
  std::lock_guard<std::mutex> lock (mutex_);
  auto it = entries_.find (surf);
  if (it == entries_.end ())
    return;
  unregister (surf, it->second.get ());
  entries_.erase (it);
}

void Importer::release_all () noexcept
{
  std::lock_guard<std::mutex> lock (mutex_);
  for (auto &kv : entries_)
    unregister (kv.first, kv.second.get ());
  entries_.clear ();
}

size_t Importer::registered () const
{
  std::lock_guard<std::mutex> lock (mutex_);
  return entries_.size ();
}

}  // namespace nvmm
