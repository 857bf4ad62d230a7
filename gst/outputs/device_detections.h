/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a detector's decode on the GPU (kernels/detect_device.h), per task slot: after the DLA
 * task, on the engine's stream (dla::AfterTask, chained after the raw tensors' when they have one),
 * the decode of the slot's outputs and one copy of its result into the slot's pinned host memory,
 * which the src task reads once the task ended, replayed from a graph per slot (kernels/decode_graph.h).
 * The frame's geometry (where the input came from) is set per slot before its submit. Memory is allocated at
 * start, in the element's CUDA context. */
#pragma once

#include <string>
#include <vector>

#include "common/detect_plan.h"
#include "dla/cuda_resources.h"
#include "dla/engine.h"
#include "kernels/decode_graph.h"

namespace dlainfer {

class DeviceDetections {
 public:
  DeviceDetections () = default;
  ~DeviceDetections () { clear (); }
  DeviceDetections (const DeviceDetections &) = delete;
  DeviceDetections &operator= (const DeviceDetections &) = delete;

  /* Workspaces and results for every slot of `engine`, and its AfterTask (`context`: the primary
   * context, current). `host_copies`: the engine's padded host copies are still read (raw tensors
   * de-padded on the host). False with *error naming what failed: nothing installed. */
  bool start (dla::Engine &engine, const detect::Plan &plan, void *context, bool host_copies,
              std::string *error);
  void clear () noexcept;

  /* Streaming thread, before `slot`'s submit: where its input came from in the frame. */
  void set_frame (int slot, const geometry::Axis &x, const geometry::Axis &y);
  /* After `slot`'s task ended: its frame's detections. */
  const detect::Result &result (int slot) const;

 private:
  struct Slot {
    dla::DeviceBuffer workspace, result;
    dla::PinnedBuffer host;
    detect::Frame frame{};
    detect::DecodeGraph graph; /* the decode and the result's copy, replayed */
  };
  int queue (int slot, const std::vector<const void *> &outputs, void *stream);

  void *context_ = nullptr;
  detect::Plan plan_{};
  std::vector<Slot> slots_;
};

}  // namespace dlainfer
