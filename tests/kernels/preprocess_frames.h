/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host frames and tensors for the preprocessing tests: allocation, patterns, element read-back. */
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/numeric.h"
#include "common/tensor_layout.h"
#include "kernels/preprocess.h"

namespace preprocess_test {

using preprocess::PixelFormat;

inline bool is_yuv (PixelFormat f)
{
  return f == PixelFormat::kNV12 || f == PixelFormat::kI420;
}

inline const char *format_name (PixelFormat f)
{
  switch (f) {
    case PixelFormat::kNV12:
      return "NV12";
    case PixelFormat::kI420:
      return "I420";
    case PixelFormat::kRGBA:
      return "RGBA";
    case PixelFormat::kBGRA:
      return "BGRA";
    case PixelFormat::kRGBx:
      return "RGBx";
    case PixelFormat::kBGRx:
      return "BGRx";
  }
  return "?";
}

/* A frame in host memory; each plane exactly pitch * rows bytes, so valgrind sees overreads. */
struct HostFrame {
  PixelFormat format = PixelFormat::kNV12;
  int w = 0, h = 0, planes = 0;
  int64_t pitch[3] = {0, 0, 0};
  int rows[3] = {0, 0, 0};
  std::vector<uint8_t> data[3];

  int cw () const { return (w + 1) / 2; }
  int ch () const { return (h + 1) / 2; }
  uint8_t &y (int x, int yy) { return data[0][yy * pitch[0] + x]; }
  uint8_t &u (int x, int yy)
  {
    return format == PixelFormat::kNV12 ? data[1][yy * pitch[1] + 2 * x] : data[1][yy * pitch[1] + x];
  }
  uint8_t &v (int x, int yy)
  {
    return format == PixelFormat::kNV12 ? data[1][yy * pitch[1] + 2 * x + 1] : data[2][yy * pitch[2] + x];
  }
  /* Packed formats: component c (0 R, 1 G, 2 B, 3 A/x) of pixel (x, y). */
  uint8_t &rgb (int x, int yy, int c)
  {
    const bool bgr = format == PixelFormat::kBGRA || format == PixelFormat::kBGRx;
    const int byte = c == 3 ? 3 : bgr ? 2 - c : c;
    return data[0][yy * pitch[0] + 4 * x + byte];
  }

  preprocess::SourceView view (preprocess::Matrix m = preprocess::Matrix::kBT601,
                               preprocess::Range r = preprocess::Range::kLimited, bool cosited_h = false,
                               bool cosited_v = false) const
  {
    preprocess::SourceView s{};
    s.format = format;
    s.width = w;
    s.height = h;
    for (int i = 0; i < 3; ++i) {
      s.planes[i] = i < planes ? data[i].data () : nullptr;
      s.pitches[i] = pitch[i];
    }
    s.chroma_cosited_h = cosited_h;
    s.chroma_cosited_v = cosited_v;
    s.matrix = m;
    s.range = r;
    return s;
  }
};

/* Zeroed frame; `extra` bytes (a multiple of 4) of pitch beyond each row. */
inline HostFrame make_frame (PixelFormat f, int w, int h, int extra = 0)
{
  HostFrame fr;
  fr.format = f;
  fr.w = w;
  fr.h = h;
  if (f == PixelFormat::kNV12) {
    fr.planes = 2;
    fr.pitch[0] = w + extra;
    fr.pitch[1] = 2 * fr.cw () + extra;
    fr.rows[0] = h;
    fr.rows[1] = fr.ch ();
  } else if (f == PixelFormat::kI420) {
    fr.planes = 3;
    fr.pitch[0] = w + extra;
    fr.pitch[1] = fr.pitch[2] = fr.cw () + extra;
    fr.rows[0] = h;
    fr.rows[1] = fr.rows[2] = fr.ch ();
  } else {
    fr.planes = 1;
    fr.pitch[0] = 4 * int64_t (w) + extra;
    fr.rows[0] = h;
  }
  for (int i = 0; i < fr.planes; ++i)
    fr.data[i].assign (size_t (fr.pitch[i] * fr.rows[i]), 0);
  return fr;
}

/* Smooth gradients plus hash noise: edges, ramps and detail in every plane, padding bytes 0x5a. */
inline void fill_pattern (HostFrame &fr, uint32_t seed)
{
  auto noise = [seed] (int x, int y, int c) {
    uint32_t k =
        uint32_t (x) * 73856093u ^ uint32_t (y) * 19349663u ^ uint32_t (c) * 83492791u ^ seed * 2654435761u;
    k ^= k >> 13;
    k *= 0x5bd1e995u;
    k ^= k >> 15;
    return int (k & 63u) - 32;
  };
  auto clamp8 = [] (int v) { return uint8_t (v < 0 ? 0 : v > 255 ? 255 : v); };
  for (int i = 0; i < fr.planes; ++i)
    std::memset (fr.data[i].data (), 0x5a, fr.data[i].size ());
  if (is_yuv (fr.format)) {
    for (int y = 0; y < fr.h; ++y)
      for (int x = 0; x < fr.w; ++x)
        fr.y (x, y) = clamp8 (16 + (x * 219) / (fr.w > 1 ? fr.w : 1) / 2 +
                              (y * 219) / (fr.h > 1 ? fr.h : 1) / 2 + noise (x, y, 0));
    for (int y = 0; y < fr.ch (); ++y)
      for (int x = 0; x < fr.cw (); ++x) {
        fr.u (x, y) = clamp8 (40 + (x * 180) / fr.cw () + noise (x, y, 1));
        fr.v (x, y) = clamp8 (220 - (y * 180) / fr.ch () + noise (x, y, 2));
      }
  } else {
    for (int y = 0; y < fr.h; ++y)
      for (int x = 0; x < fr.w; ++x) {
        fr.rgb (x, y, 0) = clamp8 ((x * 255) / (fr.w > 1 ? fr.w : 1) + noise (x, y, 0));
        fr.rgb (x, y, 1) = clamp8 ((y * 255) / (fr.h > 1 ? fr.h : 1) + noise (x, y, 1));
        fr.rgb (x, y, 2) = clamp8 (128 + noise (x, y, 2) * 3);
        fr.rgb (x, y, 3) = 0xa5;
      }
  }
}

/* A tensor in host memory; 64-byte aligned storage, filled with `fill` to show untouched bytes. */
struct HostTensor {
  tensor::View view{};
  std::vector<uint8_t> storage;
  uint8_t *data = nullptr;

  HostTensor (tensor::Layout l, tensor::ElemType t, int n, int h, int w, uint8_t fill = 0xab)
  {
    tensor::make_view (l, t, n, 3, h, w, &view);
    storage.assign (size_t (view.size + 64), fill);
    data = storage.data () + (64 - reinterpret_cast<uintptr_t> (storage.data ()) % 64) % 64;
  }
  HostTensor (const HostTensor &) = delete;
  HostTensor &operator= (const HostTensor &) = delete;

  /* The element at (n, c, y, x) as a float (INT8 as its integer). */
  float at (int64_t n, int64_t c, int64_t y, int64_t x) const
  {
    const uint8_t *p = data + view.offset (n, c, y, x);
    if (view.type == tensor::ElemType::kFp16) {
      uint16_t hbits;
      std::memcpy (&hbits, p, sizeof hbits);
      return tensor::half_to_float (hbits);
    }
    return float (int8_t (*p));
  }
};

/* The FP16 value a float normalises to (what a correct tensor holds). */
inline float fp16 (float v)
{
  return tensor::half_to_float (tensor::float_to_half (v));
}

}  // namespace preprocess_test
