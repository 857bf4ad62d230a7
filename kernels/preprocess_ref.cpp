/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU reference of preprocess::launch: the definition of correctness (conventions in
 * preprocess.h). Written for clarity, in double up to the normalisation, which is float as in the
 * kernel; it shares only the argument checks and the per-ROI geometry with the CUDA code. */
#include <cmath>
#include <cstring>
#include <vector>

#include "common/numeric.h"
#include "kernels/preprocess_plan.h"

namespace preprocess {
namespace {

/* The normalised triangle-filter weights of one output sample along one axis. */
struct Taps {
  int first = 0;
  std::vector<double> w;
};

/* Taps for centre `c` (continuous coordinates) over samples [lo, hi): support 1, or the downscale
 * factor with antialias (Pillow's BILINEAR, torchvision's antialias=True). */
Taps make_taps (double c, double scale, bool antialias, int lo, int hi)
{
  const double support = antialias && scale > 1.0 ? scale : 1.0;
  int first = int (std::floor (c - support - 0.5));
  int last = int (std::ceil (c + support - 0.5));
  first = first < lo ? lo : first;
  last = last > hi - 1 ? hi - 1 : last;
  Taps t;
  t.first = first;
  double sum = 0.0;
  for (int x = first; x <= last; ++x) {
    const double d = std::fabs (x + 0.5 - c) / support;
    const double w = d < 1.0 ? 1.0 - d : 0.0;
    t.w.push_back (w);
    sum += w;
  }
  for (double &w : t.w)
    w /= sum; /* sum > 0: the nearest sample lies in [lo, hi) (see the chroma bounds) */
  return t;
}

/* Taps of the virtual pixels [v0, v0 + count) of one axis that land in the tensor, for luma (or
 * RGB) and for 4:2:0 chroma. */
struct AxisTaps {
  int v0 = 0;
  std::vector<Taps> luma, chroma;
};

AxisTaps axis_taps (const detail::AxisPlan &a, int64_t tensor_len, bool antialias, bool cosited)
{
  AxisTaps t;
  const double scale = double (a.len) / a.size;
  int clo, chi;
  detail::chroma_bounds (a.origin, a.len, &clo, &chi);
  t.v0 = a.off > 0 ? a.off : 0;
  const int64_t v1 = a.off + tensor_len < a.size ? a.off + tensor_len : a.size;
  for (int v = t.v0; v < v1; ++v) {
    const double c = a.origin + (v + 0.5) * scale;
    t.luma.push_back (make_taps (c, scale, antialias, a.origin, a.origin + a.len));
    t.chroma.push_back (make_taps (c / 2 + (cosited ? 0.25 : 0.0), scale / 2, antialias, clo, chi));
  }
  return t;
}

uint8_t at (const SourceView &s, int plane, int64_t x, int64_t y)
{
  return static_cast<const uint8_t *> (s.planes[plane])[y * s.pitches[plane] + x];
}

/* Resampled value of one byte of a plane: bytes at x * stride + byte of each row. */
double sample (const SourceView &s, int plane, int stride, int byte, const Taps &tx, const Taps &ty)
{
  double acc = 0.0;
  for (size_t j = 0; j < ty.w.size (); ++j) {
    double row = 0.0;
    for (size_t i = 0; i < tx.w.size (); ++i)
      row += tx.w[i] * at (s, plane, int64_t (tx.first + int (i)) * stride + byte, ty.first + int (j));
    acc += ty.w[j] * row;
  }
  return acc;
}

double clamp255 (double v)
{
  return v < 0.0 ? 0.0 : v > 255.0 ? 255.0 : v;
}

/* Y'CbCr code values (0..255, unrounded) to R'G'B' 0..255, clamped. */
void yuv_to_rgb (Matrix m, Range r, double y, double u, double v, double rgb[3])
{
  const double kr = m == Matrix::kBT601 ? 0.299 : m == Matrix::kBT709 ? 0.2126 : 0.2627;
  const double kb = m == Matrix::kBT601 ? 0.114 : m == Matrix::kBT709 ? 0.0722 : 0.0593;
  const double kg = 1.0 - kr - kb;
  const bool full = r == Range::kFull;
  const double yn = full ? y / 255.0 : (y - 16.0) / 219.0;
  const double un = (u - 128.0) / (full ? 255.0 : 224.0);
  const double vn = (v - 128.0) / (full ? 255.0 : 224.0);
  const double rr = yn + 2.0 * (1.0 - kr) * vn;
  const double bb = yn + 2.0 * (1.0 - kb) * un;
  const double gg = (yn - kr * rr - kb * bb) / kg;
  rgb[0] = clamp255 (rr * 255.0);
  rgb[1] = clamp255 (gg * 255.0);
  rgb[2] = clamp255 (bb * 255.0);
}

/* Byte positions of R, G, B in a packed 4-byte pixel. */
void rgb_bytes (PixelFormat f, int idx[3])
{
  const bool bgr = f == PixelFormat::kBGRA || f == PixelFormat::kBGRx;
  idx[0] = bgr ? 2 : 0;
  idx[1] = 1;
  idx[2] = bgr ? 0 : 2;
}

void sample_rgb (const SourceView &s, const AxisTaps &ax, const AxisTaps &ay, int vx, int vy, double rgb[3])
{
  switch (s.format) {
    case PixelFormat::kNV12: {
      const double y = sample (s, 0, 1, 0, ax.luma[vx - ax.v0], ay.luma[vy - ay.v0]);
      const double u = sample (s, 1, 2, 0, ax.chroma[vx - ax.v0], ay.chroma[vy - ay.v0]);
      const double v = sample (s, 1, 2, 1, ax.chroma[vx - ax.v0], ay.chroma[vy - ay.v0]);
      yuv_to_rgb (s.matrix, s.range, y, u, v, rgb);
      return;
    }
    case PixelFormat::kI420: {
      const double y = sample (s, 0, 1, 0, ax.luma[vx - ax.v0], ay.luma[vy - ay.v0]);
      const double u = sample (s, 1, 1, 0, ax.chroma[vx - ax.v0], ay.chroma[vy - ay.v0]);
      const double v = sample (s, 2, 1, 0, ax.chroma[vx - ax.v0], ay.chroma[vy - ay.v0]);
      yuv_to_rgb (s.matrix, s.range, y, u, v, rgb);
      return;
    }
    default: {
      int idx[3];
      rgb_bytes (s.format, idx);
      for (int c = 0; c < 3; ++c)
        rgb[c] = sample (s, 0, 4, idx[c], ax.luma[vx - ax.v0], ay.luma[vy - ay.v0]);
      return;
    }
  }
}

void store (const tensor::View &d, uint8_t *base, int64_t n, int64_t c, int64_t y, int64_t x, float value,
            float int8_scale)
{
  uint8_t *p = base + d.offset (n, c, y, x);
  if (d.type == tensor::ElemType::kFp16) {
    const uint16_t h = tensor::float_to_half (value);
    std::memcpy (p, &h, sizeof h);
  } else {
    const int8_t q = tensor::quantize_int8 (value, int8_scale);
    std::memcpy (p, &q, sizeof q);
  }
}

}  // namespace

Status reference (const SourceView &src, const tensor::View &dst, void *dst_ptr, const Params &p,
                  const Roi *rois, int n_rois, void * /* stream */, std::string *error)
{
  if (src.kind == SourceKind::kTexture) {
    if (error)
      *error = "the CPU reference reads pitched host memory, not textures";
    return Status::kUnsupported;
  }
  detail::Plan plan;
  const Status s = detail::make_plan (src, dst, dst_ptr, p, rois, n_rois, &plan, error);
  if (s != Status::kOk)
    return s;
  uint8_t *base = static_cast<uint8_t *> (dst_ptr);
  const bool yuv = src.format == PixelFormat::kNV12 || src.format == PixelFormat::kI420;

  for (int i = 0; i < plan.n_rois; ++i) {
    const detail::RoiPlan &r = plan.rois[i];
    /* Every row of the slot starts zero: pad lanes and row tails stay so. */
    for (int64_t g = 0; g < dst.groups (); ++g)
      for (int64_t y = 0; y < dst.h; ++y)
        std::memset (base + r.batch * dst.batch_stride + g * dst.plane_stride + y * dst.row_stride, 0,
                     size_t (dst.row_stride));
    const AxisTaps ax = axis_taps (r.x, dst.w, p.antialias, yuv && src.chroma_cosited_h);
    const AxisTaps ay = axis_taps (r.y, dst.h, p.antialias, yuv && src.chroma_cosited_v);
    for (int64_t oy = 0; oy < dst.h; ++oy) {
      for (int64_t ox = 0; ox < dst.w; ++ox) {
        const int vx = int (ox) + r.x.off, vy = int (oy) + r.y.off;
        double rgb[3];
        if (vx < 0 || vx >= r.x.size || vy < 0 || vy >= r.y.size) {
          for (int c = 0; c < 3; ++c)
            rgb[c] = p.pad_rgb[c];
        } else {
          sample_rgb (src, ax, ay, vx, vy, rgb);
        }
        for (int c = 0; c < 3; ++c) {
          const int from = p.order == ChannelOrder::kRGB ? c : 2 - c;
          const float value = (float (rgb[from]) / 255.f - p.mean[c]) / p.std[c];
          store (dst, base, r.batch, c, oy, ox, value, p.int8_scale);
        }
      }
    }
  }
  return Status::kOk;
}

}  // namespace preprocess
