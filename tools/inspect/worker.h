/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlainfer-inspect: one device handle running the model (its own module, tensors and stream),
 * through the dla layer as the element uses it, timed per task and per submit. */
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dla/cuda_resources.h"
#include "dla/descriptor_map.h"
#include "dla/device.h"
#include "dla/loader.h"
#include "dla/module.h"
#include "dla/registered_tensor.h"
#include "tools/inspect/options.h"

namespace inspect {

/* One device handle running the model: its own module, tensors and stream. */
struct Worker {
  int core = 0, index = 0;
  std::shared_ptr<const dla::Device> device;
  dla::Module module;
  std::vector<dla::TensorInfo> inputs, outputs;
  std::vector<dla::RegisteredTensor> in_t, out_t;
  std::vector<const uint64_t *> in_ptrs;
  std::vector<uint64_t *> out_ptrs;
  dla::CudaStream stream;
  dla::CudaEvent start, stop;
  /* results */
  std::vector<double> task_us, dla_us, submit_cpu_us, submit_wall_us;
  double wall_us = 0;
  long submitted = 0;
  std::string error;
  int queue_failed_at = -1;
  std::vector<float> last_output;
};

/* Opens a handle on w->core and loads the model; `print`: its tensors as dlainfer reads them. */
int open_worker (const std::shared_ptr<const dla::Library> &lib, const std::vector<uint8_t> &bytes,
                 const Options &o, Worker *w, bool print);
/* Registers the tensors, writes the input, makes the stream and events. */
int prepare_worker (Worker *w, const std::vector<std::vector<uint8_t>> &input_bytes);
/* Runs warm-up then o.runs tasks in groups of o.queue (submit all, then wait); all workers start
 * together once `ready` reaches `total`. */
void run_worker (Worker *w, const Options &o, std::atomic<int> *ready, int total);

}  // namespace inspect
