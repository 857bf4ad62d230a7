/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Our CUeglFrame against the CUDA toolkit's cudaEGL.h, where the toolkit and EGL's headers are
 * installed (the NvBufSurface side is checked against NVIDIA's header by the Orin kit). */
#include <gtest/gtest.h>

#include <cstddef>

#include "nvmm/abi/nvbufsurface_abi.h"

#if __has_include(<cudaEGL.h>) && __has_include(<EGL/egl.h>) && __has_include(<EGL/eglext.h>)
#include <cudaEGL.h>
#define HAVE_CUDA_EGL 1
#endif

namespace {

TEST (NvmmAbi, EglFrameMatchesCudaEgl)
{
#ifdef HAVE_CUDA_EGL
  static_assert (sizeof (nvmm::EglFrame) == sizeof (CUeglFrame), "CUeglFrame size");
  static_assert (offsetof (nvmm::EglFrame, width) == offsetof (CUeglFrame, width), "width");
  static_assert (offsetof (nvmm::EglFrame, pitch) == offsetof (CUeglFrame, pitch), "pitch");
  static_assert (offsetof (nvmm::EglFrame, planeCount) == offsetof (CUeglFrame, planeCount), "planeCount");
  static_assert (offsetof (nvmm::EglFrame, numChannels) == offsetof (CUeglFrame, numChannels), "numChannels");
  static_assert (offsetof (nvmm::EglFrame, frameType) == offsetof (CUeglFrame, frameType), "frameType");
  static_assert (offsetof (nvmm::EglFrame, eglColorFormat) == offsetof (CUeglFrame, eglColorFormat),
                 "colour");
  static_assert (offsetof (nvmm::EglFrame, cuFormat) == offsetof (CUeglFrame, cuFormat), "cuFormat");
  EXPECT_EQ (int (CU_EGL_FRAME_TYPE_ARRAY), int (nvmm::kEglFrameArray));
  EXPECT_EQ (int (CU_EGL_FRAME_TYPE_PITCH), int (nvmm::kEglFramePitch));
  EXPECT_EQ (int (CU_AD_FORMAT_UNSIGNED_INT8), nvmm::kCuArrayUint8);
  EXPECT_EQ (unsigned (CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY), nvmm::kRegisterReadOnly);
  EXPECT_EQ (MAX_PLANES, nvmm::kEglMaxPlanes);
#else
  GTEST_SKIP () << "no cudaEGL.h with EGL headers here: the Orin kit checks the frame's layout";
#endif
}

}  // namespace
