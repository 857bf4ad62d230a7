/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the raw tensors' device path (tensor-meta=true; docs/tensors.md 4). After each task,
 * on the engine's stream (dla::AfterTask): one replay of the slot's CUDA graph, whose kernel de-pads
 * every output (kernels/depad_device.h) into a device buffer of the slot's and whose copies bring
 * each into a pinned host buffer of a HostPool (the one device-to-host transfer per output), which
 * becomes the GstTensor's data without a host copy. The engine's padded host copies are left out.
 * When downstream holds every buffer a pool may have, the copy goes to the slot's spare buffer
 * and the tensor gets a host copy of it (counted: copies ()). Pinned memory is allocated at start
 * and by take (), never under the engine's lock. */
#pragma once

#include <gst/gst.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "dla/cuda_resources.h"
#include "dla/engine.h"
#include "dla/primary_context.h"
#include "gst/outputs/host_pool.h"
#include "gst/outputs/tensor_plan.h"
#include "kernels/depad_device.h"

namespace dlainfer {

/* Pooled buffers per output beyond one per slot: the frames downstream may hold (a queue). */
constexpr size_t kTensorsHeldDownstream = 16;
/* Pooled buffers per output kept free ahead of the tasks: reserved at start beyond one per slot,
 * and topped up by take () (the src pad's task) while below the bound, so that queue () (the
 * engine's lock held) finds one without allocating: each take () frees one slot, whose next task
 * takes one buffer. */
constexpr size_t kFreeAhead = 2;

class DeviceTensors {
 public:
  DeviceTensors () = default;
  ~DeviceTensors () { clear (); }
  DeviceTensors (const DeviceTensors &) = delete;
  DeviceTensors &operator= (const DeviceTensors &) = delete;

  /* Allocates the slots' buffers, makes their graphs and installs the engine's AfterTask for `plans`
   * (every output of the engine, in order). False with *error when CUDA memory or graphs cannot be
   * had: nothing installed. */
  bool start (dla::Engine &engine, const std::vector<TensorPlan> &plans, std::string *error);
  /* The same for `slots` slots of CUDA device `cuda_device`, the AfterTask given to the caller to
   * install (benchmarks drive it without an engine); a slot's graph is made at its first task. */
  bool start (int cuda_device, int slots, const std::vector<TensorPlan> &plans, dla::AfterTask *after,
              std::string *error);
  /* Frees what start () made; the engine is gone or runs no task with the AfterTask any more.
   * Buffers downstream still holds stay valid until it frees them. */
  void clear ();
  bool active () const { return !slots_.empty (); }

  /* After `slot`'s task ended, before take (): output i's dense values (host memory). */
  const void *values (int slot, size_t i) const;
  /* Output i of `slot`'s task as a buffer for its tensor: the pooled buffer itself, or, past the
   * pool's bound, a copy (from `copy_pool` when it has one). nullptr when no memory. Tops the pool
   * up to kFreeAhead free buffers (src pad's task: allocating is fine there). */
  GstBuffer *take (int slot, size_t i, GstBufferPool *copy_pool);
  /* Tensors that needed a host copy (every pooled buffer held downstream). */
  guint64 copies () const { return copies_.load (std::memory_order_relaxed); }

 private:
  struct Slot {
    std::vector<dla::DeviceBuffer> dense;     /* the kernel's output, per output */
    std::vector<dla::PinnedBuffer> spare;     /* the copy's target past the pool's bound */
    std::unique_ptr<depad::DepadGraph> graph; /* kernel and copies, made at start */
    std::vector<const void *> graph_src;      /* the outputs the graph reads */
    std::vector<void *> host;                 /* where the last task's values went */
    std::vector<bool> pooled;                 /* host[i] is a pool's (else spare[i]'s) */
  };
  int queue (int slot, const std::vector<const void *> &outputs, void *stream);
  bool make_slot (size_t outputs, std::string *error);
  /* The slot's graph for these outputs, made when it has none for them; the CUDA status. */
  cudaError_t make_graph (Slot &s, const std::vector<const void *> &outputs);

  std::shared_ptr<dla::PrimaryContext> context_; /* outlives every pinned buffer */
  std::vector<TensorPlan> plans_;
  std::vector<size_t> bytes_; /* dense bytes per output */
  std::vector<std::shared_ptr<HostPool>> pools_;
  std::vector<Slot> slots_;
  std::atomic<guint64> copies_{0};
};

}  // namespace dlainfer
