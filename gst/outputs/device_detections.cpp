/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/outputs/device_detections.h"

#include <cuda_runtime_api.h>

#include "dla/primary_context.h"
#include "kernels/detect_device.h"

namespace dlainfer {
namespace {

/* The raw tensors' work first (their de-pad reads the same outputs), then ours. */
dla::AfterTask chain (dla::AfterTask first, dla::AfterTask then)
{
  if (!first.queue)
    return then;
  for (size_t i = 0; i < then.skip_host_copy.size () && i < first.skip_host_copy.size (); ++i)
    then.skip_host_copy[i] = then.skip_host_copy[i] && first.skip_host_copy[i];
  then.what = first.what + ", then " + then.what;
  then.queue = [a = std::move (first.queue), b = std::move (then.queue)] (
                   int slot, const std::vector<const void *> &outputs, void *stream) {
    const int err = a (slot, outputs, stream);
    return err != 0 ? err : b (slot, outputs, stream);
  };
  return then;
}

}  // namespace

bool DeviceDetections::start (dla::Engine &engine, const detect::Plan &plan, void *context, bool host_copies,
                              std::string *error)
{
  clear ();
  context_ = context;
  plan_ = plan;
  slots_.resize (size_t (engine.num_slots ()));
  const size_t bytes = detect::result_bytes (plan.max_detections);
  for (Slot &s : slots_) {
    dla::Status st = dla::DeviceBuffer::Create (detect::workspace_bytes (plan), &s.workspace);
    if (st.ok ())
      st = dla::DeviceBuffer::Create (bytes, &s.result);
    if (st.ok ())
      st = dla::PinnedBuffer::Create (bytes, &s.host);
    const cudaError_t err = st.ok () ? detect::prepare_workspace (plan, s.workspace.data ()) : cudaSuccess;
    if (!st.ok () || err != cudaSuccess) {
      *error = "the detection decoder's memory: " +
               (st.ok () ? std::string (cudaGetErrorString (err)) : st.message);
      clear ();
      return false;
    }
  }
  dla::AfterTask after;
  /* The decoder reads the outputs on the GPU; the host reads them only to de-pad raw tensors there. */
  after.skip_host_copy.assign (engine.outputs ().size (), !host_copies);
  after.what = "decoding the detections after the DLA task";
  after.fix = "a decode fails only through a bug or a broken CUDA context: report it";
  after.queue = [this] (int slot, const std::vector<const void *> &outputs, void *stream) {
    return queue (slot, outputs, stream);
  };
  engine.set_after_task (chain (engine.after_task (), std::move (after)));
  return true;
}

void DeviceDetections::clear () noexcept
{
  if (slots_.empty ())
    return;
  dla::ScopedContext scope (context_);
  slots_.clear ();
}

void DeviceDetections::set_frame (int slot, const geometry::Axis &x, const geometry::Axis &y)
{
  detect::Frame &f = slots_[size_t (slot)].frame;
  f.x = x;
  f.y = y;
}

const detect::Result &DeviceDetections::result (int slot) const
{
  return *static_cast<const detect::Result *> (slots_[size_t (slot)].host.data ());
}

int DeviceDetections::queue (int slot, const std::vector<const void *> &outputs, void *stream)
{
  Slot &s = slots_[size_t (slot)];
  for (size_t i = 0; i < outputs.size () && i < size_t (detect::kMaxOutputs); ++i)
    s.frame.outputs[i] = outputs[i];
  s.frame.batch = 0;
  return int (s.graph.launch (
      plan_, s.frame, s.workspace.data (), static_cast<detect::Result *> (s.result.data ()), s.host.data (),
      detect::result_bytes (plan_.max_detections), static_cast<cudaStream_t> (stream)));
}

}  // namespace dlainfer
