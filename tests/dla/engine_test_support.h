/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers of the dla GPU tests: open an engine on an swdla test model, write an input image
 * through the layout header, read outputs back. */
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/numeric.h"
#include "dla/cuda_resources.h"
#include "dla/engine.h"
#include "dla/primary_context.h"
#include "test_support.h"

namespace dla_test {

inline std::string model (const std::string &name)
{
  return dlainfer_test::test_data (name + ".swdla");
}

inline bool have_model (const std::string &name)
{
  return std::ifstream (model (name)).good ();
}

inline dla::Status open (const std::string &name, std::unique_ptr<dla::Engine> *e, int slots = 1,
                         int core = 0, uint32_t timeout_ms = 5000, bool spare_slot = false)
{
  dla::EngineConfig cfg;
  cfg.model_path = model (name);
  cfg.num_slots = slots;
  cfg.spare_slot = spare_slot;
  cfg.dla_core = core;
  cfg.task_timeout_ms = timeout_ms;
  return dla::Engine::Open (cfg, e);
}

/* The INT8 scale of the test models' inputs (models.spec: input.scale=1/127). */
constexpr float kInt8InputScale = 1.f / 127.f;

/* What the element's kernel would write: value f(n, c, y, x) in the view's layout (FP16, or INT8
 * round(v / scale)); pad lanes and row tails zero. Returns the values as stored, for expectations. */
inline std::vector<uint8_t> make_input (const tensor::View &v, int64_t channels,
                                        const std::function<float (int64_t, int64_t, int64_t, int64_t)> &f,
                                        float scale, std::vector<float> *stored = nullptr)
{
  std::vector<uint8_t> bytes (size_t (v.size), 0);
  if (stored)
    stored->assign (size_t (v.n * channels * v.h * v.w), 0.f);
  for (int64_t n = 0; n < v.n; ++n)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t y = 0; y < v.h; ++y)
        for (int64_t x = 0; x < v.w; ++x) {
          const float val = f (n, c, y, x);
          const int64_t off = v.offset (n, c, y, x);
          float kept;
          if (v.type == tensor::ElemType::kFp16) {
            const uint16_t h = tensor::float_to_half (val);
            std::memcpy (&bytes[size_t (off)], &h, 2);
            kept = tensor::half_to_float (h);
          } else {
            const float q = std::fmax (-128.f, std::fmin (127.f, std::nearbyint (val / scale)));
            bytes[size_t (off)] = uint8_t (int8_t (q));
            kept = q * scale;
          }
          if (stored)
            (*stored)[size_t (((n * channels + c) * v.h + y) * v.w + x)] = kept;
        }
  return bytes;
}

/* Element (n, c) of a C x 1 x 1 output in host memory, dequantised with `scale` for INT8. */
inline float output_value (const dla::Engine &e, int slot, int index, int64_t n, int64_t c, float scale)
{
  const tensor::View &v = e.outputs ()[size_t (index)].view;
  const uint8_t *p = static_cast<const uint8_t *> (e.host_output (slot, index)) + v.offset (n, c, 0, 0);
  if (v.type == tensor::ElemType::kFp16) {
    uint16_t h;
    std::memcpy (&h, p, 2);
    return tensor::half_to_float (h);
  }
  return float (int8_t (*p)) * scale;
}

inline int64_t argmax (const dla::Engine &e, int slot, int64_t n, int64_t classes)
{
  int64_t best = 0;
  for (int64_t c = 1; c < classes; ++c)
    if (output_value (e, slot, 0, n, c, 1.f) > output_value (e, slot, 0, n, best, 1.f))
      best = c;
  return best;
}

/* What the element's frame input does around a task, in a test: its own stream, on which the input
 * is written, and the event that marks it written. Made in the engine's (primary) context. */
class InputWriter {
 public:
  explicit InputWriter (const dla::Engine &e) : scope_ (e.primary_context ())
  {
    ok_ = dla::CudaStream::Create (&stream_).ok () && dla::CudaEvent::Create (false, &ready_).ok ();
  }
  ~InputWriter ()
  {
    if (stream_.get ())
      cudaStreamSynchronize (static_cast<cudaStream_t> (stream_.get ()));
  }
  void *stream () const { return stream_.get (); }
  void *ready () const { return ready_.get (); }

  /* Copies host bytes into `input` on our stream and records the event after it. */
  ::testing::AssertionResult write (void *input, const std::vector<uint8_t> &bytes)
  {
    if (!ok_)
      return ::testing::AssertionFailure () << "no CUDA stream or event for the input";
    cudaStream_t s = static_cast<cudaStream_t> (stream_.get ());
    cudaError_t err = cudaMemcpyAsync (input, bytes.data (), bytes.size (), cudaMemcpyHostToDevice, s);
    /* Pageable source: the copy is staged before cudaMemcpyAsync returns, so `bytes` may go. */
    if (err == cudaSuccess)
      err = cudaEventRecord (static_cast<cudaEvent_t> (ready_.get ()), s);
    if (err != cudaSuccess)
      return ::testing::AssertionFailure () << "writing the input: " << cudaGetErrorName (err);
    return ::testing::AssertionSuccess ();
  }

 private:
  dla::ScopedContext scope_;
  dla::CudaStream stream_;
  dla::CudaEvent ready_;
  bool ok_ = false;
};

/* acquire -> write the input on our stream -> submit (task, input_ready); *task for the wait. */
inline dla::Status start (dla::Engine &e, const std::vector<uint8_t> &bytes, dla::Task *task)
{
  dla::Status st = e.acquire (task);
  if (!st.ok ())
    return st;
  InputWriter writer (e);
  if (!writer.write (task->input (), bytes)) {
    task->give_back ();
    return dla::Status::Error (dla::Code::kRuntime, "upload failed");
  }
  return task->submit (writer.ready ());
}

/* start -> wait -> release on one slot (the one the engine hands out must be `slot`). One thread:
 * its outputs stay as the task left them until the next acquire. */
inline dla::Status run_once (dla::Engine &e, int slot, const std::vector<uint8_t> &bytes)
{
  dla::Task task;
  dla::Status st = start (e, bytes, &task);
  if (!st.ok ())
    return st;
  if (task.slot () != slot)
    return dla::Status::Error (
        dla::Code::kRuntime,
        "the engine handed out slot " + std::to_string (task.slot ()) + ", not " + std::to_string (slot));
  st = task.wait ();
  task.give_back ();
  return st;
}

}  // namespace dla_test
