/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The GPU detection decode against its CPU reference (host/detect/decode_ref.h) on the same heads:
 * every family, layout and type, letterboxed 1080p geometry; the same detections in the same order
 * (class exact, score to 1e-5 relative, box to 0.01 px), the same counts; a workspace reused frame
 * after frame; overflow of max_candidates (counts agree, the kept set is the GPU's); thousands of
 * candidates (the full sort); many classes (a warp per survivor); the decode replayed from a graph
 * (kernels/decode_graph.h), made again when the frame's geometry changes. */
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <memory>

#include "detect_cases.h"
#include "host/detect/decode_ref.h"
#include "kernels/decode_graph.h"
#include "kernels/detect_device.h"
#include "kernels/preprocess.h"

namespace {

using detect_cases::Head;
using detect_cases::out;
using L = tensor::Layout;
using T = tensor::ElemType;

class DetectGpu : public testing::Test {
 protected:
  void SetUp () override
  {
    int n = 0;
    if (cudaGetDeviceCount (&n) != cudaSuccess || n == 0)
      GTEST_SKIP () << "no CUDA device";
  }

  /* Runs the head `frames` times on one workspace; returns the last GPU result. */
  static void gpu (const Head &h, const detect::Frame &host_frame, int frames, detect::Result *r)
  {
    const detect::Plan &p = *h.plan;
    detect::Frame f = host_frame;
    std::vector<void *> dev;
    ASSERT_EQ (detect_cases::upload (h, &f, &dev), cudaSuccess);
    void *ws = nullptr, *res = nullptr;
    ASSERT_EQ (cudaMalloc (&ws, detect::workspace_bytes (p)), cudaSuccess);
    ASSERT_EQ (cudaMalloc (&res, sizeof (detect::Result)), cudaSuccess);
    ASSERT_EQ (detect::prepare_workspace (p, ws), cudaSuccess);
    cudaStream_t s;
    cudaStreamCreate (&s);
    for (int i = 0; i < frames; ++i)
      ASSERT_EQ (detect::decode_device (p, f, ws, static_cast<detect::Result *> (res), s), cudaSuccess);
    ASSERT_EQ (cudaStreamSynchronize (s), cudaSuccess);
    cudaMemcpy (r, res, detect::result_bytes (p.max_detections), cudaMemcpyDeviceToHost);
    cudaStreamDestroy (s);
    for (void *d : dev)
      cudaFree (d);
    cudaFree (ws);
    cudaFree (res);
  }

  static detect::Frame frame_of (const Head &h, int width = 1920, int height = 1080)
  {
    detect::Frame f{};
    for (size_t o = 0; o < h.data.size (); ++o)
      f.outputs[o] = h.data[o].data ();
    preprocess::SourceView src{};
    src.width = width;
    src.height = height;
    preprocess::Params pp = preprocess::default_params ();
    pp.mode = preprocess::ResizeMode::kLetterbox;
    tensor::View dst;
    tensor::make_view (L::kChw16, T::kFp16, 1, 3, 640, 640, &dst);
    EXPECT_EQ (preprocess::frame_geometry (src, dst, pp, preprocess::Rect{0, 0, 0, 0}, &f.x, &f.y),
               preprocess::Status::kOk);
    return f;
  }

  /* GPU == reference; `exact_set` false on overflow (counts only). */
  static void compare (const Head &h, int min_detections)
  {
    ASSERT_TRUE (h.error.empty ()) << h.error;
    const detect::Frame f = frame_of (h);
    auto ref = std::make_unique<detect::Result> ();
    auto got = std::make_unique<detect::Result> ();
    detect::decode_reference (*h.plan, f, ref.get ());
    gpu (h, f, 3, got.get ());
    EXPECT_GE (ref->count, min_detections);
    expect_same (*got, *ref);
  }

  static void expect_same (const detect::Result &got_result, const detect::Result &ref_result)
  {
    const detect::Result *got = &got_result, *ref = &ref_result;
    ASSERT_EQ (got->candidates, ref->candidates);
    ASSERT_EQ (got->dropped, ref->dropped);
    if (ref->dropped) {
      EXPECT_EQ (got->count > 0, ref->count > 0);
      return;
    }
    ASSERT_EQ (got->count, ref->count);
    for (int i = 0; i < ref->count; ++i) {
      const detect::Detection &a = got->detections[i], &b = ref->detections[i];
      EXPECT_EQ (a.cls, b.cls) << i;
      EXPECT_NEAR (a.score, b.score, 1e-5f * b.score) << i;
      EXPECT_NEAR (a.x0, b.x0, 0.01f) << i;
      EXPECT_NEAR (a.y0, b.y0, 0.01f) << i;
      EXPECT_NEAR (a.x1, b.x1, 0.01f) << i;
      EXPECT_NEAR (a.y1, b.y1, 0.01f) << i;
    }
  }
};

TEST_F (DetectGpu, Yolov5EveryLayout)
{
  for (auto lt : {std::make_pair (L::kChw16, T::kFp16), std::make_pair (L::kChw32, T::kInt8),
                  std::make_pair (L::kDlaLinear, T::kFp16), std::make_pair (L::kDlaLinear, T::kInt8)}) {
    Head h;
    detect_cases::yolov5s_head (150, 7, &h, lt.first, lt.second);
    SCOPED_TRACE (tensor::layout_name (lt.first));
    compare (h, 50);
  }
}

TEST_F (DetectGpu, ThousandsOfCandidates)
{
  Head h;
  detect_cases::yolov5s_head (3500, 11, &h);
  h.plan->max_candidates = detect::kMaxCandidates;
  h.plan->max_detections = detect::kMaxDetections;
  compare (h, 500);
}

TEST_F (DetectGpu, OverflowCounted)
{
  Head h;
  detect_cases::yolov5s_head (400, 13, &h);
  h.plan->max_candidates = 64;
  compare (h, 1);
}

/* 600 classes: a survivor's staging room is too big for groups of 8 lanes, so a warp decodes each. */
TEST_F (DetectGpu, ManyClassesAWarpPerSurvivor)
{
  Head h;
  detect_cases::make_head ({{"dlainfer-decoder", "yolo-anchors"},
                            {"dlainfer-classes", "600"},
                            {"dlainfer-strides", "32"},
                            {"dlainfer-anchors", "116,90,156,198"},
                            {"dlainfer-threshold", "0.25"}},
                           640, 640, {out ("o", L::kChw16, T::kFp16, 2 * 605, 20, 20)}, {0.f}, 60, 9, &h);
  compare (h, 20);
}

TEST_F (DetectGpu, Yolov2SoftmaxAndObjectnessOnly)
{
  Head h;
  detect_cases::make_head ({{"dlainfer-decoder", "yolo-anchors"},
                            {"dlainfer-box-formula", "yolov2"},
                            {"dlainfer-classes", "0"},
                            {"dlainfer-anchor-unit", "cells"},
                            {"dlainfer-anchors", "1.6,2.1,6.0,7.1,2.9,3.5,4.3,5.2,9.0,10.7"}},
                           640, 640, {out ("o", L::kChw16, T::kFp16, 25, 20, 20)}, {0.f}, 60, 3, &h);
  compare (h, 20);
  Head s;
  detect_cases::make_head ({{"dlainfer-decoder", "yolo-anchors"},
                            {"dlainfer-box-formula", "yolov2"},
                            {"dlainfer-class-activation", "softmax"},
                            {"dlainfer-classes", "20"},
                            {"dlainfer-anchors", "30,40,60,50"}},
                           640, 640, {out ("o", L::kChw16, T::kFp16, 50, 20, 20)}, {0.f}, 60, 4, &s);
  compare (s, 20);
}

TEST_F (DetectGpu, Yolov8SplitAndFused)
{
  Head h;
  detect_cases::make_head (
      {{"dlainfer-decoder", "yolov8"}, {"dlainfer-classes", "80"}}, 640, 640,
      {out ("c8", L::kChw16, T::kFp16, 80, 80, 80), out ("b8", L::kChw16, T::kFp16, 64, 80, 80),
       out ("b16", L::kChw16, T::kFp16, 64, 40, 40), out ("c16", L::kChw16, T::kFp16, 80, 40, 40),
       out ("c32", L::kChw16, T::kFp16, 80, 20, 20), out ("b32", L::kChw16, T::kFp16, 64, 20, 20)},
      {0, 0, 0, 0, 0, 0}, 200, 5, &h);
  compare (h, 50);
  Head f;
  detect_cases::make_head (
      {{"dlainfer-decoder", "yolov8"}, {"dlainfer-classes", "10"}}, 640, 640,
      {out ("p16", L::kChw32, T::kInt8, 74, 40, 40), out ("p8", L::kChw32, T::kInt8, 74, 80, 80),
       out ("p32", L::kChw32, T::kInt8, 74, 20, 20)},
      {0.1f, 0.1f, 0.1f}, 200, 6, &f);
  compare (f, 50);
}

TEST_F (DetectGpu, SsdSoftmaxAndSigmoid)
{
  for (const char *act : {"softmax", "sigmoid"}) {
    Head h;
    detect_cases::make_head (
        {{"dlainfer-decoder", "ssd"},
         {"dlainfer-classes", "21"},
         {"dlainfer-class-activation", act},
         {"dlainfer-min-sizes", "60,111,162"},
         {"dlainfer-max-sizes", "111,162,213"},
         {"dlainfer-aspect-ratios", "2;2,3;2,3"},
         {"dlainfer-strides", "16,32,64"},
         {"dlainfer-threshold", "0.4"}},
        300, 300,
        {out ("l19", L::kChw16, T::kFp16, 16, 19, 19), out ("c19", L::kChw16, T::kFp16, 84, 19, 19),
         out ("p10", L::kChw16, T::kFp16, 24 + 126, 10, 10), out ("p5", L::kChw32, T::kInt8, 24 + 126, 5, 5)},
        {0, 0, 0, 0.1f}, 80, 8, &h);
    SCOPED_TRACE (act);
    compare (h, 20);
  }
}

/* Frames through one DecodeGraph: the first makes the graph, the same frame replays it, another
 * geometry makes a new one; every result (copied to pinned memory by the graph) is the reference's. */
TEST_F (DetectGpu, GraphReplaysAndFollowsTheGeometry)
{
  Head h;
  detect_cases::yolov5s_head (150, 7, &h);
  ASSERT_TRUE (h.error.empty ()) << h.error;
  const detect::Plan &p = *h.plan;
  /* The reference reads the host copies of the outputs, the graph the device ones. */
  const detect::Frame hd_host = frame_of (h), vga_host = frame_of (h, 640, 480);
  detect::Frame hd = hd_host, vga = vga_host;
  std::vector<void *> dev;
  ASSERT_EQ (detect_cases::upload (h, &hd, &dev), cudaSuccess);
  std::copy (std::begin (hd.outputs), std::end (hd.outputs), std::begin (vga.outputs));
  const size_t bytes = detect::result_bytes (p.max_detections);
  void *ws = nullptr, *res = nullptr, *host = nullptr;
  ASSERT_EQ (cudaMalloc (&ws, detect::workspace_bytes (p)), cudaSuccess);
  ASSERT_EQ (cudaMalloc (&res, bytes), cudaSuccess);
  ASSERT_EQ (cudaMallocHost (&host, bytes), cudaSuccess);
  ASSERT_EQ (detect::prepare_workspace (p, ws), cudaSuccess);
  cudaStream_t s;
  ASSERT_EQ (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking), cudaSuccess);
  auto ref = std::make_unique<detect::Result> ();
  {
    detect::DecodeGraph g;
    const auto decode = [&] (const detect::Frame &f, const detect::Frame &f_host) {
      std::memset (host, 0xff, bytes);
      ASSERT_EQ (g.launch (p, f, ws, static_cast<detect::Result *> (res), host, bytes, s), cudaSuccess);
      ASSERT_EQ (cudaStreamSynchronize (s), cudaSuccess);
      detect::decode_reference (p, f_host, ref.get ());
      expect_same (*static_cast<const detect::Result *> (host), *ref);
    };
    for (int i = 0; i < 3; ++i)
      decode (hd, hd_host);
    EXPECT_EQ (g.captures (), 1u);
    EXPECT_EQ (g.replays (), 3u);
    decode (vga, vga_host);
    decode (vga, vga_host);
    EXPECT_EQ (g.captures (), 2u);
    EXPECT_EQ (g.replays (), 5u);
    EXPECT_GT (ref->count, 0);
  }
  cudaStreamDestroy (s);
  for (void *d : dev)
    cudaFree (d);
  cudaFree (ws);
  cudaFree (res);
  cudaFreeHost (host);
}

}  // namespace
