/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the model the element runs from start to stop: its engine, what the classifier's
 * checks made of it (host/classifier.h), its labels. Opened in the order a user's mistakes are
 * commonest: settings, labels file, model file and DLA, CUDA context, the model's shape. */
#pragma once

#include <gst/gst.h>

#include <memory>
#include <string>
#include <vector>

#include "dla/engine.h"
#include "dla/model_registry.h"
#include "gst/cuda_context.h"
#include "gst/modelinfo/modelinfo_settings.h"
#include "gst/settings.h"
#include "host/classifier.h"

namespace dlainfer {

/* What an element class runs (GstDlaBaseInferClass::model_kind): a classifier, whose first output
 * is a class vector (host/classifier.h), or a detector, whose outputs its stage's decoder checks. */
enum class ModelKind : int { kClassifier, kDetector };

/* Loaded models shared by model-instance-id, process-wide. */
using SharedModels = dla::ModelRegistry<dla::LoadedModel>;

struct Model {
  SharedModels::Lease shared;          /* with model-instance-id: this element's place among the sharers */
  std::unique_ptr<dla::Engine> engine; /* goes first: its slots before the shared model */
  classifier::Plan plan;
  std::vector<std::string> labels;
};

/* Why a model was not opened: the status for the user, the debug text for the developer. */
struct Refusal {
  dla::Status status;
  std::string debug;
};

/* Opens `s.model` for the element whose context is `cuda` (it must be shared, on the device the
 * settings name), checked as a model of `kind`: the other kind's model is refused naming the
 * element that runs it. */
bool open_model (GstElement *element, const Settings &s, const CudaContext &cuda, ModelKind kind, Model *out,
                 Refusal *why);

/* What `element` brings to model-instance-id `s.model_instance_id`: its name and the model-defining
 * settings (model, dla-core, cuda-device-id, task-timeout), each marked set when the user set it. */
dla::SharerSettings sharer_of (const std::string &element, const Settings &s);

/* Whether `user`'s model-instance-id has an instance (live, or being loaded); *out then gets what a
 * sharer that left `model` unset takes from it: the model, the definer's labels (nothing for one
 * that sets `model`). */
bool instance_defaults (const Settings &user, InstanceDefaults *out);

/* The `model-info` structure of an open model. */
GstStructure *model_info (const Settings &s, const Model &m);

}  // namespace dlainfer
