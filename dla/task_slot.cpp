/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/task_slot.h"

#include <cuda_runtime_api.h>

#include <chrono>

namespace dla {

Status TaskSlot::Create (const std::shared_ptr<const Device> &device, cudlaModule module,
                         const std::vector<TensorInfo> &inputs, const std::vector<TensorInfo> &outputs,
                         int index, std::unique_ptr<TaskSlot> *out, std::mutex *register_lock)
{
  std::unique_ptr<TaskSlot> s (new TaskSlot ());
  const Status st = s->make (device, module, inputs, outputs, index, register_lock);
  if (!st.ok ()) {
    if (register_lock) {
      std::lock_guard<std::mutex> lock (*register_lock);
      s->unregister ();
    }
    return st; /* the rest is freed here, without the lock */
  }
  *out = std::move (s);
  return Status::Ok ();
}

Status TaskSlot::make (const std::shared_ptr<const Device> &device, cudlaModule module,
                       const std::vector<TensorInfo> &inputs, const std::vector<TensorInfo> &outputs,
                       int index, std::mutex *register_lock)
{
  index_ = index;
  const std::string tag = " (slot " + std::to_string (index) + ")";
  Status st;
  for (const TensorInfo &t : inputs) {
    RegisteredTensor r;
    if (!(st = RegisteredTensor::Create (device, t.raw.size, t.name + tag, &r, register_lock)).ok ())
      return st;
    in_ptrs_.push_back (r.dla_ptr ());
    inputs_.push_back (std::move (r));
  }
  for (const TensorInfo &t : outputs) {
    RegisteredTensor r;
    PinnedBuffer p;
    if (!(st = PinnedBuffer::Create (t.raw.size, &p)).ok () ||
        !(st = RegisteredTensor::Create (device, t.raw.size, t.name + tag, &r, register_lock)).ok ())
      return st;
    out_ptrs_.push_back (r.dla_ptr ());
    out_cuda_ptrs_.push_back (r.cuda_ptr ());
    outputs_.push_back (std::move (r));
    host_outputs_.push_back (std::move (p));
  }
  /* Tasks carry the DLA-side pointers, never the CUDA ones (docs/cudla.md 4.2). */
  task_.moduleHandle = module;
  task_.outputTensor = out_ptrs_.data ();
  task_.numOutputTensors = uint32_t (out_ptrs_.size ());
  task_.numInputTensors = uint32_t (in_ptrs_.size ());
  task_.inputTensor = in_ptrs_.data ();
  task_.waitEvents = nullptr; /* must be NULL in hybrid mode */
  task_.signalEvents = nullptr;
  for (CudaEvent *ev : {&submitted_, &dla_end_, &done_})
    if (!(st = CudaEvent::Create (true, ev)).ok ())
      return st;
  for (CudaEvent *ev : {&done_untimed_, &fence_})
    if (!(st = CudaEvent::Create (false, ev)).ok ())
      return st;
  return Status::Ok ();
}

void TaskSlot::unregister () noexcept
{
  for (RegisteredTensor &r : inputs_)
    r.unregister ();
  for (RegisteredTensor &r : outputs_)
    r.unregister ();
}

void *TaskSlot::fence (void *stream)
{
  return record_event (fence_.get (), stream) == cudaSuccess ? fence_.get () : nullptr;
}

void TaskSlot::fence_done (void *fence, void *stream)
{
  if (fence)
    cudaEventSynchronize (static_cast<cudaEvent_t> (fence));
  else
    cudaStreamSynchronize (static_cast<cudaStream_t> (stream));
}

int TaskSlot::copy_outputs (void *stream)
{
  int err = cudaSuccess;
  for (size_t i = 0; err == cudaSuccess && i < outputs_.size (); ++i)
    if (!skipped (i))
      err = cudaMemcpyAsync (host_outputs_[i].data (), outputs_[i].cuda_ptr (), outputs_[i].size (),
                             cudaMemcpyDeviceToHost, static_cast<cudaStream_t> (stream));
  return err;
}

cudlaStatus TaskSlot::queue (const Device &device, void *stream, void *input_ready, const AfterTask *after,
                             int *cuda_err, bool *after_failed)
{
  *after_failed = false;
  skip_ = after ? after->skip_host_copy : std::vector<bool> ();
  int err = input_ready ? stream_wait_event (stream, input_ready) : cudaSuccess;
  if (err == cudaSuccess && timed)
    err = record_event (submitted_.get (), stream);
  *cuda_err = err;
  if (err != cudaSuccess)
    return cudlaSuccess;
  const cudlaStatus cs = device.api ().SubmitTask (device.handle (), &task_, 1, stream, 0);
  if (cs != cudlaSuccess)
    return cs;
  err = timed ? record_event (dla_end_.get (), stream) : cudaSuccess;
  if (err == cudaSuccess)
    err = copy_outputs (stream);
  if (err == cudaSuccess && after && after->queue)
    *after_failed = (err = after->queue (index_, out_cuda_ptrs_, stream)) != cudaSuccess;
  if (err == cudaSuccess)
    err = record_event (end_event (), stream);
  *cuda_err = err;
  return cudlaSuccess;
}

float TaskSlot::learn_timings ()
{
  const float dla = elapsed_ms (submitted_.get (), dla_end_.get ());
  if (dla >= 0.f)
    timings.dla_ms = dla;
  /* From the engine's stream reaching the task (its input written) to its end event: the outputs
   * copied and the AfterTask's work (a detector's decode) done. */
  return elapsed_ms (submitted_.get (), done_.get ());
}

}  // namespace dla
