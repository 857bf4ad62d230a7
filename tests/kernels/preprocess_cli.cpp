/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Argument parsing and file I/O of the oracle's driver programs (usage in preprocess_cli.h). */
#include "preprocess_cli.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>

namespace preprocess_cli {
namespace {

using namespace preprocess;

/* Parses "a<sep>b<sep>c..." into exactly n numbers. */
template <typename T>
bool numbers (const std::string &s, char sep, int n, T *out)
{
  size_t pos = 0;
  for (int i = 0; i < n; ++i) {
    const size_t end = i + 1 < n ? s.find (sep, pos) : s.size ();
    if (end == std::string::npos)
      return false;
    const std::string item = s.substr (pos, end - pos);
    char *stop = nullptr;
    const double v = std::strtod (item.c_str (), &stop);
    if (item.empty () || *stop != '\0')
      return false;
    out[i] = T (v);
    pos = end + 1;
  }
  return true;
}

template <typename E>
bool pick (const std::string &s, std::map<std::string, E> names, E *out)
{
  auto it = names.find (s);
  if (it == names.end ())
    return false;
  *out = it->second;
  return true;
}

}  // namespace

bool parse (int argc, char **argv, Job *job, std::string *error)
{
  Job &j = *job;
  j.params = default_params ();
  SourceView &s = j.src;
  s.format = PixelFormat::kRGBx;
  s.matrix = Matrix::kBT601;
  s.range = Range::kLimited;
  tensor::Layout layout = tensor::Layout::kDlaLinear;
  tensor::ElemType type = tensor::ElemType::kFp16;
  int tensor_dims[3] = {1, 224, 224}; /* n, w, h */
  std::string in_path;
  for (int i = 1; i < argc; ++i) {
    const char *eq = std::strchr (argv[i], '=');
    if (!eq) {
      *error = std::string ("argument without '=': ") + argv[i];
      return false;
    }
    const std::string key (argv[i], size_t (eq - argv[i])), v (eq + 1);
    Params &p = j.params;
    int ints[5];
    float floats[3];
    bool ok = true;
    if (key == "format")
      ok = pick<PixelFormat> (v,
                              {{"nv12", PixelFormat::kNV12},
                               {"i420", PixelFormat::kI420},
                               {"rgba", PixelFormat::kRGBA},
                               {"bgra", PixelFormat::kBGRA},
                               {"rgbx", PixelFormat::kRGBx},
                               {"bgrx", PixelFormat::kBGRx}},
                              &s.format);
    else if (key == "size")
      ok = numbers (v, 'x', 2, ints) && (s.width = ints[0], s.height = ints[1], true);
    else if (key == "matrix")
      ok = pick<Matrix> (v, {{"601", Matrix::kBT601}, {"709", Matrix::kBT709}, {"2020", Matrix::kBT2020}},
                         &s.matrix);
    else if (key == "range")
      ok = pick<Range> (v, {{"limited", Range::kLimited}, {"full", Range::kFull}}, &s.range);
    else if (key == "cosited")
      ok = numbers (v, ',', 2, ints) && (s.chroma_cosited_h = ints[0], s.chroma_cosited_v = ints[1], true);
    else if (key == "mode")
      ok = pick<ResizeMode> (v,
                             {{"stretch", ResizeMode::kStretch},
                              {"letterbox", ResizeMode::kLetterbox},
                              {"center", ResizeMode::kCenterCrop}},
                             &p.mode);
    else if (key == "antialias")
      ok = numbers (v, ',', 1, ints) && (p.antialias = ints[0] != 0, true);
    else if (key == "fraction")
      ok = numbers (v, ',', 1, &p.crop_fraction);
    else if (key == "par")
      ok = numbers (v, '/', 2, ints) && (p.par_n = ints[0], p.par_d = ints[1], true);
    else if (key == "pad")
      ok = numbers (v, ',', 3, ints) && (p.pad_rgb[0] = uint8_t (ints[0]), p.pad_rgb[1] = uint8_t (ints[1]),
                                         p.pad_rgb[2] = uint8_t (ints[2]), true);
    else if (key == "crop")
      ok = numbers (v, ',', 4, ints) && (p.crop = Rect{ints[0], ints[1], ints[2], ints[3]}, true);
    else if (key == "order")
      ok = pick<ChannelOrder> (v, {{"rgb", ChannelOrder::kRGB}, {"bgr", ChannelOrder::kBGR}}, &p.order);
    else if (key == "mean")
      ok = numbers (v, ',', 3, floats) && (std::memcpy (p.mean, floats, sizeof floats), true);
    else if (key == "std")
      ok = numbers (v, ',', 3, floats) && (std::memcpy (p.std, floats, sizeof floats), true);
    else if (key == "scale")
      ok = numbers (v, ',', 1, &p.int8_scale);
    else if (key == "layout")
      ok = pick<tensor::Layout> (v,
                                 {{"chw16", tensor::Layout::kChw16},
                                  {"chw32", tensor::Layout::kChw32},
                                  {"dla_linear", tensor::Layout::kDlaLinear},
                                  {"dla_hwc4", tensor::Layout::kDlaHwc4}},
                                 &layout);
    else if (key == "type")
      ok = pick<tensor::ElemType> (v, {{"fp16", tensor::ElemType::kFp16}, {"int8", tensor::ElemType::kInt8}},
                                   &type);
    else if (key == "tensor")
      ok = numbers (v, 'x', 3, tensor_dims);
    else if (key == "roi")
      ok = numbers (v, ',', 5, ints) &&
           (j.rois.push_back (Roi{{ints[0], ints[1], ints[2], ints[3]}, ints[4]}), true);
    else if (key == "in")
      in_path = v;
    else if (key == "out")
      j.out_path = v;
    else
      ok = false;
    if (!ok) {
      *error = std::string ("bad argument: ") + argv[i];
      return false;
    }
  }
  if (s.width < 1 || s.height < 1 || in_path.empty () || j.out_path.empty ()) {
    *error = "size=WxH, in=FILE and out=FILE are required";
    return false;
  }
  if (!tensor::make_view (layout, type, tensor_dims[0], 3, tensor_dims[2], tensor_dims[1], &j.view)) {
    *error = "no such tensor (layout, type and dims)";
    return false;
  }

  std::ifstream in (in_path, std::ios::binary);
  j.frame.assign (std::istreambuf_iterator<char> (in), std::istreambuf_iterator<char> ());
  const int w = s.width, h = s.height, cw = (w + 1) / 2, ch = (h + 1) / 2;
  switch (s.format) {
    case PixelFormat::kNV12:
      j.n_planes = 2;
      s.pitches[0] = w;
      s.pitches[1] = 2 * cw;
      j.plane_bytes[0] = w * h;
      j.plane_bytes[1] = 2 * cw * ch;
      break;
    case PixelFormat::kI420:
      j.n_planes = 3;
      s.pitches[0] = w;
      s.pitches[1] = s.pitches[2] = cw;
      j.plane_bytes[0] = w * h;
      j.plane_bytes[1] = j.plane_bytes[2] = cw * ch;
      break;
    default:
      j.n_planes = 1;
      s.pitches[0] = 4 * int64_t (w);
      j.plane_bytes[0] = 4 * w * h;
      break;
  }
  size_t total = 0;
  for (int i = 0; i < j.n_planes; ++i) {
    s.planes[i] = j.frame.data () + total;
    total += size_t (j.plane_bytes[i]);
  }
  if (j.frame.size () != total) {
    *error = in_path + ": " + std::to_string (j.frame.size ()) + " bytes, the frame needs " +
             std::to_string (total);
    return false;
  }
  return true;
}

bool write_tensor (const Job &job, const std::vector<uint8_t> &tensor, std::string *error)
{
  std::ofstream out (job.out_path, std::ios::binary);
  out.write (reinterpret_cast<const char *> (tensor.data ()), std::streamsize (tensor.size ()));
  if (!out) {
    *error = "cannot write " + job.out_path;
    return false;
  }
  return true;
}

}  // namespace preprocess_cli
