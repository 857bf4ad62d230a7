#include "dla/core_queue.h"

#include <cuda_runtime_api.h>

#include "dla/primary_context.h"

namespace dla {

Status CoreQueue::Open (const std::shared_ptr<const Library> &lib, int cuda_device, int core,
                        uint32_t task_timeout_ms, const std::vector<uint8_t> &bytes,
                        const std::string &origin, std::unique_ptr<CoreQueue> *out)
{
  std::unique_ptr<CoreQueue> q (new CoreQueue ());
  Status st;
  if (!(st = Device::Open (lib, cuda_device, core, &q->device_)).ok () ||
      !(st = q->device_->set_task_timeout (task_timeout_ms)).ok () ||
      !(st = Module::Load (q->device_, bytes.data (), bytes.size (), origin, &q->module_)).ok ())
    return st;
  *out = std::move (q);
  return Status::Ok ();
}

CoreQueue::~CoreQueue ()
{
  if (device_) {
    ScopedContext scope (device_->context ().handle ());
    if (stream_.get ())
      cudaStreamSynchronize (static_cast<cudaStream_t> (stream_.get ()));
    slots_.clear ();
    stream_.reset ();
  }
  slots_.clear ();
  module_.reset ();
  device_.reset ();
}

Status CoreQueue::make_slots (const std::vector<TensorInfo> &inputs, const std::vector<TensorInfo> &outputs,
                              int count, int first)
{
  ScopedContext scope (device_->context ().handle ());
  Status st = CudaStream::Create (&stream_);
  for (int i = 0; st.ok () && i < count; ++i) {
    std::unique_ptr<TaskSlot> s;
    st = TaskSlot::Create (device_, module_.handle (), inputs, outputs, first + i, &s);
    if (st.ok ())
      slots_.push_back (std::move (s));
  }
  ring = SlotRing (int (slots_.size ()));
  return st;
}

}  // namespace dla
