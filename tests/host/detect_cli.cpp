/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The detection oracle's driver (detect_oracle.py): one case file in, the detections out. Built as
 * detect-ref-cli (the CPU reference) and, with DETECT_CLI_GPU, detect-gpu-cli (the CUDA decode).
 * Case file, one item per line:
 *   key <dlainfer-key> <value>                       decoder configuration (docs/detection.md 3)
 *   input <width> <height>                           the model's input tensor
 *   frame <width> <height> <x> <y> <w> <h> <mode>    the frame, the crop, stretch|letterbox
 *   output <name> <layout> <type> <n> <c> <h> <w> <scale> <file>   as the descriptor reports it;
 *                                                    the file holds the tensor's bytes in its layout
 *   batch <index>
 * Prints "result <count> <candidates> <dropped>" then "det x0 y0 x1 y1 score class" per detection;
 * a configuration the plan refuses: "error: <message>" on stderr, exit 3. */
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "host/detect/decode_ref.h"
#include "host/detect/plan.h"
#include "kernels/preprocess.h"

#ifdef DETECT_CLI_GPU
#include <cuda_runtime_api.h>

#include "kernels/detect_device.h"
#endif

namespace {

struct Case {
  std::map<std::string, std::string> keys;
  detect::ModelTensors model;
  std::vector<std::vector<uint8_t>> data;
  int frame_w = 0, frame_h = 0;
  preprocess::Rect crop{};
  preprocess::ResizeMode mode = preprocess::ResizeMode::kStretch;
  int batch = 0;
};

bool parse_layout (const std::string &l, const std::string &t, tensor::Layout *layout, tensor::ElemType *type)
{
  const std::map<std::string, tensor::Layout> layouts = {{"chw16", tensor::Layout::kChw16},
                                                         {"chw32", tensor::Layout::kChw32},
                                                         {"dla_linear", tensor::Layout::kDlaLinear}};
  if (!layouts.count (l) || (t != "fp16" && t != "int8"))
    return false;
  *layout = layouts.at (l);
  *type = t == "fp16" ? tensor::ElemType::kFp16 : tensor::ElemType::kInt8;
  return true;
}

bool read_output (std::istringstream &in, Case *c, std::string *error)
{
  std::string name, l, t, file;
  int64_t n, ch, h, w;
  float scale;
  in >> name >> l >> t >> n >> ch >> h >> w >> scale >> file;
  host::TensorDesc d;
  d.name = name;
  tensor::Layout layout;
  tensor::ElemType type;
  if (!in || !parse_layout (l, t, &layout, &type) ||
      !tensor::make_view (layout, type, n, ch, h, w, &d.view)) {
    *error = "bad output line for " + name;
    return false;
  }
  std::ifstream f (file, std::ios::binary);
  std::vector<uint8_t> bytes ((std::istreambuf_iterator<char> (f)), std::istreambuf_iterator<char> ());
  if (int64_t (bytes.size ()) != d.view.size) {
    *error =
        file + ": " + std::to_string (bytes.size ()) + " bytes, the view has " + std::to_string (d.view.size);
    return false;
  }
  c->model.outputs.push_back (d);
  c->model.output_scales.push_back (scale);
  c->data.push_back (std::move (bytes));
  return true;
}

bool read_case (const char *path, Case *c, std::string *error)
{
  std::ifstream f (path);
  std::string line;
  while (std::getline (f, line)) {
    std::istringstream in (line);
    std::string what;
    in >> what;
    if (what == "key") {
      std::string k, v;
      in >> k;
      std::getline (in >> std::ws, v);
      c->keys[k] = v;
    } else if (what == "input") {
      in >> c->model.input_width >> c->model.input_height;
    } else if (what == "frame") {
      std::string mode;
      in >> c->frame_w >> c->frame_h >> c->crop.x >> c->crop.y >> c->crop.width >> c->crop.height >> mode;
      c->mode = mode == "letterbox" ? preprocess::ResizeMode::kLetterbox : preprocess::ResizeMode::kStretch;
    } else if (what == "output") {
      if (!read_output (in, c, error))
        return false;
    } else if (what == "batch") {
      in >> c->batch;
    } else if (!what.empty ()) {
      *error = "unknown line: " + line;
      return false;
    }
  }
  return true;
}

/* The geometry the preprocessing would use for this frame, crop and mode. */
bool geometry_of (const Case &c, detect::Frame *f, std::string *error)
{
  preprocess::SourceView src{};
  src.format = preprocess::PixelFormat::kRGBA;
  src.width = c.frame_w;
  src.height = c.frame_h;
  preprocess::Params p = preprocess::default_params ();
  p.mode = c.mode;
  tensor::View dst;
  tensor::make_view (tensor::Layout::kChw16, tensor::ElemType::kFp16, 1, 3, c.model.input_height,
                     c.model.input_width, &dst);
  return preprocess::frame_geometry (src, dst, p, c.crop, &f->x, &f->y, error) == preprocess::Status::kOk;
}

bool run (const Case &c, const detect::Plan &plan, detect::Frame frame, detect::Result *r, std::string *error)
{
#ifdef DETECT_CLI_GPU
  std::vector<void *> dev;
  for (size_t o = 0; o < c.data.size (); ++o) {
    void *d = nullptr;
    cudaMalloc (&d, c.data[o].size ());
    cudaMemcpy (d, c.data[o].data (), c.data[o].size (), cudaMemcpyHostToDevice);
    dev.push_back (d);
    frame.outputs[o] = d;
  }
  void *ws = nullptr, *res = nullptr;
  cudaMalloc (&ws, detect::workspace_bytes (plan));
  cudaMalloc (&res, sizeof (detect::Result));
  cudaError_t e = detect::prepare_workspace (plan, ws);
  if (e == cudaSuccess)
    e = detect::decode_device (plan, frame, ws, static_cast<detect::Result *> (res), nullptr);
  if (e == cudaSuccess)
    e = cudaMemcpy (r, res, detect::result_bytes (plan.max_detections), cudaMemcpyDeviceToHost);
  for (void *d : dev)
    cudaFree (d);
  cudaFree (ws);
  cudaFree (res);
  if (e != cudaSuccess)
    *error = std::string ("CUDA: ") + cudaGetErrorName (e);
  return e == cudaSuccess;
#else
  (void)c;
  (void)error;
  detect::decode_reference (plan, frame, r);
  return true;
#endif
}

}  // namespace

int main (int argc, char **argv)
{
  Case c;
  std::string error;
  if (argc != 2 || !read_case (argv[1], &c, &error)) {
    std::cerr << "usage: detect-cli CASE (" << error << ")\n";
    return 2;
  }
  detect::Config config;
  auto plan = std::make_unique<detect::Plan> ();
  host::Status s = detect::parse_config (c.keys, &config);
  if (s.ok ())
    s = detect::build_plan (config, c.model, plan.get ());
  if (!s.ok ()) {
    std::cerr << "error: " << s.message << "\n";
    return 3;
  }
  detect::Frame frame{};
  frame.batch = c.batch;
  for (size_t o = 0; o < c.data.size (); ++o)
    frame.outputs[o] = c.data[o].data ();
  auto r = std::make_unique<detect::Result> ();
  if (!geometry_of (c, &frame, &error) || !run (c, *plan, frame, r.get (), &error)) {
    std::cerr << "detect-cli: " << error << "\n";
    return 2;
  }
  std::printf ("result %d %d %d\n", r->count, r->candidates, r->dropped);
  for (int i = 0; i < r->count; ++i) {
    const detect::Detection &d = r->detections[i];
    std::printf ("det %.9g %.9g %.9g %.9g %.9g %d\n", double (d.x0), double (d.y0), double (d.x1),
                 double (d.y1), double (d.score), d.cls);
  }
  return 0;
}
