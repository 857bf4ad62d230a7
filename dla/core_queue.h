/* gst-dlainfer: one DLA core of an engine (issue #23): its device handle, the loadable loaded on
 * it, its own CUDA stream (two cores' tasks run at once only on two streams), its ring of task
 * slots, and when the tasks queued on it are expected to end. An engine runs on one or on every
 * core (engine.h), one CoreQueue each; the engine's mutex guards them.
 *
 * Slots are numbered across the engine: core index x slots per core + the slot on the core, so the
 * caller sees one slot number and never a core. */
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dla/cuda_resources.h"
#include "dla/descriptor_map.h"
#include "dla/device.h"
#include "dla/module.h"
#include "dla/slot_ring.h"
#include "dla/task_slot.h"

namespace dla {

/* Where an engine-wide slot number lives; core -1 for a number outside the engine. */
struct SlotPlace {
  int core = -1; /* index of the core in the engine (not the DLA core's number) */
  int local = -1;
};

constexpr int engine_slot (int core_index, int local, int per_core)
{
  return core_index * per_core + local;
}

constexpr SlotPlace place_of (int slot, int cores, int per_core)
{
  return slot < 0 || per_core <= 0 || slot >= cores * per_core ? SlotPlace{}
                                                               : SlotPlace{slot / per_core, slot % per_core};
}

/* At most this many cores in one engine (the dla-core property's range). */
constexpr int kMaxCores = 16;

class CoreQueue {
 public:
  /* Opens DLA core `core`: the handle, cuDLA's task timeout, the loadable `bytes` (`origin`: its
   * file, for messages). The slots come once the tensors are known (make_slots). */
  static Status Open (const std::shared_ptr<const Library> &lib, int cuda_device, int core,
                      uint32_t task_timeout_ms, const std::vector<uint8_t> &bytes, const std::string &origin,
                      std::unique_ptr<CoreQueue> *out);
  /* Teardown order (docs/cudla.md 4.6): stream idle -> the slots' tensors -> the stream -> the
   * module -> the handle. */
  ~CoreQueue ();
  CoreQueue (const CoreQueue &) = delete;
  CoreQueue &operator= (const CoreQueue &) = delete;

  /* The stream and `count` slots of `inputs`/`outputs`; `first` is the first slot's engine-wide
   * number (in the tensors' names). */
  Status make_slots (const std::vector<TensorInfo> &inputs, const std::vector<TensorInfo> &outputs, int count,
                     int first);

  const Device &device () const { return *device_; }
  const Module &module () const { return module_; }
  int core () const { return device_->core (); }
  void *stream () const { return stream_.get (); } /* cudaStream_t */
  TaskSlot &slot (int local) { return *slots_[size_t (local)]; }
  const TaskSlot &slot (int local) const { return *slots_[size_t (local)]; }

  SlotRing ring;
  /* When the DLA core is expected to have ended every task acquired on it so far: where a new
   * task's wait counts its alarm from (completion_wait.h). */
  std::chrono::steady_clock::time_point queue_end{};
  uint64_t tasks_ended = 0; /* tasks seen ending well (the first teaches the scheduler nothing) */

 private:
  CoreQueue () = default;

  std::shared_ptr<const Device> device_;
  Module module_;
  CudaStream stream_;
  std::vector<std::unique_ptr<TaskSlot>> slots_;
};

}  // namespace dla
