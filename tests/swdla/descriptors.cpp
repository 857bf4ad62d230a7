/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "descriptors.h"

#include <cstring>
#include <sstream>

namespace swdla {
namespace {

struct Name {
  const char *name;
  uint32_t flag;
};
constexpr Name kNames[] = {
    {"orin", kReadingOrin},
    {"c-padded", kReadingCPadded},
    {"c-real", kReadingCReal},
    {"strides-zero", kReadingStridesZero},
    {"strides-whcn", kReadingStridesWhcn},
    {"codes-nchw", kReadingCodesNchw},
    {"codes-unknown", kReadingCodesUnknown},
};

}  // namespace

const char *reading_names ()
{
  return "orin, c-padded, c-real, strides-zero, strides-whcn, codes-nchw, codes-unknown";
}

bool parse_reading (const char *text, uint32_t *flags, std::string *why)
{
  *flags = kReadingOrin;
  if (!text)
    return true;
  std::stringstream ss (text);
  std::string item;
  while (std::getline (ss, item, ',')) {
    if (item.empty ())
      continue;
    bool known = false;
    for (const Name &n : kNames)
      if (item == n.name) {
        *flags |= n.flag;
        known = true;
      }
    if (!known) {
      if (why)
        *why = "SWDLA_DESCRIPTOR_READING: unknown reading '" + item + "' (known: " + reading_names () + ")";
      return false;
    }
  }
  if ((*flags & kReadingCPadded) && (*flags & kReadingCReal)) {
    if (why)
      *why = "SWDLA_DESCRIPTOR_READING: c-padded and c-real exclude each other";
    return false;
  }
  if ((*flags & kReadingStridesZero) && (*flags & kReadingStridesWhcn)) {
    if (why)
      *why = "SWDLA_DESCRIPTOR_READING: strides-zero and strides-whcn exclude each other";
    return false;
  }
  return true;
}

void fill_descriptor (const TensorSpec &t, uint32_t reading, cudlaModuleTensorDescriptor *d)
{
  std::memset (d, 0, sizeof *d);
  std::strncpy (d->name, t.name.c_str (), CUDLA_RUNTIME_TENSOR_DESC_NAME_MAX_LEN);
  tensor::View v;
  t.view (&v);
  const bool fp16 = t.type == tensor::ElemType::kFp16;
  const uint32_t elem = uint32_t (tensor::elem_size (t.type));
  d->size = uint64_t (v.size);
  d->n = uint64_t (t.n);
  d->c = uint64_t (t.c);
  d->h = uint64_t (t.h);
  d->w = uint64_t (t.w);
  d->dataType = fp16 ? CUDLA_DATA_TYPE_HALF : CUDLA_DATA_TYPE_INT8;
  d->pixelMapping = CUDLA_PIXEL_MAPPING_PITCH_LINEAR;
  /* The real dump (docs/cudla.md 5.4): stride[0] element bytes, [1] row bytes, [2] plane bytes (0 for
   * an image-format tensor), [3] repeats [2]. */
  d->stride[0] = elem;
  d->stride[1] = uint32_t (v.row_stride);
  switch (t.layout) {
    case tensor::Layout::kChw16:
    case tensor::Layout::kChw32:
      d->dataFormat = CUDLA_DATA_FORMAT_NCxHWx;
      d->dataCategory = CUDLA_DATA_CATEGORY_FEATURE;
      d->pixelFormat = CUDLA_PIXEL_FORMAT_FEATURE;
      d->stride[2] = d->stride[3] = uint32_t (v.plane_stride);
      break;
    case tensor::Layout::kDlaLinear:
      /* Dump: INT8 dla_linear = NCHW / PLANAR / R8; FP16 by analogy R16_F. */
      d->dataFormat = CUDLA_DATA_FORMAT_NCHW;
      d->dataCategory = CUDLA_DATA_CATEGORY_PLANAR;
      d->pixelFormat = fp16 ? CUDLA_PIXEL_FORMAT_R16_F : CUDLA_PIXEL_FORMAT_R8;
      d->stride[2] = d->stride[3] = uint32_t (v.plane_stride);
      break;
    case tensor::Layout::kDlaHwc4:
      /* Dump: INT8 hwc4 = NHWC / IMAGE / A8B8G8R8, c = 4 (the padded pixel), strides 1, row, 0, 0. */
      d->dataFormat = CUDLA_DATA_FORMAT_NHWC;
      d->dataCategory = CUDLA_DATA_CATEGORY_IMAGE;
      if (v.lanes == 1)
        d->pixelFormat = fp16 ? CUDLA_PIXEL_FORMAT_R16_F : CUDLA_PIXEL_FORMAT_R8;
      else
        d->pixelFormat = fp16 ? CUDLA_PIXEL_FORMAT_A16B16G16R16_F : CUDLA_PIXEL_FORMAT_A8B8G8R8;
      d->c = uint64_t (v.lanes);
      break;
  }
  if (reading & kReadingCPadded)
    d->c = uint64_t (v.padded_channels ());
  if (reading & kReadingCReal)
    d->c = uint64_t (t.c);
  if (reading & kReadingStridesZero)
    std::memset (d->stride, 0, sizeof d->stride);
  if (reading & kReadingStridesWhcn) {
    std::memset (d->stride, 0, sizeof d->stride);
    d->stride[0] = uint32_t (v.pixel_stride ());
    d->stride[1] = uint32_t (v.row_stride);
    d->stride[2] = uint32_t (v.plane_stride);
    d->stride[3] = uint32_t (v.batch_stride);
  }
  if (reading & kReadingCodesNchw) {
    if (t.layout == tensor::Layout::kChw16 || t.layout == tensor::Layout::kChw32)
      d->dataFormat = CUDLA_DATA_FORMAT_NCHW;
    if (t.layout == tensor::Layout::kDlaLinear)
      d->pixelFormat = CUDLA_PIXEL_FORMAT_R8;
  }
  if (reading & kReadingCodesUnknown) {
    d->dataFormat = CUDLA_DATA_FORMAT_UNKNOWN;
    d->dataCategory = CUDLA_DATA_CATEGORY_IMAGE;
    d->pixelFormat = CUDLA_PIXEL_FORMAT_UNKNOWN;
  }
  if (t.report_data_type >= 0)
    d->dataType = uint8_t (t.report_data_type);
}

}  // namespace swdla
