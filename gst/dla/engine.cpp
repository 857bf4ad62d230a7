#include "engine.h"

#include <cuda_runtime_api.h>

#include "completion_wait.h"
#include "cuda_resources.h"
#include "device.h"
#include "model_file.h"
#include "module.h"
#include "registered_tensor.h"
#include "status_names.h"

namespace dla {

namespace {
cudaEvent_t ev (const CudaEvent &e)
{
  return static_cast<cudaEvent_t> (e.get ());
}
}  // namespace

struct Engine::Impl {
  std::shared_ptr<const Library> lib;
  Device device;
  Module module;
  CudaStream stream;
  CudaEvent foreign; /* recorded on an upstream stream, waited on by ours */
};

struct Engine::Slot {
  enum class State { kIdle, kBegun, kSubmitted };
  std::vector<RegisteredTensor> inputs, outputs;
  std::vector<PinnedBuffer> host_outputs;
  /* The task and its pointer arrays live as long as the slot: samples keep them until the sync. */
  std::vector<const uint64_t *> in_ptrs;
  std::vector<uint64_t *> out_ptrs;
  cudlaTask task{};
  CudaEvent start, submitted, dla_end, done; /* with timestamps: timed tasks only */
  CudaEvent done_untimed;                    /* the other tasks' end */
  State state = State::kIdle;
  bool began = false;
  bool timed = false;
  uint64_t tasks = 0;
  SlotTimings timings;
  CompletionWait wait;
};

Engine::Engine () : impl_ (new Impl ()) {}

Engine::~Engine ()
{
  /* Teardown order (ARCHITECTURE section 3): stream idle -> unregister and free the tensors ->
   * destroy the stream -> unload the module -> destroy the device -> release the primary context. */
  if (impl_->device.valid ()) {
    ScopedContext scope (impl_->device.context ().handle ());
    if (impl_->stream.get ())
      cudaStreamSynchronize (static_cast<cudaStream_t> (impl_->stream.get ()));
    slots_.clear ();
    impl_->foreign.reset ();
    impl_->stream.reset ();
  }
  slots_.clear ();
  impl_->module.reset ();
  impl_->device.reset ();
  impl_->lib.reset ();
}

Status Engine::Open (const EngineConfig &cfg, std::unique_ptr<Engine> *out)
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

  /* The file first: its errors are the commonest and need no DLA. */
  std::vector<uint8_t> bytes;
  Status st = read_model_file (cfg.model_path, &bytes);
  if (!st.ok ())
    return st;
  const ModelKind kind = model_kind (bytes.data (), bytes.size ());
  if (kind == ModelKind::kUnknown || kind == ModelKind::kTensorRtEngine)
    return check_model_for_backend (bytes.data (), bytes.size (), "dla", cfg.model_path);

  std::unique_ptr<Engine> e (new Engine ());
  e->cfg_ = cfg;
  Impl &im = *e->impl_;
  st = Library::Load (&im.lib);
  if (!st.ok ())
    return st;
  st = check_model_for_backend (bytes.data (), bytes.size (), im.lib->backend (), cfg.model_path);
  if (!st.ok ())
    return st;
  st = Device::Open (im.lib, cfg.cuda_device, cfg.dla_core, &im.device);
  if (!st.ok ())
    return st;
  st = im.device.set_task_timeout (cfg.task_timeout_ms);
  if (!st.ok ())
    return st;
  st = Module::Load (im.device, bytes.data (), bytes.size (), cfg.model_path, &im.module);
  if (!st.ok ())
    return st;

  for (const auto &d : im.module.inputs ()) {
    TensorInfo t;
    if (!(st = map_descriptor (d, Direction::kInput, &t)).ok ())
      return st;
    e->inputs_.push_back (std::move (t));
  }
  for (const auto &d : im.module.outputs ()) {
    TensorInfo t;
    if (!(st = map_descriptor (d, Direction::kOutput, &t)).ok ())
      return st;
    e->outputs_.push_back (std::move (t));
  }

  /* A classifier's tensors are megabytes: a descriptor asking for more is refused before anything
   * is allocated (on Jetson, GPU and pinned memory are the system's DRAM). */
  constexpr uint64_t kMaxTensorBytes = uint64_t (1) << 30;
  for (const auto *list : {&e->inputs_, &e->outputs_})
    for (const TensorInfo &t : *list)
      if (t.raw.size > kMaxTensorBytes)
        return Status::Error (Code::kModel, "tensor '" + t.name + "' needs " + std::to_string (t.raw.size) +
                                                " bytes, more than the " + std::to_string (kMaxTensorBytes) +
                                                " a classification model's tensor can "
                                                "have: not a classifier dlainfer can run");

  ScopedContext scope (im.device.context ().handle ());
  if (!(st = CudaStream::Create (&im.stream)).ok () || !(st = CudaEvent::Create (false, &im.foreign)).ok ())
    return st;

  for (int i = 0; i < cfg.num_slots; ++i) {
    std::unique_ptr<Slot> s (new Slot ());
    const std::string tag = " (slot " + std::to_string (i) + ")";
    for (const TensorInfo &t : e->inputs_) {
      RegisteredTensor r;
      if (!(st = RegisteredTensor::Create (im.device, t.raw.size, t.name + tag, &r)).ok ())
        return st;
      s->in_ptrs.push_back (r.dla_ptr ());
      s->inputs.push_back (std::move (r));
    }
    for (const TensorInfo &t : e->outputs_) {
      RegisteredTensor r;
      PinnedBuffer p;
      if (!(st = RegisteredTensor::Create (im.device, t.raw.size, t.name + tag, &r)).ok () ||
          !(st = PinnedBuffer::Create (t.raw.size, &p)).ok ())
        return st;
      s->out_ptrs.push_back (r.dla_ptr ());
      s->outputs.push_back (std::move (r));
      s->host_outputs.push_back (std::move (p));
    }
    s->task.moduleHandle = im.module.handle ();
    s->task.outputTensor = s->out_ptrs.data ();
    s->task.numOutputTensors = uint32_t (s->out_ptrs.size ());
    s->task.numInputTensors = uint32_t (s->in_ptrs.size ());
    s->task.inputTensor = s->in_ptrs.data ();
    s->task.waitEvents = nullptr; /* must be NULL in hybrid mode */
    s->task.signalEvents = nullptr;
    for (CudaEvent *ev : {&s->start, &s->submitted, &s->dla_end, &s->done})
      if (!(st = CudaEvent::Create (true, ev)).ok ())
        return st;
    if (!(st = CudaEvent::Create (false, &s->done_untimed)).ok ())
      return st;
    e->slots_.push_back (std::move (s));
  }
  *out = std::move (e);
  return Status::Ok ();
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
  return impl_->device.context ().handle ();
}
void *Engine::stream () const
{
  return impl_->stream.get ();
}
bool Engine::has_task_timeout () const
{
  return impl_->lib->has_task_timeout ();
}
const std::string &Engine::library_path () const
{
  return impl_->lib->path ();
}

Status Engine::fatal_status () const
{
  return Status::Error (Code::kFatal, "the DLA engine stopped after a fatal error (" + fatal_message_ +
                                          "); restart the process");
}

Status Engine::check_slot (int slot) const
{
  if (fatal_)
    return fatal_status ();
  if (slot < 0 || slot >= int (slots_.size ()))
    return Status::Error (Code::kRuntime, "slot " + std::to_string (slot) +
                                              " does not exist (the engine has " +
                                              std::to_string (slots_.size ()) + ")");
  return Status::Ok ();
}

Status Engine::check_free_slot (int slot) const
{
  Status st = check_slot (slot);
  if (st.ok () && slots_[slot]->state == Slot::State::kSubmitted)
    return Status::Error (Code::kRuntime, "slot " + std::to_string (slot) + " still has a task in flight");
  return st;
}

/* 911 poisons CUDA in the whole process: from now on every CUDA call fails, so refuse everything. */
Status Engine::on_cuda_error (int err, const char *what)
{
  const cudlaStatus last = impl_->device.last_error ();
  const std::string dla = "cudlaGetLastError reports " + cudla_status_name (last);
  if (err == kCudaErrorExternalDevice) {
    fatal_ = true;
    fatal_message_ =
        std::string (what) + ": CUDA reported " + cuda_error_name (err) + " and " + dla +
        (last == cudlaErrorDlaErrEngineTimeout
             ? " (the task did not finish within " + std::to_string (cfg_.task_timeout_ms) + " ms)"
             : "");
    return Status::Error (Code::kFatal, "DLA fault: " + fatal_message_ +
                                            "; CUDA cannot be used again in this " +
                                            "process: restart the process");
  }
  return Status::Error (Code::kRuntime,
                        std::string (what) + " failed: " + cuda_error_name (err) + "; " + dla);
}

void *Engine::input_ptr (int slot, int index) const
{
  if (slot < 0 || slot >= int (slots_.size ()) || index < 0 || index >= int (slots_[slot]->inputs.size ()))
    return nullptr;
  return slots_[slot]->inputs[index].cuda_ptr ();
}

Status Engine::begin (int slot)
{
  Status st = check_free_slot (slot);
  if (!st.ok ())
    return st;
  Slot &s = *slots_[slot];
  s.timed = timed_task (s.tasks++);
  if (s.timed) {
    ScopedContext scope (primary_context ());
    const cudaError_t err = cudaEventRecord (ev (s.start), static_cast<cudaStream_t> (stream ()));
    if (err != cudaSuccess)
      return on_cuda_error (err, "cudaEventRecord (slot start)");
  }
  s.state = Slot::State::kBegun;
  s.began = true;
  s.wait.started ();
  return Status::Ok ();
}

Status Engine::submit (int slot)
{
  Status st = check_free_slot (slot);
  if (!st.ok ())
    return st;
  Slot &s = *slots_[slot];
  if (s.state != Slot::State::kBegun) {
    s.began = false;
    s.timed = timed_task (s.tasks++);
    s.wait.started ();
  }
  ScopedContext scope (primary_context ());
  cudaStream_t strm = static_cast<cudaStream_t> (stream ());
  cudaError_t err = s.timed ? cudaEventRecord (ev (s.submitted), strm) : cudaSuccess;
  if (err != cudaSuccess) {
    cudaStreamSynchronize (strm); /* the caller releases the frame: the preprocessing must be done */
    return on_cuda_error (err, "cudaEventRecord (before the DLA task)");
  }
  const cudlaStatus cs = impl_->device.api ().SubmitTask (impl_->device.handle (), &s.task, 1, strm, 0);
  if (cs != cudlaSuccess) {
    s.state = Slot::State::kIdle;
    cudaStreamSynchronize (strm); /* likewise */
    if (impl_->lib->emulated_external_error () != 0)
      return on_cuda_error (impl_->lib->emulated_external_error (), "cudlaSubmitTask");
    return Status::Error (Code::kRuntime, cudla_call_failed ("cudlaSubmitTask", cs) +
                                              impl_->lib->refusal_detail () + " (DLA core " +
                                              std::to_string (cfg_.dla_core) + ", slot " +
                                              std::to_string (slot) + ")");
  }
  err = s.timed ? cudaEventRecord (ev (s.dla_end), strm) : cudaSuccess;
  for (size_t i = 0; err == cudaSuccess && i < s.outputs.size (); ++i)
    err = cudaMemcpyAsync (s.host_outputs[i].data (), s.outputs[i].cuda_ptr (), s.outputs[i].size (),
                           cudaMemcpyDeviceToHost, strm);
  if (err == cudaSuccess)
    err = cudaEventRecord (ev (s.timed ? s.done : s.done_untimed), strm);
  /* The task is queued whatever happens next: complete() must still wait for it. */
  s.state = Slot::State::kSubmitted;
  if (err != cudaSuccess) {
    /* The caller releases the frame on an error: nothing queued may still be reading it. */
    cudaStreamSynchronize (strm);
    return on_cuda_error (err, "queueing the output copy");
  }
  return Status::Ok ();
}

Status Engine::complete (int slot)
{
  Status st = check_slot (slot);
  if (!st.ok ())
    return st;
  Slot &s = *slots_[slot];
  if (s.state != Slot::State::kSubmitted)
    return Status::Error (Code::kRuntime,
                          "slot " + std::to_string (slot) + " has no task in flight to complete");
  ScopedContext scope (primary_context ());
  s.state = Slot::State::kIdle;
  s.timings = SlotTimings ();
  /* The sync seam: the thread sleeps while the DLA works (completion_wait.h). */
  cudaError_t err = static_cast<cudaError_t> (s.wait.wait ((s.timed ? s.done : s.done_untimed).get ()));
  /* swdla cannot make CUDA return 911; it reports the emulated fault beside the runtime. */
  if (err == cudaSuccess && impl_->lib->emulated_external_error () != 0)
    err = static_cast<cudaError_t> (impl_->lib->emulated_external_error ());
  if (err != cudaSuccess)
    return on_cuda_error (err, "waiting for the DLA task");
  /* CUDA saw no fault; the DLA may still report one for the task (synchronised first, as required). */
  const cudlaStatus last = impl_->device.last_error ();
  if (last == cudlaErrorDlaErrEngineTimeout)
    return Status::Error (Code::kTimeout, "the DLA task did not finish within the task timeout of " +
                                              std::to_string (cfg_.task_timeout_ms) +
                                              " ms: cudlaGetLastError reports " + cudla_status_name (last));
  if (last != cudlaSuccess)
    return Status::Error (Code::kRuntime, "the DLA task failed: cudlaGetLastError reports " +
                                              cudla_status_name (last) + " (DLA core " +
                                              std::to_string (cfg_.dla_core) + ")");
  s.timings.total_ms = s.wait.elapsed_ms ();
  if (!s.timed)
    return Status::Ok ();
  float ms = 0.f;
  if (cudaEventElapsedTime (&ms, ev (s.submitted), ev (s.dla_end)) == cudaSuccess)
    s.timings.dla_ms = ms;
  if (s.began && cudaEventElapsedTime (&ms, ev (s.start), ev (s.submitted)) == cudaSuccess)
    s.timings.preprocess_ms = ms;
  if (cudaEventElapsedTime (&ms, ev (s.began ? s.start : s.submitted), ev (s.done)) == cudaSuccess)
    s.wait.learn (ms);
  cudaGetLastError (); /* an elapsed-time query that failed must not linger as the runtime's last error */
  return Status::Ok ();
}

const void *Engine::host_output (int slot, int index) const
{
  if (slot < 0 || slot >= int (slots_.size ()) || index < 0 ||
      index >= int (slots_[slot]->host_outputs.size ()))
    return nullptr;
  return slots_[slot]->host_outputs[index].data ();
}

SlotTimings Engine::timings (int slot) const
{
  if (slot < 0 || slot >= int (slots_.size ()))
    return SlotTimings ();
  return slots_[slot]->timings;
}

Status Engine::wait_for_stream (void *cuda_stream)
{
  if (fatal_)
    return fatal_status ();
  if (cuda_stream == stream ())
    return Status::Ok ();
  ScopedContext scope (primary_context ());
  cudaError_t err = cudaEventRecord (ev (impl_->foreign), static_cast<cudaStream_t> (cuda_stream));
  if (err == cudaSuccess)
    err = cudaStreamWaitEvent (static_cast<cudaStream_t> (stream ()), ev (impl_->foreign), 0);
  if (err != cudaSuccess)
    return on_cuda_error (err, "ordering after the upstream CUDA stream");
  return Status::Ok ();
}

std::string Engine::describe () const
{
  std::string s =
      "backend=" + backend () + " library=" + library_path () + " cudla-version=" + cudla_version () +
      " dla-core=" + std::to_string (cfg_.dla_core) + "/" + std::to_string (impl_->device.core_count ()) +
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
