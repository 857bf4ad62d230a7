/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/open_model.h"

#include <algorithm>

#include "dla/primary_context.h"
#include "gst/engine_config.h"
#include "gst/model_description.h"
#include "gst/modelinfo/modelinfo.h"
#include "host/detect/config.h"
#include "host/labels.h"

GST_DEBUG_CATEGORY_EXTERN (gst_dla_infer_debug);
#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace dlainfer {
namespace {

bool refuse (Refusal *why, dla::Code code, const std::string &message, const std::string &debug)
{
  *why = {dla::Status::Error (code, message), debug};
  return false;
}

/* Where the labels path came from, for its error: the user did not set the property when a
 * .modelinfo named the file. `named_by` gets the setting's name ("property 'labels'", ...). */
std::string labels_origin (const Settings &s, std::string *named_by)
{
  const auto origin = s.origin.find ("labels");
  const std::string from = origin == s.origin.end () ? "property" : origin->second;
  if (from == "modelinfo" && s.modelinfo) {
    *named_by = "key dlainfer-labels of " + s.modelinfo->path;
    return ": it is named by the key dlainfer-labels in '" + s.modelinfo->path +
           "' (a relative path is read from that file's folder): fix that key, or set the labels property, "
           "which wins over it";
  }
  if (from == "model-instance-id") {
    *named_by = "labels of model-instance-id '" + s.model_instance_id + "'";
    return ": it is the labels of the element that loaded model-instance-id '" + s.model_instance_id + "'";
  }
  *named_by = "property 'labels'";
  return "";
}

bool load_labels (const Settings &s, Model *m, Refusal *why)
{
  m->labels.clear ();
  if (s.model.empty () && s.model_instance_id.empty ()) /* a sharer's model may come from the first */
    return refuse (why, dla::Code::kSettings,
                   "No model set: set the 'model' property to a cuDLA loadable file",
                   "property 'model' is empty");
  if (s.labels.empty ())
    return true;
  std::string error;
  bool not_found = false;
  if (labels::load (s.labels, &m->labels, &error, &not_found))
    return true;
  std::string named_by;
  error += labels_origin (s, &named_by);
  return refuse (why, not_found ? dla::Code::kNotFound : dla::Code::kSettings, error, named_by);
}

/* The model model-instance-id names, loaded by its first element (who must set `model`), or this
 * element's alone. */
dla::Status share_model (GstElement *element, const Settings &s, const dla::EngineConfig &config, Model *m)
{
  const dla::SharerSettings me = sharer_of (GST_ELEMENT_NAME (element), s);
  auto load = [&] (const dla::SharerSettings &, std::shared_ptr<dla::LoadedModel> *made) {
    if (s.model.empty ())
      return dla::Status::Error (dla::Code::kSettings,
                                 "No model for model-instance-id '" + s.model_instance_id + "': " + me.name +
                                     " left 'model' unset and no element of that id that sets 'model' had "
                                     "started by its first frame: set the 'model' property on one of them");
    return dla::LoadedModel::Open (config, made);
  };
  dla::Status st = SharedModels::Process ().join (s.model_instance_id, me, load, &m->shared);
  if (st.ok ())
    st = dla::Engine::Share (m->shared.shared (), config, &m->engine);
  return st;
}

bool open_engine (GstElement *element, const Settings &s, void *primary, Model *m, Refusal *why)
{
  const dla::EngineConfig config = engine_config (s, GST_ELEMENT_NAME (element));
  dla::ScopedContext scope (primary);
  const bool shared = !s.model_instance_id.empty ();
  const dla::Status st =
      shared ? share_model (element, s, config, m) : dla::Engine::Open (config, &m->engine);
  if (st.ok ())
    return true;
  *why = {st, std::string (shared ? "sharing model-instance-id=" + s.model_instance_id + ": " : "") +
                  "dla::Engine::Open (model=" + s.model + ", dla-core=" + std::to_string (s.dla_core) +
                  ", cuda-device-id=" + std::to_string (s.cuda_device_id) + ")"};
  return false;
}

/* The model's .modelinfo must describe this loadable (docs/modelinfo.md). */
bool check_file (const Settings &s, const Model &m, Refusal *why)
{
  std::string error;
  if (!s.modelinfo || check_modelinfo (*s.modelinfo, dla::host_descs (m.engine->inputs ()),
                                       dla::host_descs (m.engine->outputs ()), &error))
    return true;
  return refuse (why, dla::Code::kSettings, error, "check_modelinfo\n" + m.engine->describe ());
}

/* The engine retains the same primary context; ours only fails where the engine would too. The
 * context neighbours were given at NULL->READY is the one the frames run in. */
bool check_context (GstElement *element, const Settings &s, const CudaContext &cuda, const Model &m,
                    Refusal *why)
{
  if (!cuda.shared (element))
    return refuse (why, dla::Code::kInit, "No CUDA context: " + cuda.error (), "open_context");
  if (cuda.ordinal () == m.engine->cuda_device ())
    return true;
  if (m.engine->cuda_device () != s.device ()) /* a sharer that left cuda-device-id unset */
    return refuse (why, dla::Code::kSettings,
                   "model-instance-id '" + s.model_instance_id + "' runs on CUDA device " +
                       std::to_string (m.engine->cuda_device ()) +
                       " and this element's CUDA context is on device " + std::to_string (cuda.ordinal ()) +
                       ": set cuda-device-id=" + std::to_string (m.engine->cuda_device ()) + " on it too",
                   "cuda-device-id");
  return refuse (why, dla::Code::kSettings,
                 "cuda-device-id was changed to " + std::to_string (s.device ()) +
                     " in READY, after the element shared the context of CUDA device " +
                     std::to_string (cuda.ordinal ()) +
                     " with its neighbours: set cuda-device-id while the element is in NULL",
                 "cuda-device-id");
}

/* A classifier in the detector's element, or a detector (its .modelinfo names a decoder) in the
 * classifier's: refused naming the element that runs it. */
bool check_kind (const Settings &s, ModelKind kind, const Model &m, Refusal *why)
{
  const bool detector = s.modelinfo && detect::names_a_detector (decoder_keys (*s.modelinfo));
  const std::vector<dla::TensorInfo> &out = m.engine->outputs ();
  const bool vectors = std::all_of (out.begin (), out.end (),
                                    [] (const dla::TensorInfo &t) { return t.view.h == 1 && t.view.w == 1; });
  if (kind == ModelKind::kClassifier && detector)
    return refuse (why, dla::Code::kModel,
                   "'" + s.model + "' is a detector (its .modelinfo '" + s.modelinfo->path +
                       "' names a decoder): run it in dladetect; dlainfer classifies",
                   "check_kind: detector in a classifier's element");
  if (kind == ModelKind::kDetector && vectors && !detector)
    return refuse (why, dla::Code::kModel,
                   "'" + s.model +
                       "' is a classifier (every output is a vector of class scores, C x 1 x 1, "
                       "and no .modelinfo names a decoder): run it in dlainfer; dladetect runs detectors",
                   "check_kind: classifier in a detector's element");
  return true;
}

bool plan_model (const Settings &s, ModelKind kind, Model *m, Refusal *why)
{
  classifier::Requirements req;
  req.detector = kind == ModelKind::kDetector;
  req.labels = m->labels.size ();
  req.labels_path = s.labels;
  req.input_scale = s.input_scale;
  req.output_scale = s.output_scale;
  req.tensors = s.tensor_meta;
  req.objects = s.inference_region == InferenceRegion::kRoiList;
  classifier::Check failed = classifier::Check::kShape;
  const dla::Status st = classifier::plan (dla::host_descs (m->engine->inputs ()),
                                           dla::host_descs (m->engine->outputs ()), req, &m->plan, &failed);
  if (st.ok ())
    return true;
  const std::string describe = "\n" + m->engine->describe ();
  switch (failed) {
    case classifier::Check::kShape:
      *why = {st, "classifier::plan (model=" + s.model + ")" + describe};
      break;
    case classifier::Check::kLabels:
      *why = {st, "labels count != output channels"};
      break;
    case classifier::Check::kInputScale:
      *why = {st, "input-scale is not set" + describe};
      break;
    case classifier::Check::kOutputScale:
      *why = {st, "output-scale is not set" + describe};
      break;
  }
  return false;
}

/* Which output a classifier's classes come from, and whether some may be padding. */
void log_classes (GstElement *element, const Model &m)
{
  const dla::Engine &e = *m.engine;
  if (m.plan.classes == 0)
    GST_INFO_OBJECT (element, "output '%s' is no class vector: the element attaches the tensors only",
                     e.outputs ()[0].name.c_str ());
  else if (e.outputs ().size () > 1)
    GST_INFO_OBJECT (element, "the model has %u outputs; the first ('%s') holds the class scores",
                     guint (e.outputs ().size ()), e.outputs ()[0].name.c_str ());
  if (m.plan.classes_may_be_padding)
    GST_WARNING_OBJECT (element,
                        "the model's output reports %d classes, a whole number of %s vectors: some may be "
                        "padding lanes that read as class_N; give a labels file with the real class count",
                        m.plan.classes, tensor::layout_name (e.outputs ()[0].view.layout));
}

}  // namespace

bool open_model (GstElement *element, const Settings &s, const CudaContext &cuda, ModelKind kind, Model *out,
                 Refusal *why)
{
  Model m;
  if (!load_labels (s, &m, why) || !open_engine (element, s, cuda.primary (), &m, why) ||
      !check_file (s, m, why) || !check_context (element, s, cuda, m, why) || !check_kind (s, kind, m, why) ||
      !plan_model (s, kind, &m, why))
    return false;
  if (kind == ModelKind::kClassifier)
    log_classes (element, m);
  *out = std::move (m);
  return true;
}

dla::SharerSettings sharer_of (const std::string &element, const Settings &s)
{
  auto set = [&s] (const char *name) { return s.user_set.count (name) > 0; };
  dla::SharerSettings me;
  me.name = element;
  me.settings = {
      {"model", s.model, !s.model.empty ()},
      {"dla-core", std::to_string (s.dla_core), set ("dla-core")},
      {"cuda-device-id", std::to_string (s.device ()), set ("cuda-device-id")},
      {"task-timeout", std::to_string (s.task_timeout_ms), set ("task-timeout")},
  };
  me.offers = {{"labels", s.labels, !s.labels.empty ()}};
  return me;
}

bool instance_defaults (const Settings &user, InstanceDefaults *out)
{
  *out = InstanceDefaults ();
  dla::SharerSettings definer;
  if (user.model_instance_id.empty () || !SharedModels::Process ().definer (user.model_instance_id, &definer))
    return false;
  if (!user.model.empty ())
    return true; /* it sets model: its own settings and .modelinfo, as without sharing */
  for (const dla::DefiningSetting &d : definer.settings)
    if (d.name == "model")
      out->model = d.value;
  for (const dla::DefiningSetting &d : definer.offers)
    if (d.name == "labels")
      out->labels = d.value;
  return true;
}

GstStructure *model_info (const Settings &s, const Model &m)
{
  const dla::Engine &e = *m.engine;
  ModelDescription d;
  d.model = e.model_path ();
  d.instance = s.model_instance_id;
  d.backend = e.backend ();
  d.cudla_version = e.cudla_version ();
  d.library = e.library_path ();
  d.description = e.describe ();
  d.dla_core = e.dla_core (); /* a sharer's may come from the first */
  for (int i = 0; i < e.cores (); ++i)
    d.dla_cores.push_back (e.dla_core_at (i));
  d.cuda_device = e.cuda_device ();
  d.classes = m.plan.classes;
  d.labels = int (m.labels.size ());
  d.inputs = &e.inputs ();
  d.outputs = &e.outputs ();
  d.modelinfo = s.modelinfo ? s.modelinfo->path : "";
  d.origin = &s.origin;
  return model_info_structure (d);
}

}  // namespace dlainfer
