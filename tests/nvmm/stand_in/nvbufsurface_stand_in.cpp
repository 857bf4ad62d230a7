/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The NVMM stand-in (tests only, never installed; docs/nvmm.md 7): Jetson's libnvbufsurface and
 * the CUDA driver's EGL interop as strict as the real ones, over real CUDA memory on a GPU host.
 * Block-linear surfaces are CUDA arrays (the element must take the texture path), pitch-linear
 * ones pitched device memory with Jetson-like pitches; dataPtr points at a page that cannot be
 * read, on the CPU or the GPU. Every map, unmap, register and unregister is counted; what the
 * real API refuses, or what would leave it broken, is refused and counted as a violation. */
#include <cuda_runtime_api.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "tests/nvmm/stand_in/stand_in_api.h"

#define STAND_IN_EXPORT extern "C" __attribute__ ((visibility ("default")))

namespace {

using nvmm::NvBufSurface;
using nvmm::NvBufSurfaceParams;

constexpr uint32_t kPitchAlign = 256; /* pitch-linear rows: Jetson-like alignment (docs/nvmm.md 7) */
constexpr int kBadResult = 999;       /* CUresult for a refused interop call (CUDA_ERROR_UNKNOWN) */

struct Surface {
  NvBufSurface surf{};
  NvBufSurfaceParams params{};
  bool array = false;
  int planes = 1;
  int channels[3] = {4, 0, 0};
  uint32_t widths[3] = {0, 0, 0}, heights[3] = {0, 0, 0};
  cudaArray_t arrays[3] = {nullptr, nullptr, nullptr};
  void *pitched[3] = {nullptr, nullptr, nullptr};
  int fd = -1;
  bool egl_mapped = false;
  bool registered = false;
};

std::mutex mutex;
std::map<const NvBufSurface *, std::unique_ptr<Surface>> surfaces; /* by the surface handed out */
std::atomic<uint64_t> counters[kStandInCounterCount];
thread_local std::string last_refusal;
void *poison = nullptr; /* PROT_NONE: what dataPtr points at */

int refuse (const std::string &why, int result = -1)
{
  last_refusal = why;
  ++counters[kStandInViolations];
  return result;
}

Surface *find (const NvBufSurface *s)
{
  auto it = surfaces.find (s);
  return it == surfaces.end () ? nullptr : it->second.get ();
}

/* The fake EGLImage and resource handles are the Surface record itself, tagged so they differ. */
void *egl_image_of (Surface *s)
{
  return reinterpret_cast<uint8_t *> (s) + 1;
}
void *resource_of (Surface *s)
{
  return reinterpret_cast<uint8_t *> (s) + 2;
}
Surface *by_handle (const void *h, int tag)
{
  for (auto &kv : surfaces)
    if (reinterpret_cast<uint8_t *> (kv.second.get ()) + tag == h)
      return kv.second.get ();
  return nullptr;
}

uint32_t align (uint32_t v, uint32_t a)
{
  return (v + a - 1) / a * a;
}

bool allocate (Surface *s)
{
  for (int p = 0; p < s->planes; ++p) {
    NvBufSurfaceParams &pp = s->params;
    const uint32_t row = s->widths[p] * uint32_t (s->channels[p]);
    pp.planeParams.width[p] = s->widths[p];
    pp.planeParams.height[p] = s->heights[p];
    pp.planeParams.bytesPerPix[p] = uint32_t (s->channels[p]);
    pp.planeParams.pitch[p] = align (row, s->array ? 64 : kPitchAlign);
    pp.planeParams.offset[p] = p == 0 ? 0 : pp.planeParams.offset[p - 1] + pp.planeParams.psize[p - 1];
    pp.planeParams.psize[p] = pp.planeParams.pitch[p] * s->heights[p];
    if (s->array) {
      const int c = s->channels[p];
      const cudaChannelFormatDesc d = cudaCreateChannelDesc (8, c > 1 ? 8 : 0, c > 2 ? 8 : 0, c > 3 ? 8 : 0,
                                                             cudaChannelFormatKindUnsigned);
      if (cudaMallocArray (&s->arrays[p], &d, s->widths[p], s->heights[p]) != cudaSuccess)
        return false;
    } else if (cudaMalloc (&s->pitched[p], pp.planeParams.psize[p]) != cudaSuccess) {
      return false;
    }
  }
  s->params.pitch = s->params.planeParams.pitch[0];
  s->params.dataSize =
      s->params.planeParams.offset[s->planes - 1] + s->params.planeParams.psize[s->planes - 1];
  return true;
}

void release (Surface *s)
{
  for (int p = 0; p < 3; ++p) {
    if (s->arrays[p])
      cudaFreeArray (s->arrays[p]);
    if (s->pitched[p])
      cudaFree (s->pitched[p]);
  }
  if (s->fd >= 0)
    close (s->fd);
}

}  // namespace

STAND_IN_EXPORT const char *nvmmStandInName (void)
{
  return "nvmm-stand-in";
}

STAND_IN_EXPORT int nvmmStandInCreate (uint32_t width, uint32_t height, int color_format, int layout,
                                       NvBufSurface **out)
{
  std::lock_guard<std::mutex> lock (mutex);
  const bool nv12 =
      color_format == nvmm::NVBUF_COLOR_FORMAT_NV12 || color_format == nvmm::NVBUF_COLOR_FORMAT_NV12_ER;
  if (!out || width == 0 || height == 0 || (!nv12 && color_format != nvmm::NVBUF_COLOR_FORMAT_RGBA) ||
      (layout != nvmm::NVBUF_LAYOUT_PITCH && layout != nvmm::NVBUF_LAYOUT_BLOCK_LINEAR))
    return refuse ("nvmmStandInCreate: NV12 or RGBA, pitch or block-linear, a non-empty size");
  if (!poison)
    poison = mmap (nullptr, size_t (getpagesize ()), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  std::unique_ptr<Surface> s (new Surface ());
  s->array = layout == nvmm::NVBUF_LAYOUT_BLOCK_LINEAR;
  s->planes = nv12 ? 2 : 1;
  s->channels[0] = nv12 ? 1 : 4;
  s->channels[1] = nv12 ? 2 : 0;
  s->widths[0] = width;
  s->heights[0] = height;
  s->widths[1] = (width + 1) / 2;
  s->heights[1] = (height + 1) / 2;
  s->params.width = width;
  s->params.height = height;
  s->params.colorFormat = nvmm::NvBufSurfaceColorFormat (color_format);
  s->params.layout = nvmm::NvBufSurfaceLayout (layout);
  s->params.planeParams.num_planes = uint32_t (s->planes);
  s->params.dataPtr = poison;  /* not valid for SURFACE_ARRAY: any read of it faults */
  s->fd = dup (STDERR_FILENO); /* a real descriptor where the dma-buf fd would be */
  s->params.bufferDesc = uint64_t (s->fd);
  if (!allocate (s.get ())) {
    release (s.get ());
    return refuse ("nvmmStandInCreate: CUDA allocation failed");
  }
  s->surf.batchSize = s->surf.numFilled = 1;
  s->surf.memType = nvmm::NVBUF_MEM_SURFACE_ARRAY;
  s->surf.surfaceList = &s->params;
  *out = &s->surf;
  surfaces.emplace (&s->surf, std::move (s));
  ++counters[kStandInLiveSurfaces];
  return 0;
}

STAND_IN_EXPORT int nvmmStandInWrite (NvBufSurface *surf, const uint8_t *const *planes,
                                      const int32_t *pitches)
{
  std::lock_guard<std::mutex> lock (mutex);
  Surface *s = find (surf);
  if (!s)
    return refuse ("nvmmStandInWrite: not a live surface");
  for (int p = 0; p < s->planes; ++p) {
    const size_t row = size_t (s->widths[p]) * size_t (s->channels[p]);
    const cudaError_t err =
        s->array ? cudaMemcpy2DToArray (s->arrays[p], 0, 0, planes[p], size_t (pitches[p]), row,
                                        s->heights[p], cudaMemcpyHostToDevice)
                 : cudaMemcpy2D (s->pitched[p], s->params.planeParams.pitch[p], planes[p],
                                 size_t (pitches[p]), row, s->heights[p], cudaMemcpyHostToDevice);
    if (err != cudaSuccess)
      return refuse (std::string ("nvmmStandInWrite: ") + cudaGetErrorName (err));
  }
  /* A producer hands on a finished surface (a decoder's are written when pushed). A copy from
   * pageable memory may return before its DMA lands, and the element's own stream does not wait
   * for the legacy stream it ran on. */
  const cudaError_t err = cudaStreamSynchronize (nullptr);
  return err == cudaSuccess ? 0 : refuse (std::string ("nvmmStandInWrite: ") + cudaGetErrorName (err));
}

STAND_IN_EXPORT int nvmmStandInDestroy (NvBufSurface *surf)
{
  std::lock_guard<std::mutex> lock (mutex);
  Surface *s = find (surf);
  if (!s)
    return refuse ("nvmmStandInDestroy: not a live surface");
  if (s->registered || s->egl_mapped)
    return refuse (std::string ("nvmmStandInDestroy: the surface is still ") +
                   (s->registered ? "registered with CUDA" : "mapped as an EGLImage"));
  release (s);
  surfaces.erase (surf);
  --counters[kStandInLiveSurfaces];
  return 0;
}

STAND_IN_EXPORT void nvmmStandInCounters (uint64_t out[kStandInCounterCount])
{
  for (int i = 0; i < kStandInCounterCount; ++i)
    out[i] = counters[i].load ();
}

STAND_IN_EXPORT const char *nvmmStandInLastRefusal (void)
{
  return last_refusal.c_str ();
}

/* ---- libnvbufsurface.so ---- */

STAND_IN_EXPORT int NvBufSurfaceMapEglImage (NvBufSurface *surf, int index)
{
  std::lock_guard<std::mutex> lock (mutex);
  Surface *s = find (surf);
  if (!s)
    return refuse ("NvBufSurfaceMapEglImage: not a surface of this library");
  if (surf->memType != nvmm::NVBUF_MEM_SURFACE_ARRAY)
    return refuse ("NvBufSurfaceMapEglImage: only NVBUF_MEM_SURFACE_ARRAY memory is supported");
  if (index != 0 && index != -1)
    return refuse ("NvBufSurfaceMapEglImage: index " + std::to_string (index) + " of a batch of 1");
  if (s->egl_mapped)
    return refuse ("NvBufSurfaceMapEglImage: already mapped (a second EGLImage would leak)");
  s->egl_mapped = true;
  s->params.mappedAddr.eglImage = egl_image_of (s);
  ++counters[kStandInEglMaps];
  ++counters[kStandInLiveEglImages];
  return 0;
}

STAND_IN_EXPORT int NvBufSurfaceUnMapEglImage (NvBufSurface *surf, int index)
{
  std::lock_guard<std::mutex> lock (mutex);
  Surface *s = find (surf);
  if (!s || (index != 0 && index != -1))
    return refuse ("NvBufSurfaceUnMapEglImage: not a surface of this library, or a bad index");
  if (!s->egl_mapped)
    return refuse ("NvBufSurfaceUnMapEglImage: not mapped");
  if (s->registered)
    return refuse ("NvBufSurfaceUnMapEglImage: the EGLImage is still registered with CUDA");
  s->egl_mapped = false;
  s->params.mappedAddr.eglImage = nullptr;
  ++counters[kStandInEglUnmaps];
  --counters[kStandInLiveEglImages];
  return 0;
}

/* ---- the CUDA driver's EGL interop ---- */

STAND_IN_EXPORT int cuGraphicsEGLRegisterImage (void **resource, void *image, unsigned flags)
{
  std::lock_guard<std::mutex> lock (mutex);
  Surface *s = by_handle (image, 1);
  if (!resource || !s || !s->egl_mapped)
    return refuse ("cuGraphicsEGLRegisterImage: not a mapped EGLImage", kBadResult);
  if (flags > nvmm::kRegisterReadOnly)
    return refuse ("cuGraphicsEGLRegisterImage: unknown flags", kBadResult);
  if (s->registered)
    return refuse ("cuGraphicsEGLRegisterImage: already registered", kBadResult);
  s->registered = true;
  *resource = resource_of (s);
  ++counters[kStandInRegisters];
  ++counters[kStandInLiveResources];
  return 0;
}

STAND_IN_EXPORT int cuGraphicsResourceGetMappedEglFrame (nvmm::EglFrame *frame, void *resource,
                                                         unsigned index, unsigned mip_level)
{
  std::lock_guard<std::mutex> lock (mutex);
  Surface *s = by_handle (resource, 2);
  if (!frame || !s || !s->registered)
    return refuse ("cuGraphicsResourceGetMappedEglFrame: not a registered resource", kBadResult);
  if (index != 0 || mip_level != 0)
    return refuse ("cuGraphicsResourceGetMappedEglFrame: index and mip level 0 only", kBadResult);
  nvmm::EglFrame f{};
  for (int p = 0; p < s->planes; ++p) {
    if (s->array)
      f.frame.pArray[p] = s->arrays[p];
    else
      f.frame.pPitch[p] = s->pitched[p];
  }
  f.width = s->widths[0];
  f.height = s->heights[0];
  f.depth = 1;
  f.pitch = s->array ? 0 : s->params.planeParams.pitch[0];
  f.planeCount = unsigned (s->planes);
  f.numChannels = unsigned (s->channels[0]);
  f.frameType = s->array ? nvmm::kEglFrameArray : nvmm::kEglFramePitch;
  f.eglColorFormat = s->planes == 2 ? 0x01 /* YUV420_SEMIPLANAR */ : 0x0E /* ABGR: RGBA bytes */;
  f.cuFormat = nvmm::kCuArrayUint8;
  *frame = f;
  ++counters[kStandInMappedFrames];
  return 0;
}

STAND_IN_EXPORT int cuGraphicsUnregisterResource (void *resource)
{
  std::lock_guard<std::mutex> lock (mutex);
  Surface *s = by_handle (resource, 2);
  if (!s || !s->registered)
    return refuse ("cuGraphicsUnregisterResource: not a registered resource", kBadResult);
  s->registered = false;
  ++counters[kStandInUnregisters];
  --counters[kStandInLiveResources];
  return 0;
}
