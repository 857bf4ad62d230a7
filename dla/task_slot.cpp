#include "dla/task_slot.h"

#include <cuda_runtime_api.h>

#include <chrono>

namespace dla {

Status TaskSlot::Create (const std::shared_ptr<const Device> &device, cudlaModule module,
                         const std::vector<TensorInfo> &inputs, const std::vector<TensorInfo> &outputs,
                         int index, std::unique_ptr<TaskSlot> *out)
{
  std::unique_ptr<TaskSlot> s (new TaskSlot ());
  s->index_ = index;
  const std::string tag = " (slot " + std::to_string (index) + ")";
  Status st;
  for (const TensorInfo &t : inputs) {
    RegisteredTensor r;
    if (!(st = RegisteredTensor::Create (device, t.raw.size, t.name + tag, &r)).ok ())
      return st;
    s->in_ptrs_.push_back (r.dla_ptr ());
    s->inputs_.push_back (std::move (r));
  }
  for (const TensorInfo &t : outputs) {
    RegisteredTensor r;
    PinnedBuffer p;
    if (!(st = RegisteredTensor::Create (device, t.raw.size, t.name + tag, &r)).ok () ||
        !(st = PinnedBuffer::Create (t.raw.size, &p)).ok ())
      return st;
    s->out_ptrs_.push_back (r.dla_ptr ());
    s->out_cuda_ptrs_.push_back (r.cuda_ptr ());
    s->outputs_.push_back (std::move (r));
    s->host_outputs_.push_back (std::move (p));
  }
  /* Tasks carry the DLA-side pointers, never the CUDA ones (docs/cudla.md 4.2). */
  s->task_.moduleHandle = module;
  s->task_.outputTensor = s->out_ptrs_.data ();
  s->task_.numOutputTensors = uint32_t (s->out_ptrs_.size ());
  s->task_.numInputTensors = uint32_t (s->in_ptrs_.size ());
  s->task_.inputTensor = s->in_ptrs_.data ();
  s->task_.waitEvents = nullptr; /* must be NULL in hybrid mode */
  s->task_.signalEvents = nullptr;
  for (CudaEvent *ev : {&s->submitted_, &s->dla_end_, &s->done_})
    if (!(st = CudaEvent::Create (true, ev)).ok ())
      return st;
  if (!(st = CudaEvent::Create (false, &s->done_untimed_)).ok ())
    return st;
  *out = std::move (s);
  return Status::Ok ();
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
                             int *cuda_err)
{
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
    err = after->queue (index_, out_cuda_ptrs_, stream);
  if (err == cudaSuccess)
    err = record_event (end_event (), stream);
  *cuda_err = err;
  return cudlaSuccess;
}

void TaskSlot::learn_timings ()
{
  const float dla = elapsed_ms (submitted_.get (), dla_end_.get ());
  if (dla >= 0.f)
    timings.dla_ms = dla;
  /* From the engine's stream reaching the task (its input written) to the outputs copied. */
  const float whole = elapsed_ms (submitted_.get (), done_.get ());
  if (whole >= 0.f)
    wait.learn (whole);
}

}  // namespace dla
