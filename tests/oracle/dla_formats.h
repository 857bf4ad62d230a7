/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A second, independent implementation of the DLA tensor formats, for tests only.
 *
 * Written from NVIDIA's format descriptions (docs/dla-formats.md) as C-array subscripts, without
 * common/tensor_layout.h, so that a stride, lane or row-padding mistake in that header (which the
 * kernel, swdla and post-processing all share) shows up as a disagreement with this one. */
#pragma once

#include <cstdint>

namespace dla_formats {

enum class Format { kChw16, kChw32, kDlaLinear, kDlaHwc4 };
enum class Type { kFp16, kInt8 };

struct Tensor {
  Format format;
  Type type;
  int64_t n, c, h, w;
};

inline int64_t type_bytes (Type t)
{
  return t == Type::kFp16 ? 2 : 1;
}
inline int64_t ceil_div (int64_t a, int64_t b)
{
  return (a + b - 1) / b;
}
inline int64_t round_up (int64_t a, int64_t b)
{
  return ceil_div (a, b) * b;
}

/* The extents of the C array each format is, innermost last: [d0][d1][d2][d3][d4]. */
struct Extents {
  int64_t d[5];
};

inline Extents extents (const Tensor &t)
{
  switch (t.format) {
    case Format::kChw16: /* [N][ceil(C/16)][H][W][16] */
      return {{t.n, ceil_div (t.c, 16), t.h, t.w, 16}};
    case Format::kChw32: /* [N][ceil(C/32)][H][W][32] */
      return {{t.n, ceil_div (t.c, 32), t.h, t.w, 32}};
    case Format::kDlaLinear: /* [N][C][H][roundUp(W, 64 / elemSize)] */
      return {{t.n, t.c, t.h, round_up (t.w, 64 / type_bytes (t.type)), 1}};
    case Format::kDlaHwc4: { /* [N][H][roundUp(W, 64 / C' / elemSize)][C'] */
      const int64_t cp = t.c == 1 ? 1 : 4;
      return {{t.n, t.h, round_up (t.w, 64 / cp / type_bytes (t.type)), cp, 1}};
    }
  }
  return {{0, 0, 0, 0, 0}};
}

/* The subscripts of element (n, c, h, w) in that array. */
inline void subscripts (const Tensor &t, int64_t n, int64_t c, int64_t h, int64_t w, int64_t s[5])
{
  switch (t.format) {
    case Format::kChw16:
      s[0] = n, s[1] = c / 16, s[2] = h, s[3] = w, s[4] = c % 16;
      return;
    case Format::kChw32:
      s[0] = n, s[1] = c / 32, s[2] = h, s[3] = w, s[4] = c % 32;
      return;
    case Format::kDlaLinear:
      s[0] = n, s[1] = c, s[2] = h, s[3] = w, s[4] = 0;
      return;
    case Format::kDlaHwc4:
      s[0] = n, s[1] = h, s[2] = w, s[3] = c, s[4] = 0;
      return;
  }
}

inline int64_t byte_size (const Tensor &t)
{
  const Extents e = extents (t);
  return e.d[0] * e.d[1] * e.d[2] * e.d[3] * e.d[4] * type_bytes (t.type);
}

/* Row-major linearisation of the subscripts, in bytes. */
inline int64_t byte_offset (const Tensor &t, int64_t n, int64_t c, int64_t h, int64_t w)
{
  const Extents e = extents (t);
  int64_t s[5];
  subscripts (t, n, c, h, w, s);
  int64_t index = 0;
  for (int i = 0; i < 5; ++i)
    index = index * e.d[i] + s[i];
  return index * type_bytes (t.type);
}

}  // namespace dla_formats
