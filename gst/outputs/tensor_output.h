/* gst-dlainfer: the raw output tensors (tensor-meta=true; docs/tensors.md): every output of the
 * model de-padded from its DLA layout (host/depad.h), as GstTensors in a GstTensorMeta on
 * GStreamer >= 1.26, else in the public library's GstDlaTensorMeta with the same fields. A class
 * vector is FLOAT32 [N, C] with id "classification-generic-out" (or the .modelinfo's), raw before
 * the activation: what upstream's classifier tensor decoder reads. */
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

#include "dla/engine.h"
#include "gst/settings.h"
#include "host/depad.h"

namespace dlainfer {

/* One output as it is published. */
struct TensorPlan {
  std::string name;
  tensor::View view{}; /* what is read: a class vector's c is the class count */
  GQuark id = 0;
  depad::Type type = depad::Type::kFloat32;
  std::vector<gsize> dims; /* [N, C] for a class vector, else [N, C, H, W] */
  float int8_scale = 1.f;
};

/* The plans for `outputs`, given settings (tensor-type, output-scale, the .modelinfo's ids and
 * types) and the class count of output 0 (0: the model is no classifier). */
std::vector<TensorPlan> plan_tensors (const std::vector<dla::TensorInfo> &outputs, const Settings &s,
                                      int classes);

/* Whether this build attaches upstream's GstTensorMeta (else GstDlaTensorMeta). */
bool upstream_tensor_meta ();

class TensorOutput {
 public:
  /* start: nothing is attached unless s.tensor_meta. */
  void prepare (const std::vector<dla::TensorInfo> &outputs, const Settings &s, int classes, GQuark element);
  void clear () { plans_.clear (); }

  /* An inferred frame: the outputs of the engine's `slot` on `buf` (one call per frame). */
  void attach (GstBuffer *buf, const dla::Engine &engine, int slot) const;
  /* The same from host copies of the outputs, in the model's order. */
  void attach_host (GstBuffer *buf, const std::vector<const void *> &outputs) const;

  const std::vector<TensorPlan> &plans () const { return plans_; }

 private:
  std::vector<TensorPlan> plans_;
  GQuark element_ = 0;
};

/* A new buffer holding `plan`'s output de-padded from `data`. */
GstBuffer *depad_to_buffer (const TensorPlan &plan, const void *data);

}  // namespace dlainfer
