/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Launches replayed from CUDA graphs (kernels/launch_graphs.h) write what a plain launch writes, byte
 * for byte, for each frame's content at the time: a graph holds the frame's address, not its
 * pixels. A launch becomes a graph the second time it is seen; one never seen twice within the
 * cache never does; failures are returned and leave no error behind. */
#include "kernels/launch_graphs.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "preprocess_frames.h"

namespace {

using namespace preprocess;
using preprocess_test::HostFrame;

/* An NV12 frame in device memory, its content replaceable in place. */
class DeviceFrame {
 public:
  DeviceFrame (int w, int h) : host_ (preprocess_test::make_frame (PixelFormat::kNV12, w, h))
  {
    view_ = host_.view ();
    for (int i = 0; i < host_.planes; ++i) {
      EXPECT_EQ (cudaMalloc (&planes_[i], host_.data[i].size ()), cudaSuccess);
      view_.planes[i] = planes_[i];
    }
  }
  ~DeviceFrame ()
  {
    for (void *p : planes_)
      cudaFree (p);
  }
  DeviceFrame (const DeviceFrame &) = delete;
  DeviceFrame &operator= (const DeviceFrame &) = delete;

  void fill (uint32_t seed)
  {
    preprocess_test::fill_pattern (host_, seed);
    for (int i = 0; i < host_.planes; ++i) {
      const std::vector<uint8_t> &plane = host_.data[i];
      ASSERT_EQ (cudaMemcpy (planes_[i], plane.data (), plane.size (), cudaMemcpyHostToDevice), cudaSuccess);
    }
  }
  const SourceView &view () const { return view_; }

 private:
  HostFrame host_;
  SourceView view_{};
  void *planes_[3] = {nullptr, nullptr, nullptr};
};

class LaunchGraphsTest : public ::testing::Test {
 protected:
  void SetUp () override
  {
    ASSERT_TRUE (tensor::make_view (tensor::Layout::kChw16, tensor::ElemType::kFp16, 1, 3, 56, 56, &view_));
    ASSERT_EQ (cudaMalloc (&graphed_, size_t (view_.size)), cudaSuccess);
    ASSERT_EQ (cudaMalloc (&plain_, size_t (view_.size)), cudaSuccess);
    ASSERT_EQ (cudaStreamCreate (&stream_), cudaSuccess);
  }
  void TearDown () override
  {
    graphs_.reset (); /* before the stream and buffers its graphs name */
    cudaStreamDestroy (stream_);
    cudaFree (graphed_);
    cudaFree (plain_);
  }

  /* One launch through the cache and one plain launch of the same frame: the same bytes. */
  void expect_same_as_plain (const DeviceFrame &frame, const Params &p)
  {
    KernelLaunch k;
    std::string err;
    ASSERT_EQ (cudaMemsetAsync (graphed_, 0xab, size_t (view_.size), stream_), cudaSuccess);
    ASSERT_EQ (plan_launch (frame.view (), view_, graphed_, p, nullptr, 0, &k, &err), Status::kOk) << err;
    ASSERT_EQ (graphs_->launch (k, stream_), cudaSuccess);
    ASSERT_EQ (cudaMemsetAsync (plain_, 0xcd, size_t (view_.size), stream_), cudaSuccess);
    ASSERT_EQ (launch (frame.view (), view_, plain_, p, nullptr, 0, stream_, &err), Status::kOk) << err;
    ASSERT_EQ (cudaStreamSynchronize (stream_), cudaSuccess);
    std::vector<uint8_t> a (size_t (view_.size)), b (size_t (view_.size));
    ASSERT_EQ (cudaMemcpy (a.data (), graphed_, a.size (), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ (cudaMemcpy (b.data (), plain_, b.size (), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ (a, b);
  }

  /* kCapacity + 1 small frames, each in buffers of its own with content of its own. */
  static std::vector<std::unique_ptr<DeviceFrame>> one_more_frame_than_kept ()
  {
    std::vector<std::unique_ptr<DeviceFrame>> frames;
    for (size_t i = 0; i <= LaunchGraphs::kCapacity; ++i) {
      frames.push_back (std::make_unique<DeviceFrame> (64, 48));
      frames.back ()->fill (uint32_t (i));
    }
    return frames;
  }

  std::unique_ptr<LaunchGraphs> graphs_ = std::make_unique<LaunchGraphs> ();
  tensor::View view_{};
  void *graphed_ = nullptr, *plain_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

TEST_F (LaunchGraphsTest, ReplaysFromTheSecondSightingWithTheFramesContentOfTheTime)
{
  DeviceFrame frame (320, 240);
  const Params p = default_params ();
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    frame.fill (seed); /* new pixels at the same address, as a pooled buffer comes round again */
    expect_same_as_plain (frame, p);
    EXPECT_EQ (graphs_->graphs (), seed == 1 ? 0u : 1u);
    EXPECT_EQ (graphs_->replays (), seed - 1);
  }
}

TEST_F (LaunchGraphsTest, EachBufferAndSettingIsALaunchOfItsOwn)
{
  DeviceFrame a (320, 240), b (320, 240);
  a.fill (5);
  b.fill (6);
  const Params p = default_params (); /* antialias: the filter kernel */
  Params q = p;
  q.mean[1] = 0.25f;
  Params r = p;
  r.antialias = false; /* the bilinear kernel */
  for (int round = 0; round < 3; ++round) {
    expect_same_as_plain (a, p);
    expect_same_as_plain (b, p);
    expect_same_as_plain (a, q);
    expect_same_as_plain (a, r);
  }
  EXPECT_EQ (graphs_->graphs (), 4u);
  EXPECT_EQ (graphs_->replays (), 8u);
}

TEST_F (LaunchGraphsTest, TheSameArgumentsInAnotherShapeAreAnotherLaunch)
{
  DeviceFrame frame (64, 48);
  frame.fill (9);
  KernelLaunch k;
  ASSERT_EQ (plan_launch (frame.view (), view_, graphed_, default_params (), nullptr, 0, &k), Status::kOk);
  KernelLaunch more_shared = k;
  more_shared.shared_bytes += 256; /* unused by the kernel: the same output, another launch */
  for (const KernelLaunch *l : {&k, &k, &more_shared, &more_shared})
    ASSERT_EQ (graphs_->launch (*l, stream_), cudaSuccess);
  ASSERT_EQ (cudaStreamSynchronize (stream_), cudaSuccess);
  EXPECT_EQ (graphs_->graphs (), 2u);
  EXPECT_EQ (graphs_->replays (), 2u);
}

TEST_F (LaunchGraphsTest, MoreBuffersThanItKeepsLaunchPlainly)
{
  std::vector<std::unique_ptr<DeviceFrame>> frames = one_more_frame_than_kept ();
  /* Round robin over one more buffer than it keeps: each is gone before it comes round again. */
  const Params p = default_params ();
  for (int round = 0; round < 2; ++round)
    for (const auto &f : frames)
      expect_same_as_plain (*f, p);
  EXPECT_EQ (graphs_->graphs (), 0u);
  EXPECT_EQ (graphs_->replays (), 0u);
  /* As many as it keeps: every one is replayed from the second round on. */
  frames.pop_back ();
  for (int round = 0; round < 2; ++round)
    for (const auto &f : frames)
      expect_same_as_plain (*f, p);
  EXPECT_EQ (graphs_->graphs (), LaunchGraphs::kCapacity);
  EXPECT_EQ (graphs_->replays (), LaunchGraphs::kCapacity);
}

TEST_F (LaunchGraphsTest, TheLeastRecentlyUsedLaunchMakesRoom)
{
  std::vector<std::unique_ptr<DeviceFrame>> frames = one_more_frame_than_kept ();
  const Params p = default_params ();
  for (int round = 0; round < 2; ++round)
    for (size_t i = 0; i < LaunchGraphs::kCapacity; ++i)
      expect_same_as_plain (*frames[i], p);
  expect_same_as_plain (*frames[0], p);                       /* now the most recent: frame 1 is the oldest */
  expect_same_as_plain (*frames[LaunchGraphs::kCapacity], p); /* a new one: frame 1 goes */
  const uint64_t replays = graphs_->replays ();
  expect_same_as_plain (*frames[0], p);
  EXPECT_EQ (graphs_->replays (), replays + 1) << "frame 0 was used recently: still replayed";
  expect_same_as_plain (*frames[1], p);
  EXPECT_EQ (graphs_->replays (), replays + 1) << "frame 1 was the oldest: seen anew";
}

TEST_F (LaunchGraphsTest, AFailedLaunchIsReturnedEveryTimeAndLeavesNoError)
{
  DeviceFrame frame (64, 48);
  frame.fill (3);
  KernelLaunch k;
  ASSERT_EQ (plan_launch (frame.view (), view_, graphed_, default_params (), nullptr, 0, &k), Status::kOk);
  k.block = dim3 (4096); /* more threads than a block may have */
  const cudaError_t first = start (k, stream_);
  EXPECT_NE (first, cudaSuccess);
  EXPECT_EQ (cudaGetLastError (), cudaSuccess);
  /* Seen once (a plain launch), twice (no graph can be made of it: a plain launch), then again. */
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ (graphs_->launch (k, stream_), first) << "launch " << i;
    EXPECT_EQ (cudaGetLastError (), cudaSuccess);
  }
  EXPECT_EQ (graphs_->replays (), 0u);
  EXPECT_EQ (cudaStreamSynchronize (stream_), cudaSuccess);
}

}  // namespace
