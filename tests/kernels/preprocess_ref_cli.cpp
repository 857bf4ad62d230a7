/* Runs the CPU reference on a raw frame file for the oracle script (preprocess_oracle.py):
 *   preprocess-ref-cli FORMAT W H MATRIX RANGE COSITED_H COSITED_V MODE ANTIALIAS FRACTION TW TH IN OUT
 * FORMAT nv12|rgbx, planes packed without padding; MATRIX 601|709|2020; RANGE limited|full; MODE
 * stretch|letterbox|center. Writes the FP16 dla_linear tensor (rows padded to 64 bytes) to OUT. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "preprocess.h"

int main (int argc, char **argv)
{
  using namespace preprocess;
  if (argc != 15) {
    std::fprintf (
        stderr,
        "usage: %s FORMAT W H MATRIX RANGE COSITED_H COSITED_V MODE ANTIALIAS FRACTION TW TH IN OUT\n",
        argv[0]);
    return 2;
  }
  const std::string fmt = argv[1];
  const int w = std::atoi (argv[2]), h = std::atoi (argv[3]);
  std::ifstream in (argv[13], std::ios::binary);
  std::vector<uint8_t> raw ((std::istreambuf_iterator<char> (in)), std::istreambuf_iterator<char> ());
  SourceView s{};
  s.width = w;
  s.height = h;
  if (fmt == "nv12") {
    s.format = PixelFormat::kNV12;
    s.planes[0] = raw.data ();
    s.planes[1] = raw.data () + size_t (w) * h;
    s.pitches[0] = w;
    s.pitches[1] = 2 * ((w + 1) / 2);
  } else {
    s.format = PixelFormat::kRGBx;
    s.planes[0] = raw.data ();
    s.pitches[0] = 4 * int64_t (w);
  }
  s.matrix = std::strcmp (argv[4], "709") == 0    ? Matrix::kBT709
             : std::strcmp (argv[4], "2020") == 0 ? Matrix::kBT2020
                                                  : Matrix::kBT601;
  s.range = std::strcmp (argv[5], "full") == 0 ? Range::kFull : Range::kLimited;
  s.chroma_cosited_h = std::atoi (argv[6]) != 0;
  s.chroma_cosited_v = std::atoi (argv[7]) != 0;
  Params p = default_params ();
  p.mode = std::strcmp (argv[8], "letterbox") == 0 ? ResizeMode::kLetterbox
           : std::strcmp (argv[8], "center") == 0  ? ResizeMode::kCenterCrop
                                                   : ResizeMode::kStretch;
  p.antialias = std::atoi (argv[9]) != 0;
  p.crop_fraction = float (std::atof (argv[10]));
  tensor::View v{};
  if (!tensor::make_view (tensor::Layout::kDlaLinear, tensor::ElemType::kFp16, 1, 3, std::atoi (argv[12]),
                          std::atoi (argv[11]), &v))
    return 2;
  std::vector<uint8_t> out (size_t (v.size));
  std::string err;
  if (reference (s, v, out.data (), p, nullptr, 0, nullptr, &err) != Status::kOk) {
    std::fprintf (stderr, "reference: %s\n", err.c_str ());
    return 1;
  }
  std::ofstream (argv[14], std::ios::binary)
      .write (reinterpret_cast<const char *> (out.data ()), std::streamsize (out.size ()));
  return 0;
}
