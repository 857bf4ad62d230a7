/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Argument checks and geometry for preprocess::launch and preprocess::reference. */
#include "kernels/preprocess_plan.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace preprocess {

Params default_params ()
{
  Params p{};
  p.crop = Rect{0, 0, 0, 0};
  p.mode = ResizeMode::kStretch;
  p.crop_fraction = 0.875f;
  p.par_n = 1;
  p.par_d = 1;
  p.antialias = true;
  for (int c = 0; c < 3; ++c) {
    p.pad_rgb[c] = 0;
    p.mean[c] = 0.f;
    p.std[c] = 1.f;
  }
  p.int8_scale = 1.f;
  p.order = ChannelOrder::kRGB;
  return p;
}

const char *status_name (Status s)
{
  switch (s) {
    case Status::kOk:
      return "ok";
    case Status::kInvalidArgument:
      return "invalid argument";
    case Status::kUnsupported:
      return "unsupported";
    case Status::kCudaError:
      return "CUDA error";
  }
  return "unknown status";
}

namespace detail {
namespace {

/* Sizes beyond this would overflow the int geometry (products of two sizes stay in int64). */
constexpr int kMaxDim = 1 << 16;

template <typename... Args>
Status fail (std::string *error, Status s, const char *fmt, Args... args)
{
  if (error) {
    char buf[256];
    std::snprintf (buf, sizeof buf, fmt, args...);
    *error = buf;
  }
  return s;
}

int64_t round_half_even_half (int64_t d) /* round(d / 2), ties to even, d >= 0 */
{
  const int64_t q = d / 2;
  return (d % 2 == 0 || q % 2 == 0) ? q : q + 1;
}

bool is_pitched_format (PixelFormat f)
{
  switch (f) {
    case PixelFormat::kNV12:
    case PixelFormat::kI420:
    case PixelFormat::kRGBA:
    case PixelFormat::kBGRA:
    case PixelFormat::kRGBx:
    case PixelFormat::kBGRx:
      return true;
  }
  return false;
}

Status check_source (const SourceView &s, std::string *error)
{
  if (s.kind != SourceKind::kPitched && s.kind != SourceKind::kTexture)
    return fail (error, Status::kUnsupported, "source kind %d is neither pitched memory nor textures",
                 int (s.kind));
  if (s.kind == SourceKind::kTexture && s.format != PixelFormat::kNV12 && s.format != PixelFormat::kRGBA)
    return fail (error, Status::kUnsupported, "texture sources are NV12 or RGBA, not pixel format %d",
                 int (s.format));
  if (!is_pitched_format (s.format))
    return fail (error, Status::kUnsupported,
                 "source pixel format %d is not one of NV12, I420, RGBA, BGRA, RGBx, BGRx", int (s.format));
  if (s.width < 1 || s.height < 1 || s.width > kMaxDim || s.height > kMaxDim)
    return fail (error, Status::kInvalidArgument, "source size %dx%d is outside 1..%d", s.width, s.height,
                 kMaxDim);
  if (int (s.matrix) < 0 || int (s.matrix) > int (Matrix::kBT2020))
    return fail (error, Status::kUnsupported, "colour matrix %d is not BT.601, BT.709 or BT.2020",
                 int (s.matrix));
  if (s.range != Range::kLimited && s.range != Range::kFull)
    return fail (error, Status::kUnsupported, "colour range %d is neither limited nor full", int (s.range));

  const int64_t cw = (s.width + 1) / 2;
  int planes = 1;
  int64_t row_bytes[3] = {int64_t (s.width), 0, 0};
  int64_t align[3] = {1, 1, 1};
  const char *names[3] = {"Y", "", ""};
  switch (s.format) {
    case PixelFormat::kNV12:
      planes = 2;
      row_bytes[1] = 2 * cw;
      align[1] = 2; /* UV pairs are read as one 2-byte load */
      names[1] = "UV";
      break;
    case PixelFormat::kI420:
      planes = 3;
      row_bytes[1] = row_bytes[2] = cw;
      names[1] = "U";
      names[2] = "V";
      break;
    default:
      row_bytes[0] = 4 * int64_t (s.width);
      align[0] = 4; /* a pixel is read as one 4-byte load */
      names[0] = "RGB";
      break;
  }
  for (int i = 0; i < planes; ++i) {
    if (s.kind == SourceKind::kTexture) {
      if (!s.textures[i])
        return fail (error, Status::kInvalidArgument, "source plane %d (%s) has no texture", i, names[i]);
      continue;
    }
    if (!s.planes[i])
      return fail (error, Status::kInvalidArgument, "source plane %d (%s) is null", i, names[i]);
    if (s.pitches[i] < row_bytes[i])
      return fail (error, Status::kInvalidArgument,
                   "source plane %d (%s) pitch %lld is below its row of %lld bytes", i, names[i],
                   (long long)s.pitches[i], (long long)row_bytes[i]);
    if (reinterpret_cast<uintptr_t> (s.planes[i]) % align[i] != 0 || s.pitches[i] % align[i] != 0)
      return fail (error, Status::kInvalidArgument,
                   "source plane %d (%s) pointer or pitch %lld is not a multiple of %lld bytes", i, names[i],
                   (long long)s.pitches[i], (long long)align[i]);
  }
  return Status::kOk;
}

Status check_tensor (const tensor::View &d, const void *ptr, std::string *error)
{
  using tensor::Layout;
  if (int (d.layout) > int (Layout::kDlaHwc4) || int (d.type) > int (tensor::ElemType::kInt8))
    return fail (error, Status::kUnsupported, "tensor layout %d / type %d unknown", int (d.layout),
                 int (d.type));
  if (!tensor::layout_supports (d.layout, d.type))
    return fail (error, Status::kUnsupported, "tensor layout %s does not hold %s",
                 tensor::layout_name (d.layout), tensor::elem_type_name (d.type));
  if (d.c != 3)
    return fail (error, Status::kUnsupported,
                 "tensor has %lld channels; the preprocessor writes 3 (RGB or BGR)", (long long)d.c);
  if (d.n < 1 || d.h < 1 || d.w < 1 || d.h > kMaxDim || d.w > kMaxDim)
    return fail (error, Status::kInvalidArgument, "tensor dims n=%lld h=%lld w=%lld are outside 1..%d",
                 (long long)d.n, (long long)d.h, (long long)d.w, kMaxDim);
  if (d.lanes != tensor::layout_lanes (d.layout, d.c))
    return fail (error, Status::kInvalidArgument, "tensor lanes %d, but %s with %lld channels has %d",
                 int (d.lanes), tensor::layout_name (d.layout), (long long)d.c,
                 tensor::layout_lanes (d.layout, d.c));
  const int64_t pixel = d.pixel_stride ();
  if (d.row_stride < d.w * pixel || d.row_stride % pixel != 0)
    return fail (
        error, Status::kInvalidArgument,
        "tensor row stride %lld is below w * %lld bytes or not a multiple of the %lld-byte pixel vector",
        (long long)d.row_stride, (long long)pixel, (long long)pixel);
  if (d.plane_stride < d.h * d.row_stride)
    return fail (error, Status::kInvalidArgument, "tensor plane stride %lld is below h * row stride",
                 (long long)d.plane_stride);
  if (d.batch_stride < d.groups () * d.plane_stride)
    return fail (error, Status::kInvalidArgument, "tensor batch stride %lld is below its %lld planes",
                 (long long)d.batch_stride, (long long)d.groups ());
  if (d.size < d.n * d.batch_stride)
    return fail (error, Status::kInvalidArgument, "tensor size %lld is below n * batch stride",
                 (long long)d.size);
  if (!ptr)
    return fail (error, Status::kInvalidArgument, "tensor pointer is null");
  /* Whole vectors are stored with one or two aligned stores of up to 16 bytes. */
  const int64_t align = pixel < 16 ? pixel : 16;
  if (reinterpret_cast<uintptr_t> (ptr) % align != 0 || d.row_stride % align != 0 ||
      d.plane_stride % align != 0 || d.batch_stride % align != 0)
    return fail (error, Status::kInvalidArgument, "tensor pointer or strides are not multiples of %lld bytes",
                 (long long)align);
  return Status::kOk;
}

Status check_params (const Params &p, tensor::ElemType type, std::string *error)
{
  if (int (p.mode) < 0 || int (p.mode) > int (ResizeMode::kCenterCrop))
    return fail (error, Status::kUnsupported, "resize mode %d unknown", int (p.mode));
  if (p.mode == ResizeMode::kCenterCrop && !(p.crop_fraction >= 0.01f && p.crop_fraction <= 1.f))
    return fail (error, Status::kInvalidArgument, "crop fraction %g is outside [0.01, 1]",
                 double (p.crop_fraction));
  if (p.mode == ResizeMode::kLetterbox &&
      (p.par_n < 1 || p.par_d < 1 || p.par_n > kMaxDim || p.par_d > kMaxDim))
    return fail (error, Status::kInvalidArgument, "pixel aspect ratio %d/%d is outside 1..%d", p.par_n,
                 p.par_d, kMaxDim);
  if (p.mode == ResizeMode::kCenterCrop &&
      (p.par_n < 1 || p.par_d < 1 || p.par_n > kMaxDim || p.par_d > kMaxDim))
    return fail (error, Status::kInvalidArgument, "pixel aspect ratio %d/%d is outside 1..%d", p.par_n,
                 p.par_d, kMaxDim);
  for (int c = 0; c < 3; ++c) {
    if (!std::isfinite (p.mean[c]))
      return fail (error, Status::kInvalidArgument, "mean[%d] is not finite", c);
    if (!std::isfinite (p.std[c]) || p.std[c] == 0.f)
      return fail (error, Status::kInvalidArgument, "std[%d] = %g must be finite and non-zero", c,
                   double (p.std[c]));
  }
  if (type == tensor::ElemType::kInt8 && !(std::isfinite (p.int8_scale) && p.int8_scale > 0.f))
    return fail (error, Status::kInvalidArgument, "int8 scale %g must be finite and positive",
                 double (p.int8_scale));
  if (p.order != ChannelOrder::kRGB && p.order != ChannelOrder::kBGR)
    return fail (error, Status::kUnsupported, "channel order %d unknown", int (p.order));
  return Status::kOk;
}

/* Resolves "0 = to the edge" and checks the crop lies in the frame. */
Status resolve_crop (const Rect &r, int w, int h, int i, AxisPlan *x, AxisPlan *y, std::string *error)
{
  if (r.x < 0 || r.y < 0 || r.width < 0 || r.height < 0 || r.x >= w || r.y >= h)
    return fail (error, Status::kInvalidArgument,
                 "crop %d (%d,%d %dx%d) starts outside the %dx%d frame or is negative", i, r.x, r.y, r.width,
                 r.height, w, h);
  const int cw = r.width ? r.width : w - r.x;
  const int ch = r.height ? r.height : h - r.y;
  if (int64_t (r.x) + cw > w || int64_t (r.y) + ch > h)
    return fail (error, Status::kInvalidArgument, "crop %d (%d,%d %dx%d) ends outside the %dx%d frame", i,
                 r.x, r.y, cw, ch, w, h);
  *x = AxisPlan{r.x, cw, 0, 0};
  *y = AxisPlan{r.y, ch, 0, 0};
  return Status::kOk;
}

}  // namespace

void fit_axes (ResizeMode mode, float crop_fraction, int64_t disp_w, int64_t disp_h, int tw, int th,
               AxisFit *x, AxisFit *y)
{
  int64_t rx = tw, ry = th;
  switch (mode) {
    case ResizeMode::kStretch:
      break;
    case ResizeMode::kLetterbox:
      /* Fit: the relatively longer axis fills the tensor, the other rounds half up (>= 1). */
      if (disp_w * th >= disp_h * tw)
        ry = (2 * tw * disp_h + disp_w) / (2 * disp_w);
      else
        rx = (2 * th * disp_w + disp_h) / (2 * disp_h);
      rx = rx < 1 ? 1 : rx > tw ? tw : rx;
      ry = ry < 1 ? 1 : ry > th ? th : ry;
      *x = AxisFit{int (rx), -int ((tw - rx) / 2)};
      *y = AxisFit{int (ry), -int ((th - ry) / 2)};
      return;
    case ResizeMode::kCenterCrop: {
      /* Resize(S) then CenterCrop(tensor), S = floor(tensor / fraction) as timm's crop_pct (the
       * epsilon absorbs float error where the quotient is an integer: 224 / 0.7f). */
      const int64_t sx = int64_t (std::floor (double (tw) / double (crop_fraction) + 1e-3));
      const int64_t sy = int64_t (std::floor (double (th) / double (crop_fraction) + 1e-3));
      if (disp_w * sy >= disp_h * sx) { /* height is the short side: it gets exactly S */
        ry = sy;
        rx = sy * disp_w / disp_h;
      } else {
        rx = sx;
        ry = sx * disp_h / disp_w;
      }
      /* Extreme aspect ratios can exceed int: saturate so make_plan's size check refuses them. */
      constexpr int64_t kSaturate = int64_t (1) << 30;
      rx = rx > kSaturate ? kSaturate : rx;
      ry = ry > kSaturate ? kSaturate : ry;
      *x = AxisFit{int (rx), int (round_half_even_half (rx - tw))};
      *y = AxisFit{int (ry), int (round_half_even_half (ry - th))};
      return;
    }
  }
  *x = AxisFit{int (rx), 0};
  *y = AxisFit{int (ry), 0};
}

namespace {

/* One crop's geometry into batch item `batch` (ROI `i` in messages); the source, tensor and
 * parameters are checked already. */
Status plan_roi (const SourceView &src, const tensor::View &dst, const Params &p, int i, const Rect &crop,
                 int batch, RoiPlan *r, std::string *error)
{
  if (batch < 0 || batch >= dst.n)
    return fail (error, Status::kInvalidArgument, "ROI %d names batch slot %d of a tensor of batch %lld", i,
                 batch, (long long)dst.n);
  r->batch = batch;
  const Status s = resolve_crop (crop, src.width, src.height, i, &r->x, &r->y, error);
  if (s != Status::kOk)
    return s;
  const bool par = p.mode != ResizeMode::kStretch;
  AxisFit fx, fy;
  fit_axes (p.mode, p.crop_fraction, int64_t (r->x.len) * (par ? p.par_n : 1),
            int64_t (r->y.len) * (par ? p.par_d : 1), int (dst.w), int (dst.h), &fx, &fy);
  if (fx.size > kMaxDim * 16 || fy.size > kMaxDim * 16)
    return fail (error, Status::kInvalidArgument, "ROI %d resizes to %dx%d before its center crop: too large",
                 i, fx.size, fy.size);
  r->x.size = fx.size;
  r->x.off = fx.off;
  r->y.size = fy.size;
  r->y.off = fy.off;
  return Status::kOk;
}

}  // namespace

Status make_plan (const SourceView &src, const tensor::View &dst, const void *dst_ptr, const Params &p,
                  const Roi *rois, int n_rois, Plan *out, std::string *error)
{
  Status s = check_source (src, error);
  if (s == Status::kOk)
    s = check_tensor (dst, dst_ptr, error);
  if (s == Status::kOk)
    s = check_params (p, dst.type, error);
  if (s != Status::kOk)
    return s;
  if (n_rois < 0 || n_rois > kMaxRois)
    return fail (error, Status::kInvalidArgument, "%d ROIs: one launch takes 0..%d", n_rois, kMaxRois);
  if (n_rois > 0 && !rois)
    return fail (error, Status::kInvalidArgument, "%d ROIs but the ROI array is null", n_rois);
  if (n_rois > dst.n)
    return fail (error, Status::kInvalidArgument, "%d ROIs for a tensor of batch %lld", n_rois,
                 (long long)dst.n);

  const int count = n_rois ? n_rois : 1;
  out->n_rois = count;
  for (int i = 0; i < count; ++i) {
    const Rect crop = n_rois ? rois[i].crop : p.crop;
    const int batch = n_rois ? rois[i].batch_index : 0;
    for (int j = 0; j < i; ++j)
      if (out->rois[j].batch == batch)
        return fail (error, Status::kInvalidArgument, "ROIs %d and %d both write batch slot %d", j, i, batch);
    s = plan_roi (src, dst, p, i, crop, batch, &out->rois[i], error);
    if (s != Status::kOk)
      return s;
  }
  return Status::kOk;
}

Status frame_geometry (const SourceView &src, const tensor::View &dst, const Params &p, const Rect &crop,
                       RoiPlan *out, std::string *error)
{
  /* Only the frame's size matters here, not its planes. */
  Status s = src.width < 1 || src.height < 1 || src.width > kMaxDim || src.height > kMaxDim
                 ? fail (error, Status::kInvalidArgument, "frame %dx%d is outside 1..%d", src.width,
                         src.height, kMaxDim)
                 : check_params (p, dst.type, error);
  if (s == Status::kOk && (dst.n < 1 || dst.h < 1 || dst.w < 1 || dst.h > kMaxDim || dst.w > kMaxDim))
    s = fail (error, Status::kInvalidArgument, "tensor dims n=%lld h=%lld w=%lld are outside 1..%d",
              (long long)dst.n, (long long)dst.h, (long long)dst.w, kMaxDim);
  return s == Status::kOk ? plan_roi (src, dst, p, 0, crop, 0, out, error) : s;
}

bool narrow_centres (const RoiPlan &r)
{
  bool narrow = true;
  for (const AxisPlan *ax : {&r.x, &r.y}) {
    const int64_t size = ax->size, num = (2 * size + 1) * ax->len + 2 * int64_t (ax->origin) * size + size;
    narrow = narrow && num < (int64_t (1) << 30) && 4 * size < (int64_t (1) << 30);
  }
  return narrow;
}

Status plan_objects (const SourceView &src, const tensor::View &dst, const Params &p,
                     const ObjectRoi *objects, int n, ObjectEntry *entries, std::string *error)
{
  Status s = check_source (src, error);
  if (s == Status::kOk)
    s = check_params (p, dst.type, error);
  if (s != Status::kOk)
    return s;
  if (n < 1 || n > kMaxObjects)
    return fail (error, Status::kInvalidArgument, "%d objects: one launch takes 1..%d", n, kMaxObjects);
  if (!objects || !entries)
    return fail (error, Status::kInvalidArgument, "%d objects but the object or entry array is null", n);
  for (int i = 0; i < n; ++i) {
    ObjectEntry &e = entries[i];
    s = check_tensor (dst, objects[i].dst_ptr, error);
    if (s == Status::kOk)
      s = plan_roi (src, dst, p, i, objects[i].crop, objects[i].batch_index, &e.plan, error);
    if (s != Status::kOk)
      return s;
    e.dst = static_cast<uint8_t *> (objects[i].dst_ptr);
    e.narrow = narrow_centres (e.plan) ? 1 : 0;
  }
  for (int i = n; i < object_slots (n); ++i)
    entries[i] = ObjectEntry{}; /* blanks: dst null */
  return Status::kOk;
}

}  // namespace detail

int object_slots (int n)
{
  int slots = 1;
  while (slots < n)
    slots *= 2;
  return slots;
}

Status frame_geometry (const SourceView &src, const tensor::View &dst, const Params &p, const Rect &crop,
                       geometry::Axis *x, geometry::Axis *y, std::string *error)
{
  detail::RoiPlan r{};
  const Status s = detail::frame_geometry (src, dst, p, crop, &r, error);
  if (s == Status::kOk) {
    *x = r.x;
    *y = r.y;
  }
  return s;
}

size_t object_entry_bytes ()
{
  return sizeof (detail::ObjectEntry);
}

Status plan_objects (const SourceView &src, const tensor::View &dst, const Params &p,
                     const ObjectRoi *objects, int n, void *host_entries, std::string *error)
{
  return detail::plan_objects (src, dst, p, objects, n, static_cast<detail::ObjectEntry *> (host_entries),
                               error);
}

}  // namespace preprocess
