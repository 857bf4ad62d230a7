/* SPDX-License-Identifier: LGPL-2.1-or-later */
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
    stream_.reset ();
  }
  module_.reset ();
  device_.reset ();
}

Status CoreQueue::make_stream ()
{
  ScopedContext scope (device_->context ().handle ());
  return CudaStream::Create (&stream_);
}

}  // namespace dla
