/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/outputs/device_tensors.h"

#include <cuda_runtime_api.h>

#include <cstring>

#include "dla/status_names.h"

namespace dlainfer {

namespace {

/* Pinned memory of the engine's context, which the allocator keeps alive: downstream may free a
 * tensor after the element (and its engine) are gone. */
HostPool::Allocator pinned_allocator (std::shared_ptr<dla::PrimaryContext> ctx)
{
  HostPool::Allocator a;
  a.alloc = [ctx] (size_t size) -> void * {
    dla::ScopedContext scope (ctx->handle ());
    void *p = nullptr;
    return cudaMallocHost (&p, size) == cudaSuccess ? p : nullptr;
  };
  a.free = [ctx] (void *p) {
    dla::ScopedContext scope (ctx->handle ());
    cudaFreeHost (p);
  };
  return a;
}

}  // namespace

bool DeviceTensors::make_slot (size_t outputs, std::string *error)
{
  Slot s;
  dla::Status st;
  for (size_t i = 0; st.ok () && i < outputs; ++i) {
    dla::DeviceBuffer d;
    dla::PinnedBuffer p;
    if ((st = dla::DeviceBuffer::Create (bytes_[i], &d)).ok () &&
        (st = dla::PinnedBuffer::Create (bytes_[i], &p)).ok ()) {
      s.dense.push_back (std::move (d));
      s.spare.push_back (std::move (p));
    }
  }
  if (!st.ok ()) {
    *error = "raw tensors on the GPU: " + st.message;
    return false;
  }
  s.host.assign (outputs, nullptr);
  s.pooled.assign (outputs, false);
  slots_.push_back (std::move (s));
  return true;
}

/* The kernel into the slot's dense buffers, then one copy per output to the host (its spare
 * buffer until queue () sets the frame's). */
cudaError_t DeviceTensors::make_graph (Slot &s, const std::vector<const void *> &outputs)
{
  if (s.graph && s.graph_src == outputs)
    return cudaSuccess;
  s.graph = std::make_unique<depad::DepadGraph> ();
  std::vector<depad::DeviceJob> jobs;
  std::vector<void *> host;
  for (size_t i = 0; i < plans_.size (); ++i) {
    jobs.push_back (depad::DeviceJob{plans_[i].view, outputs[i], s.dense[i].data (), plans_[i].int8_scale,
                                     plans_[i].type});
    host.push_back (s.spare[i].data ());
  }
  const cudaError_t err = s.graph->make (jobs.data (), int (jobs.size ()), host.data ());
  if (err != cudaSuccess)
    s.graph.reset ();
  s.graph_src = err == cudaSuccess ? outputs : std::vector<const void *> ();
  return err;
}

bool DeviceTensors::start (dla::Engine &engine, const std::vector<TensorPlan> &plans, std::string *error)
{
  dla::AfterTask after;
  if (!start (engine.cuda_device (), engine.num_slots (), plans, &after, error))
    return false;
  dla::ScopedContext scope (context_->handle ());
  for (int slot = 0; slot < engine.num_slots (); ++slot) { /* at start: not under the engine's lock */
    std::vector<const void *> outputs;
    for (size_t i = 0; i < plans.size (); ++i)
      outputs.push_back (engine.output_ptr (slot, int (i)));
    const cudaError_t err = make_graph (slots_[size_t (slot)], outputs);
    if (err != cudaSuccess) {
      *error = "raw tensors on the GPU: " + dla::cuda_call_failed ("making the de-padding's CUDA graph", err);
      clear ();
      return false;
    }
  }
  engine.set_after_task (std::move (after));
  return true;
}

bool DeviceTensors::start (int cuda_device, int slots, const std::vector<TensorPlan> &plans,
                           dla::AfterTask *after, std::string *error)
{
  clear ();
  auto ctx = std::make_shared<dla::PrimaryContext> ();
  const dla::Status st = dla::PrimaryContext::Retain (cuda_device, ctx.get ());
  if (!st.ok ()) {
    *error = "raw tensors on the GPU: " + st.message;
    return false;
  }
  context_ = ctx;
  plans_ = plans;
  dla::ScopedContext scope (ctx->handle ());
  for (const TensorPlan &p : plans) {
    bytes_.push_back (depad::dense_bytes (p.view, p.type));
    pools_.push_back (
        HostPool::Create (bytes_.back (), size_t (slots) + kTensorsHeldDownstream, pinned_allocator (ctx)));
    /* Every slot's first task, and kFreeAhead more; queue () never allocates (engine's lock). */
    if (!pools_.back ()->reserve (size_t (slots) + kFreeAhead)) {
      *error = "raw tensors on the GPU: cudaMallocHost failed for " + std::to_string (slots + kFreeAhead) +
               " buffers of " + std::to_string (bytes_.back ()) + " bytes";
      clear ();
      return false;
    }
  }
  for (int i = 0; i < slots; ++i)
    if (!make_slot (plans.size (), error)) {
      clear ();
      return false;
    }
  after->skip_host_copy.assign (plans.size (), true);
  after->what = "de-padding the raw output tensors (tensor-meta=true) after the DLA task";
  after->fix =
      "a replay of a graph made at start fails only through a bug or a broken CUDA context; "
      "set tensor-meta=false to run without raw tensors, and report it";
  after->queue = [this] (int slot, const std::vector<const void *> &outputs, void *stream) {
    return queue (slot, outputs, stream);
  };
  return true;
}

void DeviceTensors::clear ()
{
  if (context_) {
    dla::ScopedContext scope (context_->handle ());
    for (Slot &s : slots_)
      for (size_t i = 0; i < s.host.size (); ++i)
        if (s.pooled[i])
          pools_[i]->release (s.host[i]); /* a dropped frame's */
    slots_.clear ();
  }
  pools_.clear (); /* each freed with its last buffer back */
  plans_.clear ();
  bytes_.clear ();
  copies_.store (0, std::memory_order_relaxed);
  context_.reset ();
}

/* On the engine's stream, its mutex held: a pooled buffer per output (a dropped frame's is used
 * again; acquire () never allocates), then one graph replay: the kernel into the slot's dense
 * buffers, and each output's copy into its host buffer. */
int DeviceTensors::queue (int slot, const std::vector<const void *> &outputs, void *stream)
{
  Slot &s = slots_[size_t (slot)];
  for (size_t i = 0; i < plans_.size (); ++i) {
    if (!s.pooled[i]) {
      void *p = pools_[i]->acquire ();
      s.pooled[i] = p != nullptr;
      s.host[i] = p ? p : s.spare[i].data ();
    }
  }
  cudaError_t err = make_graph (s, outputs); /* nothing to do after start () with an engine */
  if (err == cudaSuccess)
    err = s.graph->launch (s.host.data (), static_cast<cudaStream_t> (stream));
  return err;
}

const void *DeviceTensors::values (int slot, size_t i) const
{
  if (slot < 0 || size_t (slot) >= slots_.size () || i >= plans_.size ())
    return nullptr;
  return slots_[size_t (slot)].host[i];
}

GstBuffer *DeviceTensors::take (int slot, size_t i, GstBufferPool *copy_pool)
{
  void *data = const_cast<void *> (values (slot, i));
  if (!data)
    return nullptr;
  Slot &s = slots_[size_t (slot)];
  s.host[i] = nullptr;
  pools_[i]->top_up (kFreeAhead); /* here, not under the engine's lock; a failure: copies later */
  if (s.pooled[i]) {
    s.pooled[i] = false;
    GstBuffer *buf = gst_buffer_new ();
    gst_buffer_append_memory (buf, pools_[i]->wrap (data));
    return buf;
  }
  copies_.fetch_add (1, std::memory_order_relaxed);
  GstBuffer *out = nullptr;
  if (!copy_pool || gst_buffer_pool_acquire_buffer (copy_pool, &out, nullptr) != GST_FLOW_OK)
    out = gst_buffer_new_allocate (nullptr, bytes_[i], nullptr);
  if (out)
    gst_buffer_fill (out, 0, data, bytes_[i]);
  return out;
}

}  // namespace dlainfer
