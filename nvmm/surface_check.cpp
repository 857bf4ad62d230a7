/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "nvmm/surface_check.h"

#include "nvmm/library.h"

namespace nvmm {
namespace {

host::Status refuse (const std::string &what)
{
  return host::Status::Error (host::Code::kRuntime,
                              "Cannot read this memory:NVMM frame: " + what + "; " + kWayOut);
}

bool nv12_family (int f)
{
  return f == NVBUF_COLOR_FORMAT_NV12 || f == NVBUF_COLOR_FORMAT_NV12_ER ||
         f == NVBUF_COLOR_FORMAT_NV12_709 || f == NVBUF_COLOR_FORMAT_NV12_709_ER ||
         f == NVBUF_COLOR_FORMAT_NV12_2020;
}

std::string named (const char *name, int value)
{
  return std::string (name) + " (" + std::to_string (value) + ")";
}

}  // namespace

const char *mem_type_name (int m)
{
  switch (m) {
    case NVBUF_MEM_DEFAULT:
      return "NVBUF_MEM_DEFAULT";
    case NVBUF_MEM_CUDA_PINNED:
      return "NVBUF_MEM_CUDA_PINNED";
    case NVBUF_MEM_CUDA_DEVICE:
      return "NVBUF_MEM_CUDA_DEVICE";
    case NVBUF_MEM_CUDA_UNIFIED:
      return "NVBUF_MEM_CUDA_UNIFIED";
    case NVBUF_MEM_SURFACE_ARRAY:
      return "NVBUF_MEM_SURFACE_ARRAY";
    case NVBUF_MEM_HANDLE:
      return "NVBUF_MEM_HANDLE";
    case NVBUF_MEM_SYSTEM:
      return "NVBUF_MEM_SYSTEM";
    default:
      return "unknown memType";
  }
}

const char *layout_name (int l)
{
  return l == NVBUF_LAYOUT_PITCH          ? "NVBUF_LAYOUT_PITCH"
         : l == NVBUF_LAYOUT_BLOCK_LINEAR ? "NVBUF_LAYOUT_BLOCK_LINEAR"
                                          : "unknown layout";
}

const char *color_format_name (int f)
{
  switch (f) {
    case NVBUF_COLOR_FORMAT_NV12:
      return "NVBUF_COLOR_FORMAT_NV12";
    case NVBUF_COLOR_FORMAT_NV12_ER:
      return "NVBUF_COLOR_FORMAT_NV12_ER";
    case NVBUF_COLOR_FORMAT_NV12_709:
      return "NVBUF_COLOR_FORMAT_NV12_709";
    case NVBUF_COLOR_FORMAT_NV12_709_ER:
      return "NVBUF_COLOR_FORMAT_NV12_709_ER";
    case NVBUF_COLOR_FORMAT_NV12_2020:
      return "NVBUF_COLOR_FORMAT_NV12_2020";
    case NVBUF_COLOR_FORMAT_RGBA:
      return "NVBUF_COLOR_FORMAT_RGBA";
    default:
      return "a colour format other than NV12 and RGBA";
  }
}

host::Status check_surface (const void *data, size_t size, const Expected &e)
{
  if (!data || size < sizeof (NvBufSurface))
    return refuse ("its memory maps to " + std::to_string (size) + " bytes, not an NvBufSurface (" +
                   std::to_string (sizeof (NvBufSurface)) + " bytes)");
  const NvBufSurface &s = *static_cast<const NvBufSurface *> (data);
  if (s.batchSize != 1 || s.numFilled != 1)
    return refuse ("a batch (batchSize " + std::to_string (s.batchSize) + ", numFilled " +
                   std::to_string (s.numFilled) +
                   "): the element reads one frame per buffer, not nvstreammux batches");
  const bool array =
      s.memType == NVBUF_MEM_SURFACE_ARRAY || (s.memType == NVBUF_MEM_DEFAULT && e.default_is_surface_array);
  if (!array)
    return refuse ("memType " + named (mem_type_name (s.memType), s.memType) +
                   ": only NVBUF_MEM_SURFACE_ARRAY (Jetson hardware memory) is imported");
  if (!s.surfaceList)
    return refuse ("the surface has no surfaceList");
  const NvBufSurfaceParams &p = s.surfaceList[0];
  if (p.layout != NVBUF_LAYOUT_PITCH && p.layout != NVBUF_LAYOUT_BLOCK_LINEAR)
    return refuse ("layout " + named (layout_name (p.layout), p.layout) +
                   ": only NVBUF_LAYOUT_PITCH and NVBUF_LAYOUT_BLOCK_LINEAR are read");
  const bool format_ok =
      e.format == Format::kNV12 ? nv12_family (p.colorFormat) : p.colorFormat == NVBUF_COLOR_FORMAT_RGBA;
  if (!format_ok)
    return refuse ("colorFormat " + named (color_format_name (p.colorFormat), p.colorFormat) +
                   " where the caps say " + (e.format == Format::kNV12 ? "NV12" : "RGBA"));
  if (p.width != e.width || p.height != e.height)
    return refuse ("a " + std::to_string (p.width) + "x" + std::to_string (p.height) +
                   " surface where the caps say " + std::to_string (e.width) + "x" +
                   std::to_string (e.height));
  return host::Status::Ok ();
}

}  // namespace nvmm
