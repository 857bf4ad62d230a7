/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tools/inspect/worker.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <thread>

#include "dla/primary_context.h"
#include "dla/status_names.h"
#include "tools/inspect/tensor_io.h"

namespace inspect {
namespace {

double cpu_now_us ()
{
  timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

double wall_now_us ()
{
  return std::chrono::duration<double, std::micro> (std::chrono::steady_clock::now ().time_since_epoch ())
      .count ();
}

}  // namespace

int open_worker (const std::shared_ptr<const dla::Library> &lib, const std::vector<uint8_t> &bytes,
                 const Options &o, Worker *w, bool print)
{
  dla::Status st = dla::Device::Open (lib, 0, w->core, &w->device);
  if (!st.ok ()) {
    std::fprintf (stderr, "dlainfer-inspect: %s\n", st.message.c_str ());
    return kNoDla;
  }
  st = dla::Module::Load (w->device, bytes.data (), bytes.size (), o.file, &w->module);
  if (!st.ok ()) {
    std::fprintf (stderr, "dlainfer-inspect: %s\n", st.message.c_str ());
    return kRefused;
  }
  int rc = kOk;
  for (int dir = 0; dir < 2; ++dir) {
    const auto &raw = dir == 0 ? w->module.inputs () : w->module.outputs ();
    auto &infos = dir == 0 ? w->inputs : w->outputs;
    for (size_t i = 0; i < raw.size (); ++i) {
      dla::TensorInfo info;
      st = dla::map_descriptor (raw[i], dir == 0 ? dla::Direction::kInput : dla::Direction::kOutput, &info);
      if (print) {
        std::printf ("%s %zu: '%s' %s\n", dir == 0 ? "input" : "output", i,
                     dla::descriptor_name (raw[i]).c_str (),
                     st.ok () ? dla::describe_view (info.view).c_str () : "(no layout dlainfer supports)");
        if (st.ok ())
          std::printf ("  reading: %s\n", info.reading.c_str ());
        else
          std::printf ("  refused: %s\n", st.message.c_str ());
        std::printf ("  raw: %s\n", dla::describe_raw (raw[i]).c_str ());
      }
      if (!st.ok ()) {
        rc = kRefused;
        continue;
      }
      infos.push_back (info);
    }
  }
  return rc;
}

int prepare_worker (Worker *w, const std::vector<std::vector<uint8_t>> &input_bytes)
{
  dla::Status st;
  for (int dir = 0; dir < 2; ++dir) {
    const auto &raw = dir == 0 ? w->module.inputs () : w->module.outputs ();
    auto &ts = dir == 0 ? w->in_t : w->out_t;
    for (const auto &d : raw) {
      dla::RegisteredTensor t;
      st = dla::RegisteredTensor::Create (w->device, d.size, dla::descriptor_name (d), &t);
      if (!st.ok ()) {
        w->error = st.message;
        return kRunFailed;
      }
      ts.push_back (std::move (t));
    }
  }
  dla::ScopedContext scope (w->device->context ().handle ());
  for (size_t i = 0; i < w->in_t.size (); ++i) {
    w->in_ptrs.push_back (w->in_t[i].dla_ptr ());
    if (i < input_bytes.size () && !input_bytes[i].empty ()) {
      const cudaError_t e =
          cudaMemcpy (w->in_t[i].cuda_ptr (), input_bytes[i].data (),
                      std::min<size_t> (input_bytes[i].size (), w->in_t[i].size ()), cudaMemcpyHostToDevice);
      if (e != cudaSuccess) {
        w->error = dla::cuda_call_failed ("cudaMemcpy of the input", e);
        return kRunFailed;
      }
    }
  }
  for (auto &t : w->out_t)
    w->out_ptrs.push_back (t.dla_ptr ());
  st = dla::CudaStream::Create (&w->stream);
  if (st.ok ())
    st = dla::CudaEvent::Create (true, &w->start);
  if (st.ok ())
    st = dla::CudaEvent::Create (true, &w->stop);
  if (!st.ok ()) {
    w->error = st.message;
    return kRunFailed;
  }
  return kOk;
}

void run_worker (Worker *w, const Options &o, std::atomic<int> *ready, int total)
{
  dla::ScopedContext scope (w->device->context ().handle ());
  const dla::CudlaApi &api = w->device->api ();
  cudaStream_t s = static_cast<cudaStream_t> (w->stream.get ());
  cudlaTask task{};
  task.moduleHandle = w->module.handle ();
  task.inputTensor = w->in_ptrs.data ();
  task.numInputTensors = uint32_t (w->in_ptrs.size ());
  task.outputTensor = w->out_ptrs.data ();
  task.numOutputTensors = uint32_t (w->out_ptrs.size ());
  auto submit = [&] () -> bool {
    const double c0 = cpu_now_us (), t0 = wall_now_us ();
    const cudlaStatus cs = api.SubmitTask (w->device->handle (), &task, 1, s, 0);
    w->submit_cpu_us.push_back (cpu_now_us () - c0);
    w->submit_wall_us.push_back (wall_now_us () - t0);
    if (cs != cudlaSuccess) {
      w->error = dla::cudla_call_failed ("cudlaSubmitTask", cs) + w->device->library ().refusal_detail ();
      return false;
    }
    ++w->submitted;
    return true;
  };
  auto wait = [&] () -> bool {
    const cudaError_t e = cudaStreamSynchronize (s);
    if (e != cudaSuccess) {
      w->error = dla::cuda_call_failed ("cudaStreamSynchronize", e);
      return false;
    }
    const cudlaStatus last = w->device->last_error ();
    /* A failed task only: does a test backend emulate a 911 (dla/loader.h TestBackend)? */
    if (last != cudlaSuccess && w->device->library ().emulated_external_error ()) {
      w->error = "cudaStreamSynchronize: cudaErrorExternalDevice (emulated 911)";
      return false;
    }
    if (last != cudlaSuccess) {
      w->error = "the task failed on the DLA: " + dla::cudla_status_name (last);
      return false;
    }
    return true;
  };
  for (int i = 0; i < o.warmup; ++i)
    if (!submit () || !wait ())
      return;
  w->submit_cpu_us.clear ();
  w->submit_wall_us.clear ();
  w->submitted = 0;
  ready->fetch_add (1);
  while (ready->load () < total) /* all handles start together */
    std::this_thread::yield ();
  const double t_begin = wall_now_us ();
  for (long done = 0; done < o.runs;) {
    const int q = int (std::min<long> (o.queue, o.runs - done));
    const double t0 = wall_now_us ();
    cudaEventRecord (static_cast<cudaEvent_t> (w->start.get ()), s);
    for (int k = 0; k < q; ++k)
      if (!submit ()) {
        if (o.queue > 1)
          w->queue_failed_at = k;
        cudaStreamSynchronize (s);
        w->wall_us = wall_now_us () - t_begin;
        return;
      }
    cudaEventRecord (static_cast<cudaEvent_t> (w->stop.get ()), s);
    if (!wait ())
      return;
    const double host = wall_now_us () - t0;
    float ms = 0;
    cudaEventElapsedTime (&ms, static_cast<cudaEvent_t> (w->start.get ()),
                          static_cast<cudaEvent_t> (w->stop.get ()));
    w->task_us.push_back (host / q);
    w->dla_us.push_back (ms * 1000.0 / q);
    done += q;
  }
  w->wall_us = wall_now_us () - t_begin;
  if (!w->outputs.empty ()) {
    std::vector<uint8_t> host (size_t (w->out_t[0].size ()));
    if (cudaMemcpy (host.data (), w->out_t[0].cuda_ptr (), host.size (), cudaMemcpyDeviceToHost) ==
        cudaSuccess)
      w->last_output = unpack (w->outputs[0].view, host.data (), o.output_scale);
  }
}

}  // namespace inspect
