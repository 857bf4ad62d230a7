/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: one task's resources, made once when a model opens, so nothing is allocated,
 * registered or created per frame: its registered input and output tensors, pinned host copies of
 * the outputs, the cudlaTask that names them (it lives as long as the slot: NVIDIA's samples keep
 * it until the sync, docs/cudla.md 4.3), and the events that end and time its work. Knows tensors,
 * not what they mean. */
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dla/completion_wait.h"
#include "dla/cuda_resources.h"
#include "dla/descriptor_map.h"
#include "dla/device.h"
#include "dla/registered_tensor.h"

namespace dla {

/* A task's stages in milliseconds; negative when not measured. dla_ms comes from CUDA events on
 * the tasks timed_task() names; total_ms from the host clock on every task. */
struct SlotTimings {
  float dla_ms = -1.f;   /* input ready -> DLA task done (timed tasks) */
  float total_ms = -1.f; /* acquire -> outputs in host memory, seen by the host */
  int dla_core = -1;     /* the DLA core that ran it */
  float busy_ms = -1.f;  /* what it counted in its core's busy time: dla_ms, or the core's learnt duration */
  int queued_ahead = -1; /* tasks queued before it on its core when it was submitted, every sharer's */
};

/* Work a caller adds to every task on the engine's stream, after the DLA's and before the task's
 * end is recorded (raw output tensors: de-padding kernels and their copies, docs/tensors.md 4). */
struct AfterTask {
  /* Per output: its padded copy to host memory is left out (host_output () is nullptr). */
  std::vector<bool> skip_host_copy;
  /* Queues the work: the slot, its outputs' CUDA pointers, the stream (cudaStream_t); returns a
   * cudaError_t. Called from Engine::submit, the engine's mutex held. */
  std::function<int (int slot, const std::vector<const void *> &outputs, void *stream)> queue;
  /* For the error when queue fails: what the work is ("<what> failed (DLA core N): <CUDA status>")
   * and what the user can do about it (appended). */
  std::string what = "the work after the DLA task", fix;
};

class TaskSlot {
 public:
  /* Registers the tensors of `inputs` and `outputs` on `device` for `module`; `index` appears in
   * the tensors' names. `register_lock` (when given: the handle's other users may be submitting)
   * is held around each cudlaMemRegister only, and around the cudlaMemUnregister of a failed
   * Create; every allocation runs without it. */
  static Status Create (const std::shared_ptr<const Device> &device, cudlaModule module,
                        const std::vector<TensorInfo> &inputs, const std::vector<TensorInfo> &outputs,
                        int index, std::unique_ptr<TaskSlot> *out, std::mutex *register_lock = nullptr);
  /* cudlaMemUnregister of every tensor, under the caller's lock; the memory, pinned copies and
   * events go with the slot, after the lock (they may synchronise with the device). */
  void unregister () noexcept;
  /* After a refused submit: an event recorded on `stream` (cudaStream_t) behind the work queued so
   * far, to wait for without the engine's lock (fence_done); nullptr when it could not be recorded
   * (then wait for the stream). */
  void *fence (void *stream);
  static void fence_done (void *fence, void *stream);

  void *input_ptr (size_t index) const
  {
    return index < inputs_.size () ? inputs_[index].cuda_ptr () : nullptr;
  }
  const void *host_output (size_t index) const
  {
    return index < host_outputs_.size () && !skipped (index) ? host_outputs_[index].data () : nullptr;
  }
  /* CUDA-side pointer of an output tensor; nullptr for a bad index. */
  const void *output_ptr (size_t index) const
  {
    return index < out_cuda_ptrs_.size () ? out_cuda_ptrs_[index] : nullptr;
  }

  /* The task's work on `stream` (cudaStream_t), in order: wait for `input_ready` (when given),
   * cudlaSubmitTask, the output copies (but those `after` skips), `after`'s work (when given), the
   * end event. *cuda_err gets the CUDA status of the stream work, *after_failed whether it is
   * `after`'s; the return value is the submit's. */
  cudlaStatus queue (const Device &device, void *stream, void *input_ready, const AfterTask *after,
                     int *cuda_err, bool *after_failed);
  /* The event the task's end is recorded on. */
  void *end_event () const { return timed ? done_.get () : done_untimed_.get (); }
  /* After a timed task: its DLA time into timings; returns its device time from submit to outputs
   * copied (negative if unknown), for wait.learn () on the thread that owns the wait. */
  float learn_timings ();

  bool timed = false;
  uint64_t tasks = 0; /* tasks acquired on this slot so far */
  /* A task another thread than its consumer saw ending (Engine::await_end; the slot's state says
   * so, slot_ring.h): the status the consumer's wait or poll returns, and what its wait has still to
   * learn (learn_timings). */
  Status early_status;
  float early_whole_ms = -1.f;
  SlotTimings timings;
  CompletionWait wait;

 private:
  Status make (const std::shared_ptr<const Device> &device, cudlaModule module,
               const std::vector<TensorInfo> &inputs, const std::vector<TensorInfo> &outputs, int index,
               std::mutex *register_lock);
  bool skipped (size_t index) const { return index < skip_.size () && skip_[index]; }
  int copy_outputs (void *stream);

  int index_ = 0;
  std::vector<bool> skip_; /* the AfterTask's skip_host_copy of the last task queued */
  std::vector<RegisteredTensor> inputs_, outputs_;
  std::vector<const void *> out_cuda_ptrs_;
  std::vector<PinnedBuffer> host_outputs_;
  std::vector<const uint64_t *> in_ptrs_;
  std::vector<uint64_t *> out_ptrs_;
  cudlaTask task_{};
  CudaEvent submitted_, dla_end_, done_; /* with timestamps: timed tasks only */
  CudaEvent done_untimed_;               /* the other tasks' end */
  CudaEvent fence_;                      /* a refused submit's (fence ()) */
};

}  // namespace dla
