/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which NvBufSurfaces the element reads, and the refusal of every other, naming what was found and
 * the way out. */
#include "nvmm/surface_check.h"

#include <gtest/gtest.h>

#include <cstring>

#include "nvmm/library.h"

namespace {

struct Frame {
  nvmm::NvBufSurface surf{};
  nvmm::NvBufSurfaceParams params[2]{};
  Frame (nvmm::NvBufSurfaceColorFormat f, nvmm::NvBufSurfaceLayout l)
  {
    surf.batchSize = surf.numFilled = 1;
    surf.memType = nvmm::NVBUF_MEM_SURFACE_ARRAY;
    surf.surfaceList = params;
    params[0].width = 1920;
    params[0].height = 1080;
    params[0].colorFormat = f;
    params[0].layout = l;
    /* Never valid for SURFACE_ARRAY: a check that read it would crash here. */
    params[0].dataPtr = reinterpret_cast<void *> (uintptr_t (0xdead0000));
  }
};

constexpr nvmm::Expected kNv12{nvmm::Format::kNV12, 1920, 1080, false};
constexpr nvmm::Expected kRgba{nvmm::Format::kRGBA, 1920, 1080, false};

host::Status check (const Frame &f, const nvmm::Expected &e)
{
  return nvmm::check_surface (&f.surf, sizeof (f.surf), e);
}

void expect_refused (const host::Status &st, const char *what)
{
  ASSERT_FALSE (st.ok ()) << what;
  EXPECT_NE (st.message.find (what), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("Cannot read this memory:NVMM frame"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("nvvidconv"), std::string::npos) << st.message;
  EXPECT_NE (st.message.find ("cudaupload"), std::string::npos) << st.message;
}

TEST (NvmmSurfaceCheck, ReadsBothLayoutsOfBothFormats)
{
  for (auto l : {nvmm::NVBUF_LAYOUT_PITCH, nvmm::NVBUF_LAYOUT_BLOCK_LINEAR}) {
    for (auto f :
         {nvmm::NVBUF_COLOR_FORMAT_NV12, nvmm::NVBUF_COLOR_FORMAT_NV12_ER, nvmm::NVBUF_COLOR_FORMAT_NV12_709,
          nvmm::NVBUF_COLOR_FORMAT_NV12_709_ER, nvmm::NVBUF_COLOR_FORMAT_NV12_2020})
      EXPECT_TRUE (check (Frame (f, l), kNv12).ok ()) << check (Frame (f, l), kNv12).message;
    EXPECT_TRUE (check (Frame (nvmm::NVBUF_COLOR_FORMAT_RGBA, l), kRgba).ok ());
  }
}

TEST (NvmmSurfaceCheck, RefusesABatch)
{
  Frame f (nvmm::NVBUF_COLOR_FORMAT_NV12, nvmm::NVBUF_LAYOUT_BLOCK_LINEAR);
  f.surf.batchSize = 2;
  f.surf.numFilled = 2;
  expect_refused (check (f, kNv12), "a batch (batchSize 2, numFilled 2)");
  f.surf.batchSize = 4;
  f.surf.numFilled = 1;
  expect_refused (check (f, kNv12), "batchSize 4");
}

TEST (NvmmSurfaceCheck, RefusesOtherMemoryTypes)
{
  Frame f (nvmm::NVBUF_COLOR_FORMAT_NV12, nvmm::NVBUF_LAYOUT_PITCH);
  for (auto m : {nvmm::NVBUF_MEM_CUDA_PINNED, nvmm::NVBUF_MEM_CUDA_DEVICE, nvmm::NVBUF_MEM_CUDA_UNIFIED,
                 nvmm::NVBUF_MEM_HANDLE, nvmm::NVBUF_MEM_SYSTEM}) {
    f.surf.memType = m;
    const std::string found =
        std::string ("memType ") + nvmm::mem_type_name (m) + " (" + std::to_string (int (m)) + ")";
    expect_refused (check (f, kNv12), found.c_str ());
  }
  f.surf.memType = nvmm::NvBufSurfaceMemType (42);
  expect_refused (check (f, kNv12), "memType unknown memType (42)");
}

TEST (NvmmSurfaceCheck, DefaultMemoryIsSurfaceArrayOnlyOnJetson)
{
  Frame f (nvmm::NVBUF_COLOR_FORMAT_NV12, nvmm::NVBUF_LAYOUT_PITCH);
  f.surf.memType = nvmm::NVBUF_MEM_DEFAULT;
  expect_refused (check (f, kNv12), "memType NVBUF_MEM_DEFAULT (0)");
  nvmm::Expected jetson = kNv12;
  jetson.default_is_surface_array = true;
  EXPECT_TRUE (check (f, jetson).ok ());
}

TEST (NvmmSurfaceCheck, RefusesUnknownLayouts)
{
  Frame f (nvmm::NVBUF_COLOR_FORMAT_RGBA, nvmm::NvBufSurfaceLayout (2));
  expect_refused (check (f, kRgba), "layout unknown layout (2)");
}

TEST (NvmmSurfaceCheck, RefusesAFormatOrSizeOtherThanTheCaps)
{
  expect_refused (check (Frame (nvmm::NVBUF_COLOR_FORMAT_RGBA, nvmm::NVBUF_LAYOUT_PITCH), kNv12),
                  "colorFormat NVBUF_COLOR_FORMAT_RGBA (19) where the caps say NV12");
  expect_refused (check (Frame (nvmm::NVBUF_COLOR_FORMAT_NV12, nvmm::NVBUF_LAYOUT_PITCH), kRgba),
                  "colorFormat NVBUF_COLOR_FORMAT_NV12 (6) where the caps say RGBA");
  expect_refused (check (Frame (nvmm::NvBufSurfaceColorFormat (20), nvmm::NVBUF_LAYOUT_PITCH), kRgba),
                  "a colour format other than NV12 and RGBA (20)");
  Frame f (nvmm::NVBUF_COLOR_FORMAT_NV12, nvmm::NVBUF_LAYOUT_BLOCK_LINEAR);
  f.params[0].height = 1088;
  expect_refused (check (f, kNv12), "a 1920x1088 surface where the caps say 1920x1080");
}

TEST (NvmmSurfaceCheck, RefusesWhatIsNoSurface)
{
  Frame f (nvmm::NVBUF_COLOR_FORMAT_NV12, nvmm::NVBUF_LAYOUT_PITCH);
  expect_refused (nvmm::check_surface (&f.surf, 16, kNv12),
                  "maps to 16 bytes, not an NvBufSurface (64 bytes)");
  expect_refused (nvmm::check_surface (nullptr, 0, kNv12), "maps to 0 bytes");
  f.surf.surfaceList = nullptr;
  expect_refused (check (f, kNv12), "no surfaceList");
}

}  // namespace
