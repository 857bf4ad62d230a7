/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GPU tests of swdla: the nine-step hybrid flow as small RAII pieces over the cuDLA API (linked
 * straight against build/tests/swdla/libcudla.so.1), plus the host-side oracle (CPU executor). */
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <string>
#include <vector>

#include "cpu_executor.h"
#include "dla/abi/cudla_abi.h"

extern "C" {
const char *swdlaBackendName (void);
int swdlaExternalDeviceError (void);
const char *swdlaLastRefusal (void);
}

namespace swdla_test {

std::vector<uint8_t> model_bytes (const std::string &name);
swdla::Model parse (const std::string &name);

/* "cudlaErrorInvalidAddress (4) [cudlaMemRegister: ptr ... is not 32-byte aligned]" */
std::string describe (cudlaStatus s);

/* Scoped setenv. */
class Env {
 public:
  Env (const char *name, const std::string &value);
  ~Env ();
  Env (const Env &) = delete;
  Env &operator= (const Env &) = delete;

 private:
  std::string name_;
  std::string old_;
  bool had_ = false;
};

/* A cudaMalloc'ed, zeroed tensor registered on a handle. */
struct Tensor {
  cudlaDevHandle dev = nullptr;
  void *cuda = nullptr;
  uint64_t *dla = nullptr;
  size_t size = 0;
};

/* One model on one core: steps 1-5 in open(), step 9 in the destructor (stream idle first). */
class Session {
 public:
  Session () = default;
  ~Session ();
  Session (const Session &) = delete;
  Session &operator= (const Session &) = delete;

  /* Empty string on success, else what failed. */
  std::string open (const std::string &model, int core = 0);
  /* The same for a model's bytes (one written by the test). */
  std::string open_bytes (const std::vector<uint8_t> &bytes, int core = 0);
  /* Step 7 on `stream`: one task with every registered tensor. */
  cudlaStatus submit (cudaStream_t stream, uint32_t flags = 0);
  cudlaTask task ();

  /* Host copies (synchronous: for checking only). */
  bool write_input (size_t i, const std::vector<uint8_t> &bytes);
  std::vector<uint8_t> read_output (size_t i = 0);
  /* Teardown now (steps 9); returns the first failing status. */
  cudlaStatus close ();

  swdla::Model model;
  cudlaDevHandle dev = nullptr;
  cudlaModule module = nullptr;
  std::vector<cudlaModuleTensorDescriptor> in_desc, out_desc;
  std::vector<Tensor> inputs, outputs;

 private:
  std::vector<const uint64_t *> in_ptrs_;
  std::vector<uint64_t *> out_ptrs_;
};

/* Random but valid input bytes for a tensor (dense values in [-1, 1] packed by the CPU side). */
std::vector<uint8_t> random_input (const swdla::TensorSpec &t, uint32_t seed);

/* The CPU executor's bytes of every output for the given input bytes. */
std::vector<std::vector<uint8_t>> cpu_outputs (const swdla::Model &m,
                                               const std::vector<std::vector<uint8_t>> &inputs);

/* One task of `s` on seeded random inputs (input i from seed * 10 + i), then every output against
 * the CPU executor's: "" when all agree and the task succeeded, else what differs. */
std::string task_equals_cpu (Session &s, cudaStream_t stream, uint32_t seed);

/* Compares two output tensors element by element (FP16: 2e-3 relative + 1e-3; INT8: 1 step) and
 * requires every pad byte of `got` to be zero. Empty string when equal, else the first mismatches. */
std::string compare_outputs (const swdla::TensorSpec &t, const std::vector<uint8_t> &got,
                             const std::vector<uint8_t> &want);

/* Milliseconds since `t0`, for the tests that time a task or a timeout. */
using Clock = std::chrono::steady_clock;
inline double ms_since (Clock::time_point t0)
{
  return std::chrono::duration<double, std::milli> (Clock::now () - t0).count ();
}

/* A stream created non-blocking, destroyed at scope end. */
class Stream {
 public:
  Stream ();
  ~Stream ();
  operator cudaStream_t () const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

}  // namespace swdla_test
