#include "dla/engine.h"

#include <cuda_runtime_api.h>

#include "dla/cuda_resources.h"
#include "dla/device.h"
#include "dla/fatal.h"
#include "dla/model_file.h"
#include "dla/module.h"
#include "dla/primary_context.h"
#include "dla/status_names.h"

namespace dla {

struct Engine::Impl {
  std::shared_ptr<const Library> lib;
  std::shared_ptr<const Device> device;
  Module module;
  CudaStream stream;
};

Engine::Engine () : impl_ (new Impl ()) {}

Engine::~Engine ()
{
  /* Teardown order (docs/cudla.md 4.6): stream idle -> unregister and free the tensors -> destroy
   * the stream -> unload the module -> destroy the device -> release the primary context. */
  if (impl_->device) {
    ScopedContext scope (impl_->device->context ().handle ());
    if (impl_->stream.get ())
      cudaStreamSynchronize (static_cast<cudaStream_t> (impl_->stream.get ()));
    slots_.clear ();
    impl_->stream.reset ();
  }
  slots_.clear ();
  impl_->module.reset ();
  impl_->device.reset ();
  impl_->lib.reset ();
}

namespace {

Status check_config (const EngineConfig &cfg)
{
  if (cfg.num_slots < 1 || cfg.num_slots > kMaxSlots)
    return Status::Error (Code::kSettings, "number of slots " + std::to_string (cfg.num_slots) +
                                               " is out of range 1.." + std::to_string (kMaxSlots));
  if (cfg.task_timeout_ms < kMinTaskTimeoutMs || cfg.task_timeout_ms > kMaxTaskTimeoutMs)
    return Status::Error (Code::kSettings, "task timeout " + std::to_string (cfg.task_timeout_ms) +
                                               " ms is out of range: cuDLA takes " +
                                               std::to_string (kMinTaskTimeoutMs) + ".." +
                                               std::to_string (kMaxTaskTimeoutMs) + " ms");
  if (cfg.cuda_device < 0)
    return Status::Error (Code::kSettings, "CUDA device " + std::to_string (cfg.cuda_device) + " is invalid");
  return Status::Ok ();
}

}  // namespace

Status Engine::Open (const EngineConfig &cfg, std::unique_ptr<Engine> *out)
{
  Status st = check_config (cfg);
  if (!st.ok ())
    return st;
  /* The file first: its errors are the commonest and need no DLA. */
  std::vector<uint8_t> bytes;
  if (!(st = read_model_file (cfg.model_path, &bytes)).ok ())
    return st;
  const ModelKind kind = model_kind (bytes.data (), bytes.size ());
  if (kind == ModelKind::kUnknown || kind == ModelKind::kTensorRtEngine)
    return check_model_for_backend (bytes.data (), bytes.size (), "dla", cfg.model_path);

  std::unique_ptr<Engine> e (new Engine ());
  e->cfg_ = cfg;
  Impl &im = *e->impl_;
  if (!(st = Library::Load (&im.lib)).ok () ||
      !(st = check_model_for_backend (bytes.data (), bytes.size (), im.lib->backend (), cfg.model_path))
           .ok () ||
      !(st = Device::Open (im.lib, cfg.cuda_device, cfg.dla_core, &im.device)).ok () ||
      !(st = im.device->set_task_timeout (cfg.task_timeout_ms)).ok () ||
      !(st = Module::Load (im.device, bytes.data (), bytes.size (), cfg.model_path, &im.module)).ok () ||
      !(st = e->map_tensors ()).ok ())
    return st;
  if (cfg.accept_tensors && !(st = cfg.accept_tensors (e->inputs_, e->outputs_)).ok ())
    return st;
  if (!(st = e->make_slots ()).ok ())
    return st;
  *out = std::move (e);
  return Status::Ok ();
}

Status Engine::map_tensors ()
{
  Status st;
  for (const auto &d : impl_->module.inputs ()) {
    TensorInfo t;
    if (!(st = map_descriptor (d, Direction::kInput, &t)).ok ())
      return st;
    inputs_.push_back (std::move (t));
  }
  for (const auto &d : impl_->module.outputs ()) {
    TensorInfo t;
    if (!(st = map_descriptor (d, Direction::kOutput, &t)).ok ())
      return st;
    outputs_.push_back (std::move (t));
  }
  return Status::Ok ();
}

Status Engine::make_slots ()
{
  ScopedContext scope (primary_context ());
  Status st = CudaStream::Create (&impl_->stream);
  for (int i = 0; st.ok () && i < cfg_.num_slots; ++i) {
    std::unique_ptr<TaskSlot> s;
    st = TaskSlot::Create (impl_->device, impl_->module.handle (), inputs_, outputs_, i, &s);
    if (st.ok ())
      slots_.push_back (std::move (s));
  }
  ring_ = SlotRing (int (slots_.size ()));
  return st;
}

const std::string &Engine::backend () const
{
  return impl_->lib->backend ();
}
std::string Engine::cudla_version () const
{
  return impl_->lib->version_string ();
}
void *Engine::primary_context () const
{
  return impl_->device->context ().handle ();
}
bool Engine::has_task_timeout () const
{
  return impl_->lib->has_task_timeout ();
}
const std::string &Engine::library_path () const
{
  return impl_->lib->path ();
}
bool Engine::failed () const
{
  return process_poisoned ();
}

Status Engine::fatal_status () const
{
  return Status::Error (Code::kFatal, "the DLA engine stopped after a fatal error (" + poison_reason () +
                                          "); restart the process");
}

/* 911 poisons CUDA in the whole process (dla/fatal.h): from now on every engine refuses work. */
Status Engine::on_cuda_error (int err, const char *what)
{
  const cudlaStatus last = impl_->device->last_error ();
  const std::string dla = "cudlaGetLastError reports " + cudla_status_name (last);
  if (!is_process_fatal (err))
    return Status::Error (Code::kRuntime,
                          std::string (what) + " failed: " + cuda_error_name (err) + "; " + dla);
  const std::string why =
      std::string (what) + ": CUDA reported " + cuda_error_name (err) + " and " + dla +
      (last == cudlaErrorDlaErrEngineTimeout
           ? " (the task did not finish within " + std::to_string (cfg_.task_timeout_ms) + " ms)"
           : "");
  poison_process (why);
  return Status::Error (
      Code::kFatal, "DLA fault: " + why + "; CUDA cannot be used again in this process: restart the process");
}

Status Engine::acquire (Task *task)
{
  if (process_poisoned ())
    return fatal_status ();
  std::lock_guard<std::mutex> lock (mutex_);
  int slot = -1;
  Status st = ring_.acquire (&slot);
  if (!st.ok ())
    return st;
  TaskSlot &s = *slots_[size_t (slot)];
  s.timed = timed_task (s.tasks++);
  s.timings = SlotTimings ();
  s.wait.started ();
  *task = Task{slot, s.input_ptr (0), s.timed};
  return Status::Ok ();
}

void Engine::release (const Task &task)
{
  std::lock_guard<std::mutex> lock (mutex_);
  ring_.release (task.slot);
}

/* The slot a call names, once the process is healthy and the slot's state allows the call. */
TaskSlot *Engine::slot_for (const Task &task, Status (SlotRing::*check) (int) const, Status *st)
{
  *st = process_poisoned () ? fatal_status () : (ring_.*check) (task.slot);
  return st->ok () ? slots_[size_t (task.slot)].get () : nullptr;
}

Status Engine::submit (const Task &task, void *input_ready)
{
  Status st;
  std::lock_guard<std::mutex> lock (mutex_);
  TaskSlot *s = slot_for (task, &SlotRing::check_submit, &st);
  if (!s)
    return st;
  ScopedContext scope (primary_context ());
  void *stream = impl_->stream.get ();
  int err = cudaSuccess;
  const cudlaStatus cs =
      s->queue (*impl_->device, stream, input_ready, after_.queue ? &after_ : nullptr, &err);
  if (cs != cudlaSuccess) {
    ring_.ended (task.slot);
    cudaStreamSynchronize (static_cast<cudaStream_t> (stream));
    if (impl_->lib->emulated_external_error () != 0)
      return on_cuda_error (impl_->lib->emulated_external_error (), "cudlaSubmitTask");
    return Status::Error (Code::kRuntime, cudla_call_failed ("cudlaSubmitTask", cs) +
                                              impl_->lib->refusal_detail () + " (DLA core " +
                                              std::to_string (cfg_.dla_core) + ", slot " +
                                              std::to_string (task.slot) + ")");
  }
  /* Queued whatever happens next: wait () must still wait for it. Behind the tasks already queued:
   * its alarm counts from their expected end. */
  ring_.submitted (task.slot);
  s->wait.queued (queue_end_);
  queue_end_ = s->wait.expected_end ();
  if (err != cudaSuccess) {
    /* The caller releases the input on an error: nothing queued may still be reading it. */
    cudaStreamSynchronize (static_cast<cudaStream_t> (stream));
    return on_cuda_error (err, "queueing the DLA task");
  }
  return Status::Ok ();
}

Status Engine::wait (const Task &task, Deadline deadline)
{
  Status st;
  TaskSlot *s = nullptr;
  {
    std::lock_guard<std::mutex> lock (mutex_);
    if (!(s = slot_for (task, &SlotRing::check_in_flight, &st)))
      return st;
  }
  ScopedContext scope (primary_context ());
  /* The sync seam: the thread sleeps while the DLA works (completion_wait.h), without the mutex. */
  const int err = s->wait.wait (s->end_event (), deadline);
  if (err == cudaErrorNotReady)
    return Status::Error (Code::kTimeout, "the DLA task on slot " + std::to_string (task.slot) +
                                              " had not finished by the caller's deadline");
  std::lock_guard<std::mutex> lock (mutex_);
  return finish (task.slot, err);
}

Status Engine::poll (const Task &task, bool *done)
{
  *done = false;
  Status st;
  std::lock_guard<std::mutex> lock (mutex_);
  TaskSlot *s = slot_for (task, &SlotRing::check_in_flight, &st);
  if (!s)
    return st;
  ScopedContext scope (primary_context ());
  const cudaError_t err = cudaEventQuery (static_cast<cudaEvent_t> (s->end_event ()));
  if (err == cudaErrorNotReady)
    return Status::Ok ();
  *done = true;
  s->wait.ended ();
  return finish (task.slot, err);
}

bool Engine::in_flight (int slot)
{
  std::lock_guard<std::mutex> lock (mutex_);
  return ring_.check_in_flight (slot).ok ();
}

/* The task's end was seen (or CUDA failed): the slot is free again; what did the DLA say? The
 * tasks still queued began when it ended: they end one expected duration after another. */
Status Engine::finish (int slot, int cuda_err)
{
  ring_.ended (slot);
  TaskSlot &s = *slots_[size_t (slot)];
  queue_end_ = s.wait.ended_at () + ring_.busy () * s.wait.expected ();
  if (cuda_err != cudaSuccess)
    return on_cuda_error (cuda_err, "waiting for the DLA task");
  Status st = task_status ();
  if (!st.ok ())
    return st;
  s.timings.total_ms = s.wait.elapsed_ms ();
  if (s.timed)
    s.learn_timings ();
  return Status::Ok ();
}

/* CUDA saw no fault; the DLA may still report one for the task (synchronised first, as required,
 * docs/cudla.md 4.5). Only then is a test backend asked whether it emulates a 911. */
Status Engine::task_status ()
{
  const cudlaStatus last = impl_->device->last_error ();
  if (last == cudlaSuccess)
    return Status::Ok ();
  if (impl_->lib->emulated_external_error () != 0)
    return on_cuda_error (impl_->lib->emulated_external_error (), "waiting for the DLA task");
  if (last == cudlaErrorDlaErrEngineTimeout)
    return Status::Error (Code::kTimeout, "the DLA task did not finish within the task timeout of " +
                                              std::to_string (cfg_.task_timeout_ms) +
                                              " ms: cudlaGetLastError reports " + cudla_status_name (last));
  return Status::Error (Code::kRuntime, "the DLA task failed: cudlaGetLastError reports " +
                                            cudla_status_name (last) + " (DLA core " +
                                            std::to_string (cfg_.dla_core) + ")");
}

void *Engine::input_ptr (int slot, int index) const
{
  if (slot < 0 || slot >= int (slots_.size ()) || index < 0)
    return nullptr;
  return slots_[slot]->input_ptr (size_t (index));
}

const void *Engine::host_output (int slot, int index) const
{
  if (slot < 0 || slot >= int (slots_.size ()) || index < 0)
    return nullptr;
  return slots_[slot]->host_output (size_t (index));
}

void Engine::set_after_task (AfterTask after)
{
  std::lock_guard<std::mutex> lock (mutex_);
  after_ = std::move (after);
}

Status Engine::read_input (int slot, int index, void *host, size_t bytes)
{
  void *src = input_ptr (slot, index);
  if (!src || index >= int (inputs_.size ()) || bytes != size_t (inputs_[size_t (index)].view.size))
    return Status::Error (Code::kRuntime, "read_input: slot " + std::to_string (slot) + ", input " +
                                              std::to_string (index) + " or " + std::to_string (bytes) +
                                              " bytes do not fit the model");
  return read_tensor (src, host, bytes, "cudaMemcpyAsync (an input tensor, to dump it)");
}

Status Engine::read_output (int slot, int index, void *host, size_t bytes)
{
  const bool fits = slot >= 0 && slot < int (slots_.size ()) && index >= 0 &&
                    index < int (outputs_.size ()) && bytes == size_t (outputs_[size_t (index)].view.size);
  if (!fits)
    return Status::Error (Code::kRuntime, "read_output: slot " + std::to_string (slot) + ", output " +
                                              std::to_string (index) + " or " + std::to_string (bytes) +
                                              " bytes do not fit the model");
  return read_tensor (slots_[size_t (slot)]->output_ptr (size_t (index)), host, bytes,
                      "cudaMemcpyAsync (an output tensor, to dump it)");
}

Status Engine::read_tensor (const void *src, void *host, size_t bytes, const char *what)
{
  /* Called from the consumer's thread: the context and the stream's lock are its own to take. */
  ScopedContext scope (primary_context ());
  auto *stream = static_cast<cudaStream_t> (impl_->stream.get ());
  int err;
  {
    std::lock_guard<std::mutex> lock (mutex_);
    err = cudaMemcpyAsync (host, src, bytes, cudaMemcpyDeviceToHost, stream);
  }
  if (err == cudaSuccess)
    err = cudaStreamSynchronize (stream);
  if (err == cudaSuccess)
    return Status::Ok ();
  std::lock_guard<std::mutex> lock (mutex_);
  return on_cuda_error (err, what);
}

SlotTimings Engine::timings (int slot) const
{
  if (slot < 0 || slot >= int (slots_.size ()))
    return SlotTimings ();
  return slots_[slot]->timings;
}

std::string Engine::describe () const
{
  std::string s =
      "backend=" + backend () + " library=" + library_path () + " cudla-version=" + cudla_version () +
      " dla-core=" + std::to_string (cfg_.dla_core) + "/" + std::to_string (impl_->device->core_count ()) +
      " cuda-device=" + std::to_string (cfg_.cuda_device) + " slots=" + std::to_string (slots_.size ()) +
      " task-timeout=" + (has_task_timeout () ? std::to_string (cfg_.task_timeout_ms) + "ms" : "default") +
      " model=" + cfg_.model_path;
  for (const auto &t : inputs_)
    s += "\ninput '" + t.name + "': " + describe_view (t.view) + " [" + t.reading +
         "] raw: " + describe_raw (t.raw);
  for (const auto &t : outputs_)
    s += "\noutput '" + t.name + "': " + describe_view (t.view) + " [" + t.reading +
         "] raw: " + describe_raw (t.raw);
  return s;
}

}  // namespace dla
