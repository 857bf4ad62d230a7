/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Orin kit's check of our NvBufSurface declaration (nvmm/abi/nvbufsurface_abi.h) against
 * NVIDIA's header on the Jetson (never in the repository):
 *
 *   g++ -std=c++17 -I/usr/src/jetson_multimedia_api/include -I<source root> nvmm_abi_check.cpp
 *
 * Prints one line per size, offset and enum value, "NVMM-ABI <what> real=<n> ours=<n> ok|MISMATCH",
 * and exits 1 on any mismatch (orin-acceptance.sh reports them). */
#include <nvbufsurface.h>

#include <cstddef>
#include <cstdio>

#include "nvmm/abi/nvbufsurface_abi.h"

namespace {

int mismatches = 0;

void line (const char *what, size_t real, size_t ours)
{
  std::printf ("NVMM-ABI %s real=%zu ours=%zu %s\n", what, real, ours, real == ours ? "ok" : "MISMATCH");
  mismatches += real != ours;
}

}  // namespace

#define SIZE(T) line ("sizeof(" #T ")", sizeof (::T), sizeof (nvmm::T))
#define OFFSET(T, f) line ("offsetof(" #T "," #f ")", offsetof (::T, f), offsetof (nvmm::T, f))
#define VALUE(v) line (#v, size_t (::v), size_t (nvmm::v))

int main ()
{
  SIZE (NvBufSurface);
  OFFSET (NvBufSurface, batchSize);
  OFFSET (NvBufSurface, numFilled);
  OFFSET (NvBufSurface, isContiguous);
  OFFSET (NvBufSurface, memType);
  OFFSET (NvBufSurface, surfaceList);
  SIZE (NvBufSurfaceParams);
  OFFSET (NvBufSurfaceParams, width);
  OFFSET (NvBufSurfaceParams, height);
  OFFSET (NvBufSurfaceParams, pitch);
  OFFSET (NvBufSurfaceParams, colorFormat);
  OFFSET (NvBufSurfaceParams, layout);
  OFFSET (NvBufSurfaceParams, bufferDesc);
  OFFSET (NvBufSurfaceParams, dataSize);
  OFFSET (NvBufSurfaceParams, dataPtr);
  OFFSET (NvBufSurfaceParams, planeParams);
  OFFSET (NvBufSurfaceParams, mappedAddr);
  SIZE (NvBufSurfacePlaneParams);
  OFFSET (NvBufSurfacePlaneParams, num_planes);
  OFFSET (NvBufSurfacePlaneParams, width);
  OFFSET (NvBufSurfacePlaneParams, height);
  OFFSET (NvBufSurfacePlaneParams, pitch);
  OFFSET (NvBufSurfacePlaneParams, offset);
  OFFSET (NvBufSurfacePlaneParams, psize);
  OFFSET (NvBufSurfacePlaneParams, bytesPerPix);
  SIZE (NvBufSurfaceMappedAddr);
  OFFSET (NvBufSurfaceMappedAddr, addr);
  OFFSET (NvBufSurfaceMappedAddr, eglImage);
  line ("sizeof(NvBufSurfaceMemType)", sizeof (::NvBufSurfaceMemType), sizeof (nvmm::NvBufSurfaceMemType));
  VALUE (NVBUF_MEM_DEFAULT);
  VALUE (NVBUF_MEM_CUDA_DEVICE);
  VALUE (NVBUF_MEM_SURFACE_ARRAY);
  VALUE (NVBUF_MEM_SYSTEM);
  VALUE (NVBUF_LAYOUT_PITCH);
  VALUE (NVBUF_LAYOUT_BLOCK_LINEAR);
  VALUE (NVBUF_COLOR_FORMAT_NV12);
  VALUE (NVBUF_COLOR_FORMAT_NV12_ER);
  VALUE (NVBUF_COLOR_FORMAT_RGBA);
  VALUE (NVBUF_COLOR_FORMAT_NV12_709);
  VALUE (NVBUF_COLOR_FORMAT_NV12_709_ER);
  VALUE (NVBUF_COLOR_FORMAT_NV12_2020);
  std::printf ("NVMM-ABI mismatches=%d\n", mismatches);
  return mismatches ? 1 : 0;
}
