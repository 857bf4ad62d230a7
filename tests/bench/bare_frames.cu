/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <cuda_runtime_api.h>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "bare_frames.h"
#include "dla/completion_wait.h"
#include "dla/cuda_resources.h"
#include "dla/engine.h"
#include "kernels/launch_graphs.h"
#include "thread_cpu.h"

namespace bench {

namespace {
struct BusyArgs {
  unsigned long long ns;
};

/* Runs for a.ns of the GPU's global timer: the frame's GPU work without its cost to the host. */
__global__ void busy_kernel (const BusyArgs a)
{
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  while (t - t0 < a.ns);
}

/* One thread of busy_kernel for gpu_us microseconds: a frame's GPU work. */
preprocess::KernelLaunch busy_launch (double gpu_us)
{
  return preprocess::launch_of (busy_kernel, BusyArgs{static_cast<unsigned long long> (gpu_us * 1000.0)},
                                dim3 (1), dim3 (1));
}

cudaEvent_t ev (const dla::CudaEvent &e)
{
  return static_cast<cudaEvent_t> (e.get ());
}

/* One frame's place in the pipelined loop: its events and its wait, as an engine slot has. */
struct BareSlot {
  dla::CudaEvent start, done, done_untimed;
  dla::CompletionWait wait;
  uint64_t frames = 0;
  bool timed = false;
  bool create ()
  {
    return dla::CudaEvent::Create (true, &start).ok () && dla::CudaEvent::Create (true, &done).ok () &&
           dla::CudaEvent::Create (false, &done_untimed).ok ();
  }
  void *end_event () const { return timed ? done.get () : done_untimed.get (); }
};

/* The hand-off between the two threads: the frames queued, the slots free, and when the last
 * queued frame is expected to end (corrected each time one is seen ending, as the engine does). */
struct BareQueue {
  using Time = std::chrono::steady_clock::time_point;
  std::mutex mutex;
  std::condition_variable room, ready;
  std::deque<int> queued;
  int free = 0;
  bool failed = false;
  Time queue_end{};

  Time take_room ()
  {
    std::unique_lock<std::mutex> lock (mutex);
    room.wait (lock, [&] { return free > 0 || failed; });
    --free;
    return queue_end;
  }
  void give (int slot, Time expected_end)
  {
    {
      std::lock_guard<std::mutex> lock (mutex);
      queued.push_back (slot);
      queue_end = expected_end;
    }
    ready.notify_one ();
  }
  int take_oldest ()
  {
    std::unique_lock<std::mutex> lock (mutex);
    ready.wait (lock, [&] { return !queued.empty (); });
    const int slot = queued.front ();
    queued.pop_front ();
    return slot;
  }
  /* A frame was seen ending at `ended`; the frames still queued begin then, one after another. */
  void release (bool ok, Time ended, std::chrono::nanoseconds expected)
  {
    {
      std::lock_guard<std::mutex> lock (mutex);
      ++free;
      failed = failed || !ok;
      queue_end = ended + int (queued.size ()) * expected;
    }
    room.notify_one ();
  }
};

/* The src task's side: waits for each frame in order and frees its slot; its CPU over the last n. */
double bare_consume (std::vector<std::unique_ptr<BareSlot>> &slots, BareQueue &q, int warmup, int n)
{
  double t0 = 0;
  for (int i = 0; i < warmup + n; ++i) {
    if (i == warmup)
      t0 = thread_cpu_seconds ();
    BareSlot &s = *slots[size_t (q.take_oldest ())];
    const bool ok = s.wait.wait (s.end_event ()) == cudaSuccess;
    float ms = 0;
    if (ok && s.timed && cudaEventElapsedTime (&ms, ev (s.start), ev (s.done)) == cudaSuccess)
      s.wait.learn (ms);
    q.release (ok, s.wait.ended_at (), s.wait.expected ());
  }
  return thread_cpu_seconds () - t0;
}
}  // namespace

double bare_frame_cpu_us (double gpu_us, int n)
{
  dla::CudaStream stream;
  dla::CudaEvent start, submitted, dla_end, done, done_untimed;
  dla::PinnedBuffer host;
  void *dev = nullptr;
  const bool ready =
      dla::CudaStream::Create (&stream).ok () && dla::CudaEvent::Create (true, &start).ok () &&
      dla::CudaEvent::Create (true, &submitted).ok () && dla::CudaEvent::Create (true, &dla_end).ok () &&
      dla::CudaEvent::Create (true, &done).ok () && dla::CudaEvent::Create (false, &done_untimed).ok () &&
      dla::PinnedBuffer::Create (64, &host).ok () && cudaMalloc (&dev, 64) == cudaSuccess;
  double cpu_us = -1;
  if (ready) {
    const auto s = static_cast<cudaStream_t> (stream.get ());
    const preprocess::KernelLaunch k = busy_launch (gpu_us);
    preprocess::LaunchGraphs graphs;
    dla::CompletionWait wait;
    float ms = 0;
    const int warmup = 100;
    double t0 = 0;
    for (int i = 0; i < warmup + n; ++i) {
      if (i == warmup)
        t0 = thread_cpu_seconds ();
      const bool timed = dla::timed_task (uint64_t (i));
      const size_t entry = graphs.prepare (k);
      wait.started ();
      if (timed)
        cudaEventRecord (ev (start), s);
      graphs.launch (entry, s);
      if (timed) {
        cudaEventRecord (ev (submitted), s);
        cudaEventRecord (ev (dla_end), s);
      }
      cudaMemcpyAsync (host.data (), dev, 64, cudaMemcpyDeviceToHost, s);
      cudaEventRecord (ev (timed ? done : done_untimed), s);
      if (wait.wait (timed ? done.get () : done_untimed.get ()) != cudaSuccess)
        break;
      if (timed) {
        cudaEventElapsedTime (&ms, ev (submitted), ev (dla_end));
        cudaEventElapsedTime (&ms, ev (start), ev (submitted));
        if (cudaEventElapsedTime (&ms, ev (start), ev (done)) == cudaSuccess)
          wait.learn (ms);
      }
      if (i + 1 == warmup + n)
        cpu_us = 1e6 * (thread_cpu_seconds () - t0) / n;
    }
  }
  cudaFree (dev);
  cudaGetLastError ();
  return cpu_us;
}

double bare_pipelined_cpu_us (double gpu_us, int n, int in_flight)
{
  dla::CudaStream stream;
  dla::PinnedBuffer host;
  void *dev = nullptr;
  std::vector<std::unique_ptr<BareSlot>> slots;
  bool ready = dla::CudaStream::Create (&stream).ok () && dla::PinnedBuffer::Create (64, &host).ok () &&
               cudaMalloc (&dev, 64) == cudaSuccess;
  for (int i = 0; ready && i < in_flight; ++i) {
    slots.push_back (std::make_unique<BareSlot> ());
    ready = slots.back ()->create ();
  }
  double cpu_us = -1;
  if (ready) {
    const auto s = static_cast<cudaStream_t> (stream.get ());
    const preprocess::KernelLaunch k = busy_launch (gpu_us);
    preprocess::LaunchGraphs graphs;
    BareQueue q;
    q.free = in_flight;
    const int warmup = 100;
    double consumer_s = 0, t0 = 0;
    std::thread consumer ([&] { consumer_s = bare_consume (slots, q, warmup, n); });
    for (int i = 0; i < warmup + n; ++i) {
      if (i == warmup)
        t0 = thread_cpu_seconds ();
      const BareQueue::Time queue_end = q.take_room ();
      BareSlot &slot = *slots[size_t (i % in_flight)];
      slot.timed = dla::timed_task (slot.frames++);
      const size_t entry = graphs.prepare (k);
      slot.wait.started ();
      if (slot.timed)
        cudaEventRecord (ev (slot.start), s);
      graphs.launch (entry, s);
      cudaMemcpyAsync (host.data (), dev, 64, cudaMemcpyDeviceToHost, s);
      cudaEventRecord (static_cast<cudaEvent_t> (slot.end_event ()), s);
      slot.wait.queued (queue_end);
      q.give (i % in_flight, slot.wait.expected_end ());
    }
    const double producer_s = thread_cpu_seconds () - t0;
    consumer.join ();
    if (!q.failed)
      cpu_us = 1e6 * (producer_s + consumer_s) / n;
  }
  cudaFree (dev);
  cudaGetLastError ();
  return cpu_us;
}

}  // namespace bench
