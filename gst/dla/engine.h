/* gst-dlainfer: a DLA model ready to run frames: device handle, module, and a ring of slots made
 * once at open (registered tensors, pinned output copies, events), so nothing is allocated,
 * registered or created per frame.
 *
 * Per frame, on the engine's own stream (all calls from one thread at a time):
 *   wait_for_stream (upstream)   optional: order after the stream that wrote the frame
 *   begin (slot)                 before the preprocess kernel (its start event on timed tasks)
 *   <kernel writes input_ptr (slot)>
 *   submit (slot)                cudlaSubmitTask + async copy of the outputs to pinned memory
 *   complete (slot)              the sync seam: the only place the host waits
 *   host_output (slot, i)        the outputs, valid until the slot is submitted again
 * A begin () not followed by its submit () (a failed preprocess) is simply begun again next frame;
 * a submit () after it without a new begin () would take that begin's start time.
 * A DLA fault (cudaErrorExternalDevice) makes the engine refuse any further work. */
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "descriptor_map.h"
#include "loader.h"
#include "status.h"

namespace dla {

struct EngineConfig {
  std::string model_path;
  int dla_core = 0;
  int cuda_device = 0;
  uint32_t task_timeout_ms = 5000;
  int num_slots = 1;
};

/* A slot's last task in milliseconds; negative when not measured. The stages come from CUDA events
 * on the tasks timed_task() names (a timed task records four events that keep a timestamp, 1.3 us
 * of CPU each on the H200 host, against one plain event of 0.2 us on the others: timing 1 task in 8
 * cost 0.7 us per frame, 1 in 32 costs 0.2); total from the host clock, every task. */
struct SlotTimings {
  float preprocess_ms = -1.f; /* begin -> submit (timed tasks that called begin) */
  float dla_ms = -1.f;        /* submit -> DLA task done (timed tasks) */
  float total_ms = -1.f;      /* begin (or submit) -> outputs in host memory, seen by the host */
};

constexpr int kTimingPeriod = 32;

/* Whether a slot's n-th task (from 0) is timed: the first two, so that the wait knows the tasks'
 * duration from the third on (completion_wait.h), then one in kTimingPeriod. */
constexpr bool timed_task (uint64_t n)
{
  return n < 2 || n % kTimingPeriod == 0;
}

constexpr int kMaxSlots = 64;

class Engine {
 public:
  ~Engine ();
  Engine (const Engine &) = delete;
  Engine &operator= (const Engine &) = delete;

  static Status Open (const EngineConfig &cfg, std::unique_ptr<Engine> *out);

  const TensorInfo &input () const { return inputs_[0]; }
  const std::vector<TensorInfo> &inputs () const { return inputs_; }
  const std::vector<TensorInfo> &outputs () const { return outputs_; }
  const std::string &backend () const; /* "dla" or "swdla" */
  std::string cudla_version () const;  /* "1.2.1", or "(version unknown)" */
  void *primary_context () const;      /* CUcontext */
  int cuda_device () const { return cfg_.cuda_device; }
  int dla_core () const { return cfg_.dla_core; }
  void *stream () const; /* cudaStream_t: non-blocking, in the primary context */
  int num_slots () const { return int (slots_.size ()); }
  bool has_task_timeout () const; /* cudlaSetTaskTimeoutInMs was applied */
  const std::string &model_path () const { return cfg_.model_path; }
  const std::string &library_path () const;
  bool failed () const { return fatal_; }

  /* CUDA-side pointer of the slot's input tensor (what the preprocess kernel writes); nullptr for a
   * bad slot or index. The DLA-side pointer never leaves the engine. */
  void *input_ptr (int slot, int index = 0) const;
  Status begin (int slot);
  Status submit (int slot);
  Status complete (int slot);
  const void *host_output (int slot, int index) const;
  SlotTimings timings (int slot) const;

  /* Orders our stream after all work queued so far on `cuda_stream` (a GstCudaStream's handle). */
  Status wait_for_stream (void *cuda_stream);

  /* Backend, library, core and every tensor: raw descriptor, layout, reading (for model-info). */
  std::string describe () const;

 private:
  struct Impl;
  struct Slot;
  Engine ();
  Status check_slot (int slot) const;
  /* check_slot, and the slot has no task in flight (begin, submit). */
  Status check_free_slot (int slot) const;
  Status fatal_status () const;
  Status on_cuda_error (int err, const char *what);

  EngineConfig cfg_;
  std::unique_ptr<Impl> impl_;
  std::vector<TensorInfo> inputs_, outputs_;
  std::vector<std::unique_ptr<Slot>> slots_;
  bool fatal_ = false;
  std::string fatal_message_;
};

}  // namespace dla
