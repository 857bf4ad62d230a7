/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: what makes a model a classifier dlainfer can run, and what follows from it: the
 * input the preprocessing writes, the class count, the class-score output. The checks the element
 * makes before its first frame, on the tensors the dla layer mapped; no GStreamer, no CUDA, no
 * cuDLA. */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "host/status.h"
#include "host/tensor_desc.h"

namespace classifier {

using host::Status;
using host::TensorDesc;

/* What a classification model looks like once validated. */
struct Shape {
  int64_t batch = 0;
  int64_t channels = 0;         /* 3 (colour) or 1 (grey): what the preprocess kernel writes */
  bool channels_padded = false; /* the descriptor reported the padded count (16/32/4) */
  int64_t height = 0, width = 0;
  tensor::View input_view{};    /* the input as the kernel writes it: layout as mapped, c = channels */
  std::vector<int64_t> classes; /* per output, as the descriptor reports it */
  std::vector<bool> classes_may_include_padding; /* c is a multiple of the layout's lanes */
};

/* Exactly one image input with 3 channels (1 for grey), batch >= 1; outputs with the input's batch,
 * FP16 or INT8 vectors C x 1 x 1 unless `any_outputs` (raw tensors on: then an output of another
 * shape has 0 in Shape::classes). */
Status validate (const std::vector<TensorDesc> &inputs, const std::vector<TensorDesc> &outputs, Shape *out,
                 bool any_outputs = false);

/* The number of classes of an output given a label count: where the descriptor may have reported
 * the padded channel count (1008 for 1000 in chw16), a label count inside the padding wins. */
int64_t resolve_class_count (const tensor::View &output, int64_t labels);

/* A classifier's tensors are megabytes: a descriptor asking for more than this is refused before
 * anything is allocated (on Jetson, GPU and pinned memory are the system's DRAM). */
constexpr uint64_t kMaxTensorBytes = uint64_t (1) << 30;
Status check_tensor_sizes (const std::vector<TensorDesc> &inputs, const std::vector<TensorDesc> &outputs);

/* What the element asks of a model beyond its shape. */
struct Requirements {
  size_t labels = 0;        /* lines of the labels file (0: no file) */
  std::string labels_path;  /* for messages */
  float input_scale = 0.f;  /* 0: not set */
  float output_scale = 0.f; /* 0: not set */
  bool tensors = false;     /* tensor-meta: the outputs are attached raw, so any image model runs */
  bool objects = false;     /* inference-region=roi-list: a batch of N takes N objects per task */
  bool detector = false;    /* a detector's: any outputs, each read by its decoder (labels are its) */
};

/* What the element runs once the checks pass. */
struct Plan {
  Shape shape;
  int classes = 0;                     /* 0: output 0 is no class vector (tensors only, no classification) */
  tensor::View input_view{};           /* what the kernel writes: the model's input with c = 3 */
  tensor::View output_view{};          /* the class scores: the first output, c = the class count */
  bool classes_may_be_padding = false; /* no labels, and the count is a whole number of vectors */
  bool any_int8_output = false;        /* an INT8 output is read (output-scale needed) */
};

/* Which check refused a model (for the debug text of the element's error). */
enum class Check { kShape, kLabels, kInputScale, kOutputScale };

/* validate (), then what classification needs (a detector: the input's checks and the scales): batch 1 for
 * full frames (any batch for objects), 3 channels, a labels file with the class count (when given), the INT8
 * scales of INT8 tensors. */
Status plan (const std::vector<TensorDesc> &inputs, const std::vector<TensorDesc> &outputs,
             const Requirements &req, Plan *out, Check *failed);

}  // namespace classifier
