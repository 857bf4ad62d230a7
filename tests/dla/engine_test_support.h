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

#include "engine.h"
#include "numeric.h"
#include "primary_context.h"
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
                         int core = 0, uint32_t timeout_ms = 5000)
{
  dla::EngineConfig cfg;
  cfg.model_path = model (name);
  cfg.num_slots = slots;
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

/* Copies host bytes into the slot's input on the engine's stream (stream-ordered, like the kernel). */
inline ::testing::AssertionResult upload (dla::Engine &e, int slot, const std::vector<uint8_t> &bytes)
{
  dla::ScopedContext scope (e.primary_context ());
  const cudaError_t err = cudaMemcpyAsync (e.input_ptr (slot), bytes.data (), bytes.size (),
                                           cudaMemcpyHostToDevice, static_cast<cudaStream_t> (e.stream ()));
  /* Pageable source: the copy is staged before cudaMemcpyAsync returns, so `bytes` may go. */
  if (err != cudaSuccess)
    return ::testing::AssertionFailure () << "cudaMemcpyAsync: " << cudaGetErrorName (err);
  return ::testing::AssertionSuccess ();
}

/* begin -> upload -> submit -> complete on one slot. */
inline dla::Status run_once (dla::Engine &e, int slot, const std::vector<uint8_t> &bytes)
{
  dla::Status st = e.begin (slot);
  if (!st.ok ())
    return st;
  if (!upload (e, slot, bytes))
    return dla::Status::Error (dla::Code::kRuntime, "upload failed");
  st = e.submit (slot);
  if (!st.ok ())
    return st;
  return e.complete (slot);
}

}  // namespace dla_test
