/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: our own declaration of the part of Jetson's NvBufSurface ABI (libnvbufsurface.so)
 * and of the CUDA driver's EGL interop that the NVMM import uses.
 *
 * NVIDIA's nvbufsurface.h may not be redistributed, so nothing here comes from it: the fields,
 * enum values and prototypes are declared from its public documentation (docs/nvmm.md 2), in
 * namespace nvmm so that the Orin kit can compile this file beside the real header and compare
 * (pipelines/orin-kit/nvmm_abi_check.cpp). The static_asserts pin the LP64 layout the kit checks;
 * a change there is an ABI change, not an edit. */
#pragma once

#include <cstddef>
#include <cstdint>

namespace nvmm {

constexpr int kStructurePadding = 4; /* STRUCTURE_PADDING: the reserved tails */
constexpr int kMaxPlanes = 4;        /* NVBUF_MAX_PLANES */

/* NvBufSurfaceMemType: where a batch's buffers live. */
enum NvBufSurfaceMemType : int {
  NVBUF_MEM_DEFAULT = 0, /* SURFACE_ARRAY on Jetson, CUDA_DEVICE on a discrete GPU */
  NVBUF_MEM_CUDA_PINNED = 1,
  NVBUF_MEM_CUDA_DEVICE = 2,
  NVBUF_MEM_CUDA_UNIFIED = 3,
  NVBUF_MEM_SURFACE_ARRAY = 4, /* Jetson hardware memory: decoders, the camera, VIC */
  NVBUF_MEM_HANDLE = 5,
  NVBUF_MEM_SYSTEM = 6,
};

/* NvBufSurfaceLayout. */
enum NvBufSurfaceLayout : int {
  NVBUF_LAYOUT_PITCH = 0,
  NVBUF_LAYOUT_BLOCK_LINEAR = 1,
};

/* The NvBufSurfaceColorFormat values the element reads (the enum has ~100 more). */
enum NvBufSurfaceColorFormat : int {
  NVBUF_COLOR_FORMAT_INVALID = 0,
  NVBUF_COLOR_FORMAT_NV12 = 6,
  NVBUF_COLOR_FORMAT_NV12_ER = 7,
  NVBUF_COLOR_FORMAT_RGBA = 19,
  NVBUF_COLOR_FORMAT_NV12_709 = 33,
  NVBUF_COLOR_FORMAT_NV12_709_ER = 34,
  NVBUF_COLOR_FORMAT_NV12_2020 = 36,
};

struct NvBufSurfacePlaneParams {
  uint32_t num_planes;
  uint32_t width[kMaxPlanes];
  uint32_t height[kMaxPlanes];
  uint32_t pitch[kMaxPlanes]; /* bytes */
  uint32_t offset[kMaxPlanes];
  uint32_t psize[kMaxPlanes];
  uint32_t bytesPerPix[kMaxPlanes];
  void *_reserved[kStructurePadding * kMaxPlanes];
};

struct NvBufSurfaceMappedAddr {
  void *addr[kMaxPlanes]; /* CPU mappings (NvBufSurfaceMap) */
  void *eglImage;         /* NvBufSurfaceMapEglImage's EGLImageKHR */
  void *_reserved[kStructurePadding];
};

/* One buffer of a batch. dataPtr is not valid for NVBUF_MEM_SURFACE_ARRAY: the element never reads
 * it (the stand-in poisons it). */
struct NvBufSurfaceParams {
  uint32_t width;
  uint32_t height;
  uint32_t pitch;
  NvBufSurfaceColorFormat colorFormat;
  NvBufSurfaceLayout layout;
  uint64_t bufferDesc; /* dma-buf fd (SURFACE_ARRAY, HANDLE) */
  uint32_t dataSize;
  void *dataPtr;
  NvBufSurfacePlaneParams planeParams;
  NvBufSurfaceMappedAddr mappedAddr;
  void *paramex; /* NvBufSurfaceParamsEx *; a reserved slot in older headers */
  void *_reserved[kStructurePadding - 1];
};

/* What mapping a memory:NVMM GstBuffer gives. */
struct NvBufSurface {
  uint32_t gpuId;
  uint32_t batchSize;
  uint32_t numFilled;
  bool isContiguous;
  NvBufSurfaceMemType memType;
  NvBufSurfaceParams *surfaceList;
  void *_reserved[kStructurePadding];
};

/* libnvbufsurface.so: 0 on success, -1 otherwise; index = the buffer in the batch (-1: all). */
using NvBufSurfaceMapEglImageFn = int (*) (NvBufSurface *surf, int index);
using NvBufSurfaceUnMapEglImageFn = int (*) (NvBufSurface *surf, int index);

/* The CUDA driver's EGL interop (cudaEGL.h's CUeglFrame and three calls), opaque handles as void *. */
constexpr int kEglMaxPlanes = 3; /* MAX_PLANES in cudaEGL.h */
enum EglFrameType : int { kEglFrameArray = 0, kEglFramePitch = 1 };
constexpr int kCuArrayUint8 = 0x01;          /* CU_AD_FORMAT_UNSIGNED_INT8 */
constexpr unsigned kRegisterReadOnly = 0x01; /* CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY */

struct EglFrame {
  union {
    void *pArray[kEglMaxPlanes]; /* CUarray (= cudaArray_t) per plane: block-linear surfaces */
    void *pPitch[kEglMaxPlanes]; /* device pointers per plane: pitch-linear surfaces */
  } frame;
  unsigned int width, height, depth;
  unsigned int pitch; /* of the first plane; pitch frames only */
  unsigned int planeCount;
  unsigned int numChannels;
  EglFrameType frameType;
  int eglColorFormat; /* CUeglColorFormat */
  int cuFormat;       /* CUarray_format */
};

using GraphicsResource = void *; /* CUgraphicsResource */
using CuResult = int;            /* CUresult; 0 = CUDA_SUCCESS */
using GraphicsEGLRegisterImageFn = CuResult (*) (GraphicsResource *resource, void *egl_image, unsigned flags);
using GraphicsResourceGetMappedEglFrameFn = CuResult (*) (EglFrame *frame, GraphicsResource resource,
                                                          unsigned index, unsigned mip_level);
using GraphicsUnregisterResourceFn = CuResult (*) (GraphicsResource resource);

/* The layout every consumer of the ABI assumes (LP64: Jetson aarch64 and x86-64). */
static_assert (sizeof (NvBufSurfaceMemType) == 4 && sizeof (NvBufSurfaceLayout) == 4 &&
                   sizeof (NvBufSurfaceColorFormat) == 4,
               "C enums are ints");
static_assert (sizeof (NvBufSurfacePlaneParams) == 232, "NvBufSurfacePlaneParams size");
static_assert (offsetof (NvBufSurfacePlaneParams, pitch) == 36, "planeParams.pitch");
static_assert (offsetof (NvBufSurfacePlaneParams, offset) == 52, "planeParams.offset");
static_assert (offsetof (NvBufSurfacePlaneParams, bytesPerPix) == 84, "planeParams.bytesPerPix");
static_assert (offsetof (NvBufSurfacePlaneParams, _reserved) == 104, "planeParams._reserved");
static_assert (sizeof (NvBufSurfaceMappedAddr) == 72, "NvBufSurfaceMappedAddr size");
static_assert (offsetof (NvBufSurfaceMappedAddr, eglImage) == 32, "mappedAddr.eglImage");
static_assert (sizeof (NvBufSurfaceParams) == 384, "NvBufSurfaceParams size");
static_assert (offsetof (NvBufSurfaceParams, colorFormat) == 12, "colorFormat");
static_assert (offsetof (NvBufSurfaceParams, layout) == 16, "layout");
static_assert (offsetof (NvBufSurfaceParams, bufferDesc) == 24, "bufferDesc");
static_assert (offsetof (NvBufSurfaceParams, dataSize) == 32, "dataSize");
static_assert (offsetof (NvBufSurfaceParams, dataPtr) == 40, "dataPtr");
static_assert (offsetof (NvBufSurfaceParams, planeParams) == 48, "planeParams");
static_assert (offsetof (NvBufSurfaceParams, mappedAddr) == 280, "mappedAddr");
static_assert (offsetof (NvBufSurfaceParams, paramex) == 352, "paramex");
static_assert (sizeof (NvBufSurface) == 64, "NvBufSurface size");
static_assert (offsetof (NvBufSurface, batchSize) == 4, "batchSize");
static_assert (offsetof (NvBufSurface, numFilled) == 8, "numFilled");
static_assert (offsetof (NvBufSurface, isContiguous) == 12, "isContiguous");
static_assert (offsetof (NvBufSurface, memType) == 16, "memType");
static_assert (offsetof (NvBufSurface, surfaceList) == 24, "surfaceList");
static_assert (sizeof (EglFrame) == 64, "CUeglFrame size");
static_assert (offsetof (EglFrame, width) == 24, "CUeglFrame.width");
static_assert (offsetof (EglFrame, pitch) == 36, "CUeglFrame.pitch");
static_assert (offsetof (EglFrame, planeCount) == 40, "CUeglFrame.planeCount");
static_assert (offsetof (EglFrame, frameType) == 48, "CUeglFrame.frameType");
static_assert (offsetof (EglFrame, cuFormat) == 56, "CUeglFrame.cuFormat");

}  // namespace nvmm
