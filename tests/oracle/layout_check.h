/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Checks of the layout header and of real tensor bytes against the independent format oracle
 * (dla_formats.h). Used by swdla (at module load and, with SWDLA_CHECK_LAYOUT=1, on each task's
 * inputs) and by the layout oracle's unit test. Host-only. */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/tensor_layout.h"
#include "dla_formats.h"

namespace layout_check {

inline dla_formats::Tensor oracle_tensor (const tensor::View &v)
{
  using dla_formats::Format;
  const Format f = v.layout == tensor::Layout::kChw16     ? Format::kChw16
                   : v.layout == tensor::Layout::kChw32   ? Format::kChw32
                   : v.layout == tensor::Layout::kDlaHwc4 ? Format::kDlaHwc4
                                                          : Format::kDlaLinear;
  const auto t = v.type == tensor::ElemType::kFp16 ? dla_formats::Type::kFp16 : dla_formats::Type::kInt8;
  return {f, t, v.n, v.c, v.h, v.w};
}

inline std::string at (int64_t n, int64_t c, int64_t h, int64_t w)
{
  return "(n " + std::to_string (n) + ", c " + std::to_string (c) + ", h " + std::to_string (h) + ", w " +
         std::to_string (w) + ")";
}

/* "" when the header's view places every element and sizes the tensor as the oracle does. */
inline std::string compare (const tensor::View &v)
{
  const dla_formats::Tensor t = oracle_tensor (v);
  if (v.size != dla_formats::byte_size (t))
    return "size " + std::to_string (v.size) + " bytes, the format says " +
           std::to_string (dla_formats::byte_size (t));
  for (int64_t n = 0; n < v.n; ++n)
    for (int64_t c = 0; c < v.c; ++c)
      for (int64_t h = 0; h < v.h; ++h)
        for (int64_t w = 0; w < v.w; ++w)
          if (v.offset (n, c, h, w) != dla_formats::byte_offset (t, n, c, h, w))
            return "element " + at (n, c, h, w) + " at byte " + std::to_string (v.offset (n, c, h, w)) +
                   ", the format says " + std::to_string (dla_formats::byte_offset (t, n, c, h, w));
  return "";
}

/* "" when every byte the oracle says is padding (pad lanes, row tails) is zero, as the element
 * writes it. */
inline std::string check_padding (const dla_formats::Tensor &t, const uint8_t *bytes, size_t size)
{
  if (int64_t (size) < dla_formats::byte_size (t))
    return "buffer of " + std::to_string (size) + " bytes, the format needs " +
           std::to_string (dla_formats::byte_size (t));
  std::vector<bool> data (size_t (dla_formats::byte_size (t)), false);
  const int64_t eb = dla_formats::type_bytes (t.type);
  for (int64_t n = 0; n < t.n; ++n)
    for (int64_t c = 0; c < t.c; ++c)
      for (int64_t h = 0; h < t.h; ++h)
        for (int64_t w = 0; w < t.w; ++w)
          for (int64_t b = 0; b < eb; ++b)
            data[size_t (dla_formats::byte_offset (t, n, c, h, w) + b)] = true;
  for (size_t i = 0; i < data.size (); ++i)
    if (!data[i] && bytes[i] != 0)
      return "padding byte " + std::to_string (i) + " is " + std::to_string (bytes[i]) + ", not 0";
  return "";
}

}  // namespace layout_check
