#include "descriptor_map.h"

#include <cstring>

namespace dla {

const char *const kInputFormatsHint =
    "rebuild the loadable with trtexec --inputIOFormats=fp16:chw16 (the preprocessing kernel writes fp16 "
    "chw16/dla_linear/dla_hwc4 and int8 chw32/dla_linear/dla_hwc4, e.g. --inputIOFormats=int8:dla_hwc4)";
const char *const kOutputFormatsHint =
    "rebuild the loadable with trtexec --outputIOFormats=fp16:chw16 (outputs can be read as fp16 "
    "chw16/dla_linear or int8 chw32/dla_linear)";

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

/* Codes are unconfirmed for chw16 (reference 5.2), so they only rank layouts that fit anyway.
 * Weights: an exact size beats everything, then the codes (format, category and pixel format count
 * alike: a chw16 tensor might say NCHW, reference 5.2, but not FEATURE twice as well), then
 * TensorRT's packed strides over padded rows read from stride[1], then, when nothing else tells
 * (c reported padded, strides zero, codes unknown: chw16 with c = 16 is byte for byte dla_linear
 * with 16 channels, hwc4 with c = 4 is dla_linear with 4), the layout whose pixel vector `c` fills:
 * a padded count is what a real hwc4 descriptor reports (reference 5.4), and chw16 is DLA's native
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

std::string describe_view (const tensor::View &v)
{
  return std::string (tensor::elem_type_name (v.type)) + " " + tensor::layout_name (v.layout) + " " +
         std::to_string (v.n) + "x" + std::to_string (v.c) + "x" + std::to_string (v.h) + "x" +
         std::to_string (v.w) + " (row " + std::to_string (v.row_stride) + " B, plane " +
         std::to_string (v.plane_stride) + " B, " + std::to_string (v.size) + " B)";
}

Status map_descriptor (const cudlaModuleTensorDescriptor &d, Direction dir, TensorInfo *out)
{
  using tensor::ElemType;
  using tensor::Layout;
  const bool input = dir == Direction::kInput;
  const std::string what = std::string (input ? "input" : "output") + " '" + descriptor_name (d) + "'";
  const std::string hint = input ? kInputFormatsHint : kOutputFormatsHint;
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
  /* DLA limits: batch <= 4096, other dims <= 8192 (reference 5.5); also keeps the arithmetic in range. */
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
    const int64_t s1 = d.stride[1], s2 = d.stride[2];
    if (s1 != 0 && s1 != packed.row_stride && s1 > packed.w * packed.pixel_stride () && s1 % 32 == 0) {
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

Status validate_classification (const std::vector<TensorInfo> &inputs, const std::vector<TensorInfo> &outputs,
                                ClassificationShape *out)
{
  if (inputs.size () != 1) {
    std::string names;
    for (const auto &t : inputs)
      names += (names.empty () ? "" : ", ") + ("'" + t.name + "'");
    return Status::Error (Code::kModel, "the model has " + std::to_string (inputs.size ()) + " inputs" +
                                            (names.empty () ? "" : " (" + names + ")") +
                                            "; a classification model has exactly one image input");
  }
  const TensorInfo &in = inputs[0];
  const tensor::View &v = in.view;
  ClassificationShape shape;
  shape.batch = v.n;
  shape.height = v.h;
  shape.width = v.w;
  if (v.c == 3 || v.c == 1) {
    shape.channels = v.c;
  } else if ((v.layout == tensor::Layout::kDlaHwc4 && v.c == 4) || (v.lanes > 1 && v.c == v.lanes)) {
    /* The padded count (reference section 7): the kernel writes 3 channels and zero pad lanes. */
    shape.channels = 3;
    shape.channels_padded = true;
  } else {
    return Status::Error (
        Code::kModel,
        "input '" + in.name + "' has " + std::to_string (v.c) + " channels (" + describe_view (v) +
            "); an image classifier takes 3 (RGB) or 1 (grey). Raw descriptor: " + describe_raw (in.raw));
  }
  /* Same strides: c = 3 and c = 16 (or 32, or 4) give one channel group with the same lanes. */
  shape.input_view = v;
  shape.input_view.c = shape.channels;
  if (outputs.empty ())
    return Status::Error (Code::kModel, "the model has no outputs");
  for (const TensorInfo &o : outputs) {
    const tensor::View &ov = o.view;
    if (ov.h != 1 || ov.w != 1)
      return Status::Error (Code::kModel, "output '" + o.name + "' is " + std::to_string (ov.c) + "x" +
                                              std::to_string (ov.h) + "x" + std::to_string (ov.w) +
                                              " (C x H x W), not a vector of class scores "
                                              "(C x 1 x 1): end the network with global pooling or a fully "
                                              "connected layer. Raw descriptor: " +
                                              describe_raw (o.raw));
    if (ov.n != shape.batch)
      return Status::Error (Code::kModel, "output '" + o.name + "' has batch " + std::to_string (ov.n) +
                                              " but the input has batch " + std::to_string (shape.batch));
    shape.classes.push_back (ov.c);
    shape.classes_may_include_padding.push_back (ov.lanes > 1 && ov.c % ov.lanes == 0);
  }
  *out = std::move (shape);
  return Status::Ok ();
}

int64_t resolve_class_count (const TensorInfo &output, int64_t labels)
{
  const tensor::View &v = output.view;
  const bool may_pad = v.lanes > 1 && v.c % v.lanes == 0;
  if (labels > 0 && may_pad && labels <= v.c && v.c - labels < v.lanes)
    return labels;
  return v.c;
}

}  // namespace dla
