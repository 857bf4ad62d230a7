/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the property values of GstDlaBaseInfer and dlainfer (grouped below; the base reads
 * inference_region, which stays full-frame in a class without the property), copied under the
 * object lock where they are used.
 *
 * The element core reads settings only through this struct and the two *_params() functions, so
 * a new property changes this file and a property table (gst/property_table.h), not the
 * per-frame flow. No GStreamer. */
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "host/postprocess.h"
#include "kernels/preprocess.h"

namespace dlainfer {

struct ModelInfo;

/* What the model classifies: the whole frame, or each object a detector put on it (DL Streamer's
 * inference-region; docs/objects.md). */
enum class InferenceRegion { kFullFrame, kRoiList };

struct Settings {
  /* Model-changing: applied at start (NULL/READY only). */
  std::string model;
  /* Elements with the same id share one loaded model (DL Streamer's name; docs/architecture.md 8). */
  std::string model_instance_id;
  std::string labels;
  int dla_core = 0;
  int cuda_device_id = -1; /* -1: automatic (device 0) */
  uint32_t task_timeout_ms = 5000;
  /* DLA tasks in flight (the engine's slots): one running, one queued keeps the core busy
   * (docs/architecture.md 8). */
  int max_in_flight = 2;
  float input_scale = 0.f;  /* INT8 inputs: value = q * input_scale; 0 = not set (an INT8 model needs it) */
  float output_scale = 0.f; /* INT8 outputs: value = q * output_scale; 0 = not set (likewise) */

  /* Preprocessing, per frame. Kept as the user set them, whatever their length: check () refuses
   * a wrong one at start (a number that is not finite is stored as NaN). */
  std::vector<float> mean{0.f, 0.f, 0.f};
  std::vector<float> std{1.f, 1.f, 1.f};
  /* mean and std as the user gave them, quoted by check (): the property set ("mean" or
   * "mean-string") and its text ("<abc, 1, 2>", "0.1,0.2"). Empty: not set by the user (a
   * .modelinfo's or the default numbers). */
  std::string mean_property, mean_text, std_property, std_text;
  preprocess::ChannelOrder channel_order = preprocess::ChannelOrder::kRGB;
  preprocess::ResizeMode resize_mode = preprocess::ResizeMode::kStretch;
  float crop_fraction = 0.875f;
  uint32_t pad_value = 0x000000; /* 0xRRGGBB */
  bool antialias = true;

  /* Scheduling and post-processing, per frame. */
  uint32_t interval = 0; /* frames skipped after each inference */
  postprocess::Activation activation = postprocess::Activation::kSoftmax;
  uint32_t top_k = 5; /* 0: every class */
  float threshold = 0.f;
  bool post_messages = false;

  /* Raw output tensors (docs/tensors.md): attached when on; FP16 for outputs other than a class
   * vector when asked. Model-changing: a model that is no classifier runs only with them. */
  bool tensor_meta = false;
  bool tensor_fp16 = false;

  /* Objects (secondary classification, docs/objects.md). inference-region is model-changing (a
   * batched loadable runs only on objects); the others are read per frame. */
  InferenceRegion inference_region = InferenceRegion::kFullFrame;
  std::string object_class;         /* comma-separated detection types; empty: every type */
  uint32_t reclassify_interval = 0; /* frames a tracked object carries its result (0: every frame) */
  uint32_t min_object_width = 16, min_object_height = 16;
  uint32_t max_objects = 0;   /* per frame, largest first; 0: objects::kMaxObjectsPerFrame */
  std::string attribute_name; /* the ROI meta's parameter structure; empty: the element's name */
  float smoothing = 0.f;      /* per-track EWMA factor of the class scores, [0, 1); 0: off */

  /* The properties the user set (their names): a .modelinfo fills in only the others. */
  std::set<std::string> user_set;
  /* At start: the model's .modelinfo (null: none), and where each setting it may give came from
   * ("property", "modelinfo" or "default"), for `model-info`. */
  std::shared_ptr<const ModelInfo> modelinfo;
  std::map<std::string, std::string> origin;

  int device () const { return cuda_device_id < 0 ? 0 : cuda_device_id; }
};

/* The checks GObject's own range checks cannot make (mean and std: three values, std > 0;
 * object-class: labels without empty items; attribute-name: a structure name; smoothing: below 1). False
 * with a message naming the property, its value and what it takes. start() runs it before anything
 * else (the model file is opened after it). */
bool check (const Settings &s, std::string *message);

/* check () for one of mean (std false) and std (std true) alone, as set_property warns. */
bool check_mean_std (const Settings &s, bool std, std::string *message);

/* mean-string/std-string's text: numbers separated by commas, optionally between < and > (the
 * gst-launch form of mean/std, "<0.485, 0.456, 0.406>"). An item that is not a finite number is
 * kept as NaN (check () refuses it, quoting the text); "" gives no values. */
std::vector<float> parse_numbers (const std::string &text);

/* Numbers as gst-launch writes an array: "<0.5, 0.5>". */
std::string numbers_text (const std::vector<float> &v);

/* The preprocessing parameters these settings ask for; frame geometry (crop, pixel aspect) is the
 * caller's. */
preprocess::Params preprocess_params (const Settings &s);

/* object-class as its labels (trimmed), in order; empty items are kept as "" (check () refuses
 * them). */
std::vector<std::string> object_classes (const Settings &s);

/* The post-processing parameters (activation, top-k, threshold). */
postprocess::Params postprocess_params (const Settings &s);

}  // namespace dlainfer
