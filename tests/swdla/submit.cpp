/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla: cudlaSubmitTask. Every task is checked before any is queued; a handle with
 * SWDLA_QUEUE_LIMIT tasks not yet complete refuses or waits (SWDLA_QUEUE_FULL); then each task
 * runs on the caller's stream after the previous task of its DLA core (one task at a time per
 * core), as kernels: service time (jittered), fault or hang, the network, the status word, an
 * event. */
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <vector>

#include "layout_oracle.h"
#include "state.h"
#include "stream_ops.h"

using swdla::Call;
using swdla::state;

namespace {

/* CPU time the callers' threads spent inside cudlaSubmitTask: the software DLA's own host work
 * (checks, launching the network's kernels, SWDLA_SUBMIT_CPU_US's burn). A real submit also costs
 * CPU (its checks, the ioctl), so what benchmarks take out with this is an upper bound of what is
 * not the caller's. Waiting for a queue slot (SWDLA_QUEUE_FULL=block) is left out: a real driver
 * would sleep there. */
std::atomic<uint64_t> submit_cpu_ns{0};
/* The same by the handle's core (swdlaSubmitCpuNsCore): a benchmark running one element per core
 * takes out each element's own share. */
std::atomic<uint64_t> submit_cpu_ns_core[swdla::kMaxCores]{};

/* Threads waiting inside cudlaSubmitTask for a queue slot now (swdlaQueueWaiters, tests). */
std::atomic<int> queue_waiters{0};

struct CountCpu {
  const uint64_t start = swdla::thread_cpu_ns ();
  uint64_t excluded = 0;
  int core = -1; /* the handle's, once it is known to be one */
  ~CountCpu ()
  {
    const uint64_t spent = swdla::thread_cpu_ns () - start - excluded;
    submit_cpu_ns += spent;
    if (core >= 0 && core < swdla::kMaxCores)
      submit_cpu_ns_core[core] += spent;
  }
};

/* Waits, without swdla's lock, until the task behind `e` has completed: polls its event, sleeping
 * 10 us at first and then up to 200 us in between (a real driver would sleep until an interrupt),
 * so the wait costs little CPU and ends at most 0.2 ms late. Returns the CPU it did cost. */
uint64_t wait_for_slot (const swdla::TaskEventPtr &e)
{
  const uint64_t start = swdla::thread_cpu_ns ();
  ++queue_waiters;
  long pause_ns = 10000;
  while (!e->done ()) {
    const timespec pause{0, pause_ns};
    nanosleep (&pause, nullptr);
    pause_ns = std::min (2 * pause_ns, 200000L);
  }
  --queue_waiters;
  return swdla::thread_cpu_ns () - start;
}

struct Resolved {
  cudlaModule_t *module = nullptr;
  std::vector<swdla::Registration *> inputs, outputs;

  /* The CUDA pointers of every input and output, for the executor. */
  swdla::DeviceModel::Inputs input_ptrs () const
  {
    swdla::DeviceModel::Inputs p;
    for (const auto *reg : inputs)
      p.push_back (reg->cuda_ptr);
    return p;
  }
  swdla::DeviceModel::Outputs output_ptrs () const
  {
    swdla::DeviceModel::Outputs p;
    for (const auto *reg : outputs)
      p.push_back (const_cast<void *> (reg->cuda_ptr));
    return p;
  }
};

std::string hex (uint64_t v)
{
  char buf[32];
  std::snprintf (buf, sizeof buf, "0x%llx", static_cast<unsigned long long> (v));
  return buf;
}

/* "task 0: ", "task 0: input 1": built only when a refusal needs them. */
std::string task_prefix (uint32_t task)
{
  return "task " + std::to_string (task) + ": ";
}
std::string tensor_label (uint32_t task, const char *kind, uint32_t i)
{
  return task_prefix (task) + kind + " " + std::to_string (i);
}

/* The registration a task pointer names, or a refusal explaining what the pointer is instead. */
cudlaStatus resolve (const Call &call, cudlaDevHandle_t *h, const uint64_t *ptr, const swdla::TensorSpec &t,
                     uint32_t task, const char *kind, uint32_t i, swdla::Registration **out)
{
  const uint64_t addr = reinterpret_cast<uintptr_t> (ptr);
  auto it = h->registrations.find (addr);
  if (it == h->registrations.end ()) {
    const std::string what = tensor_label (task, kind, i);
    for (auto &kv : h->registrations)
      if (kv.second.cuda_ptr == ptr)
        return call.refuse (
            cudlaErrorInvalidAddress,
            what + " " + hex (addr) +
                " is the CUDA pointer; tasks take the DLA pointer cudlaMemRegister returned (" +
                hex (kv.first) + ")");
    for (cudlaDevHandle_t *other : state ().handles)
      if (other->registrations.count (addr))
        return call.refuse (cudlaErrorInvalidAddress,
                            what + " " + hex (addr) + " is registered on another handle");
    return call.refuse (cudlaErrorInvalidAddress,
                        what + " " + hex (addr) + " is not registered on this handle");
  }
  tensor::View v;
  t.view (&v);
  if (it->second.size < size_t (v.size))
    return call.refuse (cudlaErrorInvalidAddress, tensor_label (task, kind, i) + " registered with " +
                                                      std::to_string (it->second.size) +
                                                      " bytes, the descriptor of '" + t.name + "' needs " +
                                                      std::to_string (v.size));
  *out = &it->second;
  return cudlaSuccess;
}

cudlaStatus check_task (const Call &call, cudlaDevHandle_t *h, const cudlaTask &task, uint32_t index,
                        Resolved *r)
{
  const auto at = [index] { return task_prefix (index); };
  if (!swdla::known (task.moduleHandle))
    return call.refuse (cudlaErrorInvalidModule, at () + "unknown module");
  if (task.moduleHandle->owner != h)
    return call.refuse (cudlaErrorInvalidModule, at () + "the module was loaded on another handle");
  if (task.waitEvents || task.signalEvents)
    return call.refuse (cudlaErrorUnsupportedOperation,
                        at () + "wait/signal events are standalone-only (NULL in hybrid)");
  const swdla::Model &m = task.moduleHandle->model;
  if (task.numInputTensors != m.inputs.size () || task.numOutputTensors != m.outputs.size ())
    return call.refuse (cudlaErrorInvalidParam,
                        at () + std::to_string (task.numInputTensors) + " inputs / " +
                            std::to_string (task.numOutputTensors) + " outputs, the module has " +
                            std::to_string (m.inputs.size ()) + " / " + std::to_string (m.outputs.size ()));
  if (!task.inputTensor || !task.outputTensor)
    return call.refuse (cudlaErrorInvalidParam, at () + "inputTensor or outputTensor is NULL");
  r->module = task.moduleHandle;
  for (uint32_t i = 0; i < task.numInputTensors; ++i) {
    swdla::Registration *reg = nullptr;
    const cudlaStatus s = resolve (call, h, task.inputTensor[i], m.inputs[i], index, "input", i, &reg);
    if (s != cudlaSuccess)
      return s;
    r->inputs.push_back (reg);
  }
  for (uint32_t i = 0; i < task.numOutputTensors; ++i) {
    swdla::Registration *reg = nullptr;
    const cudlaStatus s = resolve (call, h, task.outputTensor[i], m.outputs[i], index, "output", i, &reg);
    if (s != cudlaSuccess)
      return s;
    r->outputs.push_back (reg);
  }
  return cudlaSuccess;
}

/* SWDLA_CHECK_LAYOUT=1 (tests): waits for the input to be written, reads it back and refuses the
 * task when a byte the independent format oracle calls padding is not zero. Blocks the host. */
cudlaStatus check_input_padding (const swdla::Call &call, const Resolved &r, cudaStream_t stream)
{
  for (size_t i = 0; i < r.inputs.size (); ++i) {
    std::vector<uint8_t> bytes (r.inputs[i]->size);
    cudaError_t err = cudaStreamSynchronize (stream);
    if (err == cudaSuccess)
      err = cudaMemcpy (bytes.data (), r.inputs[i]->cuda_ptr, bytes.size (), cudaMemcpyDeviceToHost);
    if (err != cudaSuccess)
      return call.refuse (cudlaErrorCuda,
                          std::string ("reading the input back failed: ") + cudaGetErrorName (err));
    const std::string why =
        swdla::input_padding_problem (r.module->model.inputs[i], bytes.data (), bytes.size ());
    if (!why.empty ())
      return call.refuse (cudlaErrorInvalidParam, "layout check (SWDLA_CHECK_LAYOUT): " + why);
  }
  return cudlaSuccess;
}

/* Queues one checked task; CUDA launch errors only. */
cudaError_t enqueue_task (cudlaDevHandle_t *h, const Resolved &r, cudaStream_t stream, bool noop,
                          const swdla::SubmitSettings &settings)
{
  swdla::Core &core = state ().cores[h->core];
  ++core.tasks;
  const swdla::TaskPlan plan = state ().faults.on_task ();
  cudaError_t err = cudaSuccess;
  if (core.last && core.last->event ())
    err = cudaStreamWaitEvent (stream, core.last->event (), 0);
  /* SWDLA_SERVICE_US + the batch's SWDLA_SERVICE_PER_ITEM_US, jittered */
  const uint64_t service_ns = state ().service.next_ns (settings, r.module->model.batch ());
  if (err == cudaSuccess && service_ns > 0)
    err = swdla::enqueue_spin (stream, service_ns);
  int32_t status = cudlaSuccess;
  bool run = !noop;
  if (run && plan.hang_ms > 0) {
    const bool times_out = plan.hang_ms >= int64_t (h->timeout_ms);
    const int64_t ms = times_out ? int64_t (h->timeout_ms) : plan.hang_ms;
    if (err == cudaSuccess)
      err = swdla::enqueue_spin (stream, uint64_t (ms) * 1000000u);
    if (times_out) {
      status = cudlaErrorDlaErrEngineTimeout;
      run = false;
    }
  }
  if (run && plan.task_error) {
    status = plan.task_error;
    run = false;
  }
  if (run && plan.external_error) {
    status = plan.external_error;
    run = false;
  }
  /* The 911 before the task's status: a reader that sees the error status (any sharer of the handle,
   * which reads cudlaGetLastError as a snapshot) must also see the process poisoned, as a DLA fault
   * raises both at once. */
  if (err == cudaSuccess && plan.external_error && !noop)
    err = swdla::enqueue_store (stream, state ().poison.device (), swdla::kExternalDeviceError);
  if (run && err == cudaSuccess) /* the network, then its status (success), from one graph */
    err = r.module->device->enqueue (stream, r.input_ptrs (), r.output_ptrs (), {h->status.device (), status},
                                     settings.graphs);
  else if (err == cudaSuccess && !noop)
    err = swdla::enqueue_store (stream, h->status.device (), status);
  swdla::TaskEventPtr done = h->spare_event ();
  if (err == cudaSuccess)
    err = done->record (stream);
  if (err != cudaSuccess)
    return err;
  core.last = done;
  for (auto *reg : r.inputs)
    reg->last_use = done;
  for (auto *reg : r.outputs)
    reg->last_use = done;
  /* Drops finished tasks, after the enqueue so that their event queries do not delay the task: the
   * list holds what is in flight, not every task ever run. */
  h->busy ();
  h->pending.push_back (done);
  return cudaSuccess;
}

/* The submit under swdla's lock: checks, the queue limit, the CPU burn, then the tasks. A full
 * queue that blocks sets `wait` to the handle's oldest task instead (the caller waits unlocked and
 * comes back: everything is checked again, as the handle may have changed meanwhile). */
cudlaStatus submit_locked (const Call &call, cudlaDevHandle const devHandle,
                           const cudlaTask *const ptrToTasks, uint32_t const numTasks, void *const stream,
                           uint32_t const flags, swdla::TaskEventPtr *wait)
{
  if (!swdla::known (devHandle))
    return call.refuse (cudlaErrorInvalidDevice, "unknown device handle");
  if (!ptrToTasks || numTasks == 0)
    return call.refuse (cudlaErrorInvalidParam, "no tasks (ptrToTasks NULL or numTasks 0)");
  const uint32_t known_flags =
      CUDLA_SUBMIT_NOOP | CUDLA_SUBMIT_SKIP_LOCK_ACQUIRE | CUDLA_SUBMIT_DIAGNOSTICS_TASK;
  if (flags & ~known_flags)
    return call.refuse (cudlaErrorInvalidParam, "unknown submission flags " + hex (flags));
  if (flags & CUDLA_SUBMIT_DIAGNOSTICS_TASK)
    return call.refuse (cudlaErrorUnsupportedOperation, "diagnostics tasks are not emulated");
  if (!stream || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
    return call.refuse (cudlaErrorInvalidParam,
                        "hybrid mode needs a created CUDA stream, not NULL/the default stream");
  const cudlaStatus usable = swdla::cuda_usable (call);
  if (usable != cudlaSuccess)
    return usable;
  cudaStream_t s = static_cast<cudaStream_t> (stream);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  const cudaError_t qerr = cudaStreamIsCapturing (s, &capture);
  if (qerr != cudaSuccess) {
    cudaGetLastError ();
    return call.refuse (cudlaErrorInvalidParam,
                        std::string ("not a usable stream: ") + cudaGetErrorName (qerr));
  }
  if (capture != cudaStreamCaptureStatusNone)
    return call.refuse (cudlaErrorUnsupportedOperation,
                        "the stream is capturing (no CUDA graphs with DLA tasks)");
  std::vector<Resolved> tasks (numTasks);
  for (uint32_t i = 0; i < numTasks; ++i) {
    const cudlaStatus st = check_task (call, devHandle, ptrToTasks[i], i, &tasks[i]);
    if (st != cudlaSuccess)
      return st;
  }
  const swdla::SubmitSettings &settings = state ().settings.get ();
  /* SWDLA_QUEUE_LIMIT: the handle's tasks not yet complete, oldest first (one core runs them in
   * submission order); without a limit every submit is admitted and the list is pruned after the
   * enqueue (enqueue_task), so no event query delays the task. */
  if (settings.queue.limit != 0)
    devHandle->busy ();
  std::string why;
  switch (swdla::admit (settings.queue, devHandle->pending.size (), numTasks, &why)) {
    case swdla::Admission::kAdmit:
      break;
    case swdla::Admission::kWait:
      *wait = devHandle->pending.front ();
      return cudlaSuccess;
    case swdla::Admission::kRefuse:
      return call.refuse (cudlaErrorOutOfResources, why);
  }
  if (settings.check_layout)
    for (const Resolved &r : tasks) {
      const cudlaStatus st = check_input_padding (call, r, s);
      if (st != cudlaSuccess)
        return st;
    }
  /* SWDLA_SUBMIT_CPU_US: a real submit's CPU, spent under the global lock as cuDLA's would be */
  swdla::burn_thread_cpu (uint64_t (settings.submit_cpu_us) * 1000u);
  for (const Resolved &r : tasks) {
    const cudaError_t err = enqueue_task (devHandle, r, s, (flags & CUDLA_SUBMIT_NOOP) != 0, settings);
    if (err != cudaSuccess)
      return call.refuse (cudlaErrorCuda,
                          std::string ("queueing the task failed: ") + cudaGetErrorName (err));
  }
  return cudlaSuccess;
}

}  // namespace

extern "C" cudlaStatus cudlaSubmitTask (cudlaDevHandle const devHandle, const cudlaTask *const ptrToTasks,
                                        uint32_t const numTasks, void *const stream, uint32_t const flags)
{
  CountCpu count;
  const Call call ("cudlaSubmitTask");
  if (call.injected ())
    return cudlaStatus (call.injected ());
  for (;;) {
    swdla::TaskEventPtr wait;
    {
      std::lock_guard<std::mutex> lock (state ().mutex);
      if (swdla::known (devHandle))
        count.core = devHandle->core;
      const cudlaStatus st = submit_locked (call, devHandle, ptrToTasks, numTasks, stream, flags, &wait);
      if (!wait)
        return st;
    }
    count.excluded += wait_for_slot (wait); /* SWDLA_QUEUE_FULL=block: other handles and cores go on */
  }
}

extern "C" uint64_t swdlaSubmitCpuNs (void)
{
  return submit_cpu_ns.load ();
}

extern "C" uint64_t swdlaSubmitCpuNsCore (int core)
{
  return core >= 0 && core < swdla::kMaxCores ? submit_cpu_ns_core[core].load () : 0;
}

extern "C" int swdlaQueueWaiters (void)
{
  return queue_waiters.load ();
}
