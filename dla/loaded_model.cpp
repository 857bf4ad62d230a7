/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dla/loaded_model.h"

#include <algorithm>

#include "dla/core_queue.h"
#include "dla/model_file.h"

namespace dla {

namespace {

Status check_config (const EngineConfig &cfg)
{
  if (cfg.task_timeout_ms < kMinTaskTimeoutMs || cfg.task_timeout_ms > kMaxTaskTimeoutMs)
    return Status::Error (Code::kSettings, "task timeout " + std::to_string (cfg.task_timeout_ms) +
                                               " ms is out of range: cuDLA takes " +
                                               std::to_string (kMinTaskTimeoutMs) + ".." +
                                               std::to_string (kMaxTaskTimeoutMs) + " ms");
  if (cfg.dla_core < kEveryCore)
    return Status::Error (Code::kSettings, "DLA core " + std::to_string (cfg.dla_core) +
                                               " is invalid: cores count from 0, and -1 runs every core");
  if (cfg.cuda_device < 0)
    return Status::Error (Code::kSettings, "CUDA device " + std::to_string (cfg.cuda_device) + " is invalid");
  return Status::Ok ();
}

}  // namespace

Status LoadedModel::Open (const EngineConfig &cfg, std::shared_ptr<LoadedModel> *out)
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

  std::shared_ptr<LoadedModel> m (new LoadedModel ());
  m->cfg_ = cfg;
  m->cfg_.num_slots = 0; /* per sharer: not the model's */
  m->cfg_.accept_tensors = nullptr;
  if (!(st = Library::Load (&m->lib_)).ok () ||
      !(st = check_model_for_backend (bytes.data (), bytes.size (), m->lib_->backend (), cfg.model_path))
           .ok () ||
      !(st = m->open_cores (bytes)).ok () || !(st = m->map_tensors ()).ok ())
    return st;
  *out = std::move (m);
  return Status::Ok ();
}

LoadedModel::~LoadedModel ()
{
  /* Each core tears down in its own order (core_queue.h), then its handle is given back; the
   * library goes last. */
  cores_.clear ();
  handles_.clear ();
  lib_.reset ();
}

/* One core, or every core cudlaDeviceGetCount reports, each with the same loadable. A core that
 * refuses it ends the open naming the core: never a silent fallback to fewer cores. A core's
 * handle is reserved first (core_handles.h): the 17th is refused naming model-instance-id. */
Status LoadedModel::open_cores (const std::vector<uint8_t> &bytes)
{
  const bool every = cfg_.dla_core == kEveryCore;
  const std::string user = cfg_.user.empty () ? "the engine" : cfg_.user;
  int count = 1;
  for (int i = 0; i < count; ++i) {
    const int core = core_at (cfg_.dla_core, i);
    CoreHandles::Reservation handle;
    Status st = CoreHandles::Process ().reserve (core, user, &handle);
    std::unique_ptr<CoreQueue> q;
    if (st.ok ())
      st = CoreQueue::Open (lib_, cfg_.cuda_device, core, cfg_.task_timeout_ms, bytes, cfg_.model_path, &q);
    if (st.ok ())
      st = q->make_stream ();
    if (!st.ok ())
      return every ? Status::Error (st.code, "dla-core=-1 runs the model on every DLA core, and core " +
                                                 std::to_string (core) + " refused it: " + st.message +
                                                 "; set dla-core to one core that takes it")
                   : st;
    if (every && i == 0)
      count = int (std::min<uint64_t> (q->device ().core_count (), kMaxCores));
    handles_.push_back (std::move (handle));
    cores_.push_back (std::move (q));
  }
  scheduler_.reset (new CoreScheduler (count));
  return Status::Ok ();
}

/* The same loadable on every core: its tensors are read from the first. */
Status LoadedModel::map_tensors ()
{
  const Module &module = cores_[0]->module ();
  Status st;
  for (const auto &d : module.inputs ()) {
    TensorInfo t;
    if (!(st = map_descriptor (d, Direction::kInput, &t)).ok ())
      return st;
    inputs_.push_back (std::move (t));
  }
  for (const auto &d : module.outputs ()) {
    TensorInfo t;
    if (!(st = map_descriptor (d, Direction::kOutput, &t)).ok ())
      return st;
    outputs_.push_back (std::move (t));
  }
  return Status::Ok ();
}

void *LoadedModel::primary_context () const
{
  return cores_[0]->device ().context ().handle ();
}

uint64_t LoadedModel::join (int max_tasks)
{
  std::lock_guard<std::mutex> lock (watch_mutex_);
  const uint64_t id = next_sharer_++;
  sharers_[id].max_tasks = max_tasks;
  tell_watchers ();
  return id;
}

void LoadedModel::leave (uint64_t sharer)
{
  std::lock_guard<std::mutex> lock (watch_mutex_);
  if (sharers_.erase (sharer))
    tell_watchers ();
}

void LoadedModel::watch (uint64_t sharer, SharersChanged changed)
{
  std::lock_guard<std::mutex> lock (watch_mutex_);
  auto it = sharers_.find (sharer);
  if (it == sharers_.end ())
    return;
  it->second.changed = std::move (changed);
  tell_watchers ();
}

int LoadedModel::sharers () const
{
  std::lock_guard<std::mutex> lock (watch_mutex_);
  return int (sharers_.size ());
}

int LoadedModel::tasks_in_flight () const
{
  std::lock_guard<std::mutex> lock (watch_mutex_);
  return total_tasks ();
}

int LoadedModel::total_tasks () const
{
  int tasks = 0;
  for (const auto &s : sharers_)
    tasks += s.second.max_tasks;
  return tasks;
}

void LoadedModel::tell_watchers ()
{
  const int tasks = total_tasks ();
  for (const auto &s : sharers_)
    if (s.second.changed)
      s.second.changed (tasks, int (sharers_.size ()));
}

}  // namespace dla
