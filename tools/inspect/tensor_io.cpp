/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tools/inspect/tensor_io.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "common/numeric.h"

namespace inspect {

bool read_f32 (const std::string &path, std::vector<float> *out)
{
  std::ifstream f (path, std::ios::binary);
  if (!f)
    return false;
  std::vector<char> b ((std::istreambuf_iterator<char> (f)), std::istreambuf_iterator<char> ());
  if (b.size () % 4)
    return false;
  out->resize (b.size () / 4);
  std::memcpy (out->data (), b.data (), b.size ());
  return true;
}

void pack (const tensor::View &v, const float *dense, int64_t c_dense, float scale, std::vector<uint8_t> *out)
{
  out->assign (size_t (v.size), 0);
  size_t i = 0;
  for (int64_t n = 0; n < v.n; ++n)
    for (int64_t c = 0; c < c_dense; ++c)
      for (int64_t y = 0; y < v.h; ++y)
        for (int64_t x = 0; x < v.w; ++x) {
          uint8_t *p = out->data () + v.offset (n, c, y, x);
          if (v.type == tensor::ElemType::kFp16) {
            const uint16_t h = tensor::float_to_half (dense[i++]);
            std::memcpy (p, &h, 2);
          } else {
            *p = uint8_t (tensor::quantize_int8 (dense[i++], scale));
          }
        }
}

std::vector<float> unpack (const tensor::View &v, const uint8_t *bytes, float scale)
{
  std::vector<float> out;
  out.reserve (size_t (v.n * v.c * v.h * v.w));
  for (int64_t n = 0; n < v.n; ++n)
    for (int64_t c = 0; c < v.c; ++c)
      for (int64_t y = 0; y < v.h; ++y)
        for (int64_t x = 0; x < v.w; ++x) {
          const uint8_t *p = bytes + v.offset (n, c, y, x);
          if (v.type == tensor::ElemType::kFp16) {
            uint16_t h;
            std::memcpy (&h, p, 2);
            out.push_back (tensor::half_to_float (h));
          } else {
            out.push_back (tensor::dequantize_int8 (int8_t (*p), scale));
          }
        }
  return out;
}

uint64_t checksum (const std::vector<float> &v)
{
  uint64_t h = 1469598103934665603ull;
  for (float f : v) {
    uint32_t u;
    std::memcpy (&u, &f, 4);
    for (int k = 0; k < 4; ++k) {
      h ^= (u >> (8 * k)) & 0xff;
      h *= 1099511628211ull;
    }
  }
  return h;
}

int compare (const std::vector<float> &got, const tensor::View &v, const Options &o)
{
  std::vector<float> want;
  if (!read_f32 (o.expect, &want) || want.empty () || want.size () % size_t (v.n * v.h * v.w)) {
    std::printf ("compare: result=FAIL reason=cannot read '%s' as float32 %ldx?x%ldx%ld\n", o.expect.c_str (),
                 long (v.n), long (v.h), long (v.w));
    return kRunFailed;
  }
  /* The expected file holds the real channels; the descriptor may report padded ones. */
  const int64_t ce = int64_t (want.size ()) / (v.n * v.h * v.w);
  if (ce > v.c) {
    std::printf ("compare: result=FAIL reason=expected %ld channels, the output has %ld\n", long (ce),
                 long (v.c));
    return kRunFailed;
  }
  const bool int8 = v.type == tensor::ElemType::kInt8;
  float peak = 1.f;
  for (float x : want)
    peak = std::max (peak, std::fabs (x));
  const float ulp = std::ldexp (1.f, int (std::floor (std::log2 (peak))) - 10);
  const float tol = int8 ? o.steps * o.output_scale * 1.0001f : o.ulps * ulp;
  double max_diff = 0;
  bool argmax_ok = true;
  for (int64_t n = 0; n < v.n; ++n) {
    int64_t ag = 0, aw = 0;
    const int64_t plane = v.h * v.w;
    for (int64_t c = 0; c < ce; ++c)
      for (int64_t p = 0; p < plane; ++p) {
        const float g = got[size_t ((n * v.c + c) * plane + p)], e = want[size_t ((n * ce + c) * plane + p)];
        max_diff = std::max (max_diff, double (std::fabs (g - e)));
        if (plane == 1) {
          if (g > got[size_t ((n * v.c + ag) * plane)])
            ag = c;
          if (e > want[size_t ((n * ce + aw) * plane)])
            aw = c;
        }
      }
    if (plane == 1 && ag != aw && want[size_t (n * ce + aw)] - want[size_t (n * ce + ag)] > tol)
      argmax_ok = false;
  }
  const bool ok = max_diff <= tol && argmax_ok;
  std::printf ("compare: result=%s max_abs_diff=%.6g tolerance=%.6g (%s) argmax_equal=%s\n",
               ok ? "PASS" : "FAIL", max_diff, tol,
               int8 ? (std::to_string (o.steps) + " int8 steps").c_str ()
                    : (std::to_string (o.ulps) + " fp16 ulps").c_str (),
               argmax_ok ? "yes" : "no");
  return ok ? kOk : kRunFailed;
}

}  // namespace inspect
