/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small fake libnvbufsurface.so files for the loader's CPU tests: FAKE_PARTIAL exports one of the
 * two calls; FAKE_STAND_IN says it is the stand-in and gives every call (none is called). */
#include "nvmm/abi/nvbufsurface_abi.h"

#define FAKE_EXPORT extern "C" __attribute__ ((visibility ("default")))

FAKE_EXPORT int NvBufSurfaceMapEglImage (nvmm::NvBufSurface *, int)
{
  return -1;
}

#ifdef FAKE_STAND_IN
FAKE_EXPORT int NvBufSurfaceUnMapEglImage (nvmm::NvBufSurface *, int)
{
  return -1;
}
FAKE_EXPORT const char *nvmmStandInName (void)
{
  return "fake-stand-in";
}
FAKE_EXPORT int cuGraphicsEGLRegisterImage (void **, void *, unsigned)
{
  return 1;
}
FAKE_EXPORT int cuGraphicsResourceGetMappedEglFrame (nvmm::EglFrame *, void *, unsigned, unsigned)
{
  return 1;
}
FAKE_EXPORT int cuGraphicsUnregisterResource (void *)
{
  return 1;
}
#endif
