/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the raw output tensors (tensor-meta=true; docs/tensors.md): every output of the
 * model de-padded from its DLA layout (host/depad.h), as GstTensors in a GstTensorMeta on
 * GStreamer >= 1.26, else in the public library's GstDlaTensorMeta with the same fields. A class
 * vector is FLOAT32 [N, C] with id "classification-generic-out" (or the .modelinfo's), raw before
 * the activation: what upstream's classifier tensor decoder reads. */
#pragma once

#include <gst/gst.h>

#include <memory>
#include <string>
#include <vector>

#include "dla/engine.h"
#include "gst/outputs/device_tensors.h"
#include "gst/outputs/dump.h"
#include "gst/outputs/tensor_plan.h"

namespace dlainfer {

/* Whether this build attaches upstream's GstTensorMeta (else GstDlaTensorMeta). */
bool upstream_tensor_meta ();

class TensorOutput {
 public:
  /* start: nothing is attached unless s.tensor_meta; the dump (dump-dir) works either way. */
  void prepare (const std::vector<dla::TensorInfo> &outputs, const Settings &s, int classes, GQuark element);
  /* Then, with an engine: the outputs are de-padded on the GPU (device_tensors.h). False with
   * *error when it cannot (the host de-pads then, as without it). Nothing when tensor-meta is off. */
  bool start_device (dla::Engine &engine, std::string *error);
  /* The same without an engine: *after is what it would install (benchmarks). */
  bool start_device (int cuda_device, int slots, dla::AfterTask *after, std::string *error);
  /* After the engine is gone. */
  void clear ()
  {
    device_.clear ();
    plans_.clear ();
    pools_.clear ();
  }

  /* The class vector's scores of `slot`'s task as dense FLOAT32 (classes values), when the GPU
   * de-padded it (the engine made no padded host copy of it then); else nullptr. */
  const float *class_scores (int slot) const;
  /* attach () reads the engine's padded host copies (tensor-meta on, the GPU de-pad not started). */
  bool reads_host_copies () const { return attach_ && !device_.active (); }
  /* Tensors that needed a host copy: downstream held every pooled buffer (device_tensors.h). */
  guint64 tensor_copies () const { return device_.copies (); }

  /* An inferred frame, after its classification: the outputs of the engine's `slot` on `buf`, and
   * the frame's tensors into dump-dir when armed (a failure is a warning on the bus). */
  void attach (GstElement *element, GstBuffer *buf, dla::Engine &engine, int slot);
  /* The tensors of `slot`'s task from the GPU's de-padded values (start_device ()); the first host copy
   * (downstream held every pooled buffer) is a warning on `element`'s bus (nullptr: none). */
  void attach_device (GstElement *element, GstBuffer *buf, int slot);
  /* The tensors from host copies of the outputs, in the model's order. */
  void attach_host (GstBuffer *buf, const std::vector<const void *> &outputs);
  /* The tensors from buffers of de-padded values (taken), in the model's order; nullptr: left out. */
  void attach_values (GstBuffer *buf, const std::vector<GstBuffer *> &values);

  /* dump-dir and dump-count (any thread). */
  Dump &dump () { return dump_; }

 private:
  struct PoolFree {
    void operator() (GstBufferPool *pool) const;
  };
  /* One pool per output: a fresh allocation of a large map per frame costs page faults. */
  using Pool = std::unique_ptr<GstBufferPool, PoolFree>;

  std::vector<TensorPlan> plans_;
  std::vector<Pool> pools_;
  DeviceTensors device_;
  std::vector<GstBuffer *> values_; /* scratch of attach (), one thread */
  bool classifier_ = false;
  bool attach_ = false;
  bool warned_copies_ = false; /* the first host copy was reported (a bus warning) */
  float input_scale_ = 0.f;
  GQuark element_ = 0;
  Dump dump_;
};

/* A buffer (from `pool` when it has one) holding `plan`'s output de-padded from `data`. */
GstBuffer *depad_to_buffer (const TensorPlan &plan, const void *data, GstBufferPool *pool);

}  // namespace dlainfer
