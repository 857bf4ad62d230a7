/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/descriptor_map.h"

#include <cstring>

namespace dla {

namespace {

const char *format_code (unsigned v)
{
  switch (v) {
    case CUDLA_DATA_FORMAT_UNKNOWN:
      return "UNKNOWN";
    case CUDLA_DATA_FORMAT_NCHW:
      return "NCHW";
    case CUDLA_DATA_FORMAT_NHWC:
      return "NHWC";
    case CUDLA_DATA_FORMAT_NCxHWx:
      return "NCxHWx";
  }
  return "?";
}

const char *type_code (unsigned v)
{
  static const char *const names[] = {"UNKNOWN", "FLOAT", "HALF", "INT16", "INT8", "UINT8", "UINT16"};
  return v < 7 ? names[v] : "?";
}

const char *category_code (unsigned v)
{
  static const char *const names[] = {"IMAGE", "WEIGHT", "FEATURE", "PLANAR", "BIAS"};
  return v < 5 ? names[v] : "?";
}

const char *pixel_format_code (unsigned v)
{
  switch (v) {
    case CUDLA_PIXEL_FORMAT_R8:
      return "R8";
    case CUDLA_PIXEL_FORMAT_R16_F:
      return "R16_F";
    case CUDLA_PIXEL_FORMAT_A16B16G16R16_F:
      return "A16B16G16R16_F";
    case CUDLA_PIXEL_FORMAT_A8B8G8R8:
      return "A8B8G8R8";
    case CUDLA_PIXEL_FORMAT_FEATURE:
      return "FEATURE";
    case CUDLA_PIXEL_FORMAT_UNKNOWN:
      return "UNKNOWN";
  }
  return "other";
}

/* One layout tried against a descriptor. */
struct Candidate {
  tensor::View view{};
  std::string reading;
  int score = 0;
};

/* Codes are unconfirmed for chw16 (docs/cudla.md 5.2), so they only rank layouts that fit anyway.
 * Weights: an exact size beats everything, then the codes (format, category and pixel format count
 * alike: a chw16 tensor might say NCHW, docs/cudla.md 5.2, but not FEATURE twice as well), then
 * TensorRT's packed strides over padded rows read from stride[1], then, when nothing else tells
 * (c reported padded, strides zero, codes unknown: chw16 with c = 16 is byte for byte dla_linear
 * with 16 channels, hwc4 with c = 4 is dla_linear with 4), the layout whose pixel vector `c` fills:
 * a padded count is what a real hwc4 descriptor reports (docs/cudla.md 5.4), and chw16 is DLA's native
 * format and what the trtexec recipe builds. */
constexpr int kScoreExactSize = 32, kScoreFormat = 4, kScoreCategory = 4, kScorePixel = 4, kScorePacked = 3,
              kScoreLanes = 1;

int code_score (const cudlaModuleTensorDescriptor &d, tensor::Layout l)
{
  using tensor::Layout;
  const bool vector = l == Layout::kChw16 || l == Layout::kChw32;
  /* IMAGE and R8 are both code 0, the value of a field nobody set: alone they prove nothing. */
  const bool image_pixel = d.pixelFormat != CUDLA_PIXEL_FORMAT_R8 &&
                           d.pixelFormat != CUDLA_PIXEL_FORMAT_FEATURE &&
                           d.pixelFormat != CUDLA_PIXEL_FORMAT_UNKNOWN;
  const bool image = d.dataFormat == CUDLA_DATA_FORMAT_NHWC || image_pixel;
  const int lanes = tensor::layout_lanes (l, int64_t (d.c));
  int s = vector || (lanes > 1 && int64_t (d.c) == lanes) ? kScoreLanes : 0;
  if ((d.dataFormat == CUDLA_DATA_FORMAT_NCxHWx && vector) ||
      (d.dataFormat == CUDLA_DATA_FORMAT_NCHW && l == Layout::kDlaLinear) ||
      (d.dataFormat == CUDLA_DATA_FORMAT_NHWC && l == Layout::kDlaHwc4))
    s += kScoreFormat;
  if ((d.dataCategory == CUDLA_DATA_CATEGORY_FEATURE && vector) ||
      (d.dataCategory == CUDLA_DATA_CATEGORY_PLANAR && l == Layout::kDlaLinear) ||
      (d.dataCategory == CUDLA_DATA_CATEGORY_IMAGE && image && l == Layout::kDlaHwc4))
    s += kScoreCategory;
  if ((d.pixelFormat == CUDLA_PIXEL_FORMAT_FEATURE && vector) || (image_pixel && l == Layout::kDlaHwc4))
    s += kScorePixel;
  return s;
}

bool same_layout (const tensor::View &a, const tensor::View &b)
{
  return a.lanes == b.lanes && a.row_stride == b.row_stride && a.plane_stride == b.plane_stride &&
         a.batch_stride == b.batch_stride && a.size == b.size && a.type == b.type;
}

/* Checks stride[0..2] and size against a view; on success the reading notes which forms matched. */
bool check_view (const cudlaModuleTensorDescriptor &d, const tensor::View &v, std::string *reading,
                 std::string *why)
{
  const int64_t es = tensor::elem_size (v.type);
  const int64_t s0 = d.stride[0], s1 = d.stride[1], s2 = d.stride[2];
  std::string r;
  if (s0 != 0 && s0 != es && s0 != v.pixel_stride ()) {
    *why = "stride[0] " + std::to_string (s0) + " is neither the element size " + std::to_string (es) +
           " nor the pixel size " + std::to_string (v.pixel_stride ());
    return false;
  }
  if (s1 == 0) {
    r += "row stride not given";
  } else if (s1 == v.row_stride) {
    r += "row stride in bytes";
  } else if (es > 1 && s1 * es == v.row_stride) {
    r += "row stride in elements";
  } else {
    *why =
        "stride[1] " + std::to_string (s1) + " is not the row stride " + std::to_string (v.row_stride) + " B";
    return false;
  }
  /* Image formats (hwc4) have one plane; the real dump leaves stride[2] zero there. */
  if (s2 != 0 && s2 != v.plane_stride && !(es > 1 && s2 * es == v.plane_stride)) {
    *why = "stride[2] " + std::to_string (s2) + " is not the plane stride " +
           std::to_string (v.plane_stride) + " B";
    return false;
  }
  const int64_t size = int64_t (d.size);
  if (size == v.size) {
    r += ", size exact";
  } else {
    bool rounded = false;
    for (int64_t a = 64; a <= 4096 && !rounded; a *= 2)
      if (size > v.size && size == tensor::round_up (v.size, a)) {
        r += ", size rounded up to " + std::to_string (a) + " B";
        rounded = true;
      }
    if (!rounded) {
      *why =
          "size " + std::to_string (size) + " B differs from the layout's " + std::to_string (v.size) + " B";
      return false;
    }
  }
  *reading = r;
  return true;
}

}  // namespace

std::string descriptor_name (const cudlaModuleTensorDescriptor &d)
{
  size_t len = 0;
  while (len < sizeof d.name && d.name[len])
    ++len;
  return std::string (d.name, len);
}

std::string describe_raw (const cudlaModuleTensorDescriptor &d)
{
  std::string s = "name='" + descriptor_name (d) + "' size=" + std::to_string (d.size) +
                  " n=" + std::to_string (d.n) + " c=" + std::to_string (d.c) + " h=" + std::to_string (d.h) +
                  " w=" + std::to_string (d.w) + " dataFormat=" + std::to_string (d.dataFormat) + " (" +
                  format_code (d.dataFormat) + ")" + " dataType=" + std::to_string (d.dataType) + " (" +
                  type_code (d.dataType) + ")" + " dataCategory=" + std::to_string (d.dataCategory) + " (" +
                  category_code (d.dataCategory) + ")" + " pixelFormat=" + std::to_string (d.pixelFormat) +
                  " (" + pixel_format_code (d.pixelFormat) + ")" +
                  " pixelMapping=" + std::to_string (d.pixelMapping) + " stride=[";
  for (int i = 0; i < CUDLA_LOADABLE_TENSOR_DESC_NUM_STRIDES; ++i)
    s += (i ? "," : "") + std::to_string (d.stride[i]);
  return s + "]";
}

Status map_descriptor (const cudlaModuleTensorDescriptor &d, Direction dir, TensorInfo *out)
{
  using tensor::ElemType;
  using tensor::Layout;
  const bool input = dir == Direction::kInput;
  const std::string what = std::string (input ? "input" : "output") + " '" + descriptor_name (d) + "'";
  const std::string hint = input ? host::kInputFormatsHint : host::kOutputFormatsHint;
  auto refuse = [&] (const std::string &why) {
    return Status::Error (Code::kModel, "cannot use " + what + ": " + why + "; " + hint +
                                            ". Raw descriptor: " + describe_raw (d));
  };

  ElemType type;
  if (d.dataType == CUDLA_DATA_TYPE_HALF)
    type = ElemType::kFp16;
  else if (d.dataType == CUDLA_DATA_TYPE_INT8)
    type = ElemType::kInt8;
  else
    return refuse (std::string ("its data type ") + type_code (d.dataType) + " (" +
                   std::to_string (d.dataType) + ") is neither FP16 nor INT8");
  /* DLA limits: batch <= 4096, other dims <= 8192 (docs/cudla.md 5.5); also keeps the arithmetic in range. */
  if (d.n < 1 || d.c < 1 || d.h < 1 || d.w < 1 || d.n > 4096 || d.c > 8192 || d.h > 8192 || d.w > 8192)
    return refuse ("its dimensions are outside the DLA's limits (n 1..4096; c, h, w 1..8192)");

  const Layout vector_layout = type == ElemType::kFp16 ? Layout::kChw16 : Layout::kChw32;
  std::vector<Layout> layouts{vector_layout, Layout::kDlaLinear};
  if (input) /* hwc4 is an input-only format */
    layouts.push_back (Layout::kDlaHwc4);

  std::vector<Candidate> fits;
  std::string rejected;
  for (Layout l : layouts) {
    tensor::View packed;
    if (!tensor::make_view (l, type, int64_t (d.n), int64_t (d.c), int64_t (d.h), int64_t (d.w), &packed)) {
      rejected +=
          std::string ("; ") + tensor::layout_name (l) + ": " + std::to_string (d.c) + " channels impossible";
      continue;
    }
    std::vector<tensor::View> views{packed};
    /* Rows padded beyond TensorRT's packing (e.g. to 64 B): trust stride[1]/[2] when the size agrees. */
    /* No real row is over 1 MiB (8192 pixels of 32 bytes, padded): a bigger stride[1] is not trusted,
     * which keeps n x groups x plane stride (at most 2^12 x 2^13 x 2^33) within int64_t. */
    constexpr int64_t kMaxRowStride = int64_t (1) << 20;
    const int64_t s1 = d.stride[1], s2 = d.stride[2];
    if (s1 != 0 && s1 != packed.row_stride && s1 > packed.w * packed.pixel_stride () && s1 % 32 == 0 &&
        s1 <= kMaxRowStride) {
      tensor::View v = packed;
      v.row_stride = s1;
      v.plane_stride = s2 != 0 && s2 >= v.h * s1 ? s2 : v.h * s1;
      v.batch_stride = v.groups () * v.plane_stride;
      v.size = v.n * v.batch_stride;
      views.push_back (v);
    }
    for (size_t i = 0; i < views.size (); ++i) {
      std::string reading, why;
      if (!check_view (d, views[i], &reading, &why)) {
        rejected += std::string ("; ") + tensor::layout_name (l) + (i ? " (strides from descriptor)" : "") +
                    ": " + why;
        continue;
      }
      Candidate c;
      c.view = views[i];
      c.reading =
          std::string (tensor::layout_name (l)) + (i ? ", padded rows from stride[1]" : "") + ", " + reading;
      c.score = code_score (d, l) + (i ? 0 : kScorePacked) +
                (reading.find ("size exact") != std::string::npos ? kScoreExactSize : 0);
      fits.push_back (c);
    }
  }
  if (fits.empty ())
    return refuse ("no supported layout fits it" + rejected);

  const Candidate *best = &fits[0];
  for (const Candidate &c : fits)
    if (c.score > best->score)
      best = &c;
  for (const Candidate &c : fits)
    if (&c != best && c.score == best->score && !same_layout (c.view, best->view))
      return refuse (std::string ("it fits both ") + tensor::layout_name (best->view.layout) + " and " +
                     tensor::layout_name (c.view.layout) + " and its format codes do not tell them apart");

  out->name = descriptor_name (d);
  out->view = best->view;
  out->raw = d;
  const int lanes = best->view.lanes;
  const bool c_padded = lanes > 1 && int64_t (d.c) % lanes == 0;
  std::string others;
  for (const Candidate &c : fits)
    if (&c != best)
      others += std::string (others.empty () ? "" : "/") + tensor::layout_name (c.view.layout);
  out->reading = best->reading + (c_padded ? ", c may include padding" : "") +
                 (others.empty () ? "" : ", preferred over " + others);
  return Status::Ok ();
}

std::vector<host::TensorDesc> host_descs (const std::vector<TensorInfo> &tensors)
{
  std::vector<host::TensorDesc> out;
  for (const TensorInfo &t : tensors)
    out.push_back ({t.name, t.view, t.raw.size, describe_raw (t.raw)});
  return out;
}

}  // namespace dla
