/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tensor descriptors for the dla tests: the real Orin dumps of docs/cudla.md (section 5.4), the
 * expected chw16 ones (section 5.2), and any layout written in each plausible reading. */
#pragma once

#include <cstring>
#include <string>

#include "common/tensor_layout.h"
#include "dla/abi/cudla_abi.h"

namespace fixtures {

inline cudlaModuleTensorDescriptor desc (const char *name, uint64_t size, uint64_t n, uint64_t c, uint64_t h,
                                         uint64_t w, uint8_t fmt, uint8_t type, uint8_t cat, uint8_t pix,
                                         std::initializer_list<uint32_t> strides)
{
  cudlaModuleTensorDescriptor d;
  std::memset (&d, 0, sizeof d);
  std::strncpy (d.name, name, CUDLA_RUNTIME_TENSOR_DESC_NAME_MAX_LEN);
  d.size = size;
  d.n = n;
  d.c = c;
  d.h = h;
  d.w = w;
  d.dataFormat = fmt;
  d.dataType = type;
  d.dataCategory = cat;
  d.pixelFormat = pix;
  int i = 0;
  for (uint32_t s : strides)
    d.stride[i++] = s;
  return d;
}

/* [I192]: INT8 dla_hwc4 input 1x4x512x960, NHWC / INT8 / IMAGE / A8B8G8R8, strides 1, 3840, 0, 0. */
inline cudlaModuleTensorDescriptor orin_hwc4_int8_input ()
{
  return desc ("input", 1966080, 1, 4, 512, 960, CUDLA_DATA_FORMAT_NHWC, CUDLA_DATA_TYPE_INT8,
               CUDLA_DATA_CATEGORY_IMAGE, CUDLA_PIXEL_FORMAT_A8B8G8R8, {1, 3840, 0, 0});
}

/* [I192]: INT8 dla_linear output 1x64x32x60, NCHW / INT8 / PLANAR / 0, strides 1, 64, 2048, 2048. */
inline cudlaModuleTensorDescriptor orin_linear_int8_output ()
{
  return desc ("output", 131072, 1, 64, 32, 60, CUDLA_DATA_FORMAT_NCHW, CUDLA_DATA_TYPE_INT8,
               CUDLA_DATA_CATEGORY_PLANAR, 0, {1, 64, 2048, 2048});
}

/* Section 5.2, expected: FP16 chw16 input 1x3x224x224 (1,605,632 B), output 1x1000x1x1 (2,016 B). */
inline cudlaModuleTensorDescriptor chw16_input_224 (uint64_t c = 3, bool strides = true)
{
  return desc ("data", 1605632, 1, c, 224, 224, CUDLA_DATA_FORMAT_NCxHWx, CUDLA_DATA_TYPE_HALF,
               CUDLA_DATA_CATEGORY_FEATURE, CUDLA_PIXEL_FORMAT_FEATURE,
               strides ? std::initializer_list<uint32_t>{2, 7168, 1605632, 1605632}
                       : std::initializer_list<uint32_t>{});
}

inline cudlaModuleTensorDescriptor chw16_output_1000 (uint64_t c = 1000, bool strides = true)
{
  return desc ("logits", 2016, 1, c, 1, 1, CUDLA_DATA_FORMAT_NCxHWx, CUDLA_DATA_TYPE_HALF,
               CUDLA_DATA_CATEGORY_FEATURE, CUDLA_PIXEL_FORMAT_FEATURE,
               strides ? std::initializer_list<uint32_t>{2, 32, 32, 32} : std::initializer_list<uint32_t>{});
}

/* The plausible readings of docs/cudla.md section 7, combinable. */
enum Reading : unsigned {
  kOrin = 0,
  kCPadded = 1u << 0,      /* c = padded count (16 / 32 / 4) */
  kStridesZero = 1u << 1,  /* stride[] all zero */
  kStridesWhcn = 1u << 2,  /* stride[] = pixel, row, plane, batch bytes */
  kStridesElems = 1u << 3, /* stride[1], stride[2] in elements, not bytes */
  kCodesNchw = 1u << 4,    /* vector layouts report NCHW */
  kCodesUnknown = 1u << 5, /* format, category and pixel format 0 / IMAGE / UNKNOWN */
  kSizeRounded = 1u << 6,  /* size rounded up to 4 KiB */
};

/* A descriptor for a layout as a real loadable would describe it, in a given reading. */
inline cudlaModuleTensorDescriptor for_layout (tensor::Layout l, tensor::ElemType t, int64_t n, int64_t c,
                                               int64_t h, int64_t w, unsigned reading, tensor::View *view)
{
  *view = tensor::View{}; /* stays zero (and the size check fails) for an impossible layout */
  tensor::make_view (l, t, n, c, h, w, view);
  const tensor::View &v = *view;
  const bool fp16 = t == tensor::ElemType::kFp16;
  const uint32_t es = uint32_t (tensor::elem_size (t));
  cudlaModuleTensorDescriptor d =
      desc ("t", uint64_t (v.size), uint64_t (n), uint64_t (c), uint64_t (h), uint64_t (w), 0,
            fp16 ? CUDLA_DATA_TYPE_HALF : CUDLA_DATA_TYPE_INT8, 0, 0, {es, uint32_t (v.row_stride)});
  switch (l) {
    case tensor::Layout::kChw16:
    case tensor::Layout::kChw32:
      d.dataFormat = CUDLA_DATA_FORMAT_NCxHWx;
      d.dataCategory = CUDLA_DATA_CATEGORY_FEATURE;
      d.pixelFormat = CUDLA_PIXEL_FORMAT_FEATURE;
      d.stride[2] = d.stride[3] = uint32_t (v.plane_stride);
      break;
    case tensor::Layout::kDlaLinear:
      d.dataFormat = CUDLA_DATA_FORMAT_NCHW;
      d.dataCategory = CUDLA_DATA_CATEGORY_PLANAR;
      d.pixelFormat = fp16 ? CUDLA_PIXEL_FORMAT_R16_F : CUDLA_PIXEL_FORMAT_R8;
      d.stride[2] = d.stride[3] = uint32_t (v.plane_stride);
      break;
    case tensor::Layout::kDlaHwc4:
      d.dataFormat = CUDLA_DATA_FORMAT_NHWC;
      d.dataCategory = CUDLA_DATA_CATEGORY_IMAGE;
      d.pixelFormat = v.lanes == 1 ? (fp16 ? CUDLA_PIXEL_FORMAT_R16_F : CUDLA_PIXEL_FORMAT_R8)
                                   : (fp16 ? CUDLA_PIXEL_FORMAT_A16B16G16R16_F : CUDLA_PIXEL_FORMAT_A8B8G8R8);
      break;
  }
  if (reading & kCPadded)
    d.c = uint64_t (v.padded_channels ());
  if (reading & kStridesZero)
    std::memset (d.stride, 0, sizeof d.stride);
  if (reading & kStridesWhcn) {
    std::memset (d.stride, 0, sizeof d.stride);
    d.stride[0] = uint32_t (v.pixel_stride ());
    d.stride[1] = uint32_t (v.row_stride);
    d.stride[2] = uint32_t (v.plane_stride);
    d.stride[3] = uint32_t (v.batch_stride);
  }
  if (reading & kStridesElems) {
    d.stride[1] = uint32_t (v.row_stride / es);
    d.stride[2] = d.stride[2] ? uint32_t (v.plane_stride / es) : 0;
  }
  if ((reading & kCodesNchw) && (l == tensor::Layout::kChw16 || l == tensor::Layout::kChw32))
    d.dataFormat = CUDLA_DATA_FORMAT_NCHW;
  if (reading & kCodesUnknown) {
    d.dataFormat = CUDLA_DATA_FORMAT_UNKNOWN;
    d.dataCategory = CUDLA_DATA_CATEGORY_IMAGE;
    d.pixelFormat = CUDLA_PIXEL_FORMAT_UNKNOWN;
  }
  if (reading & kSizeRounded)
    d.size = uint64_t (tensor::round_up (v.size, 4096));
  return d;
}

}  // namespace fixtures
