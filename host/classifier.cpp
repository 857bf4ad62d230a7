/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/classifier.h"

namespace classifier {

using host::Code;

Status validate (const std::vector<TensorDesc> &inputs, const std::vector<TensorDesc> &outputs, Shape *out,
                 bool any_outputs)
{
  if (inputs.size () != 1) {
    std::string names;
    for (const auto &t : inputs)
      names += (names.empty () ? "" : ", ") + ("'" + t.name + "'");
    return Status::Error (host::Code::kModel, "the model has " + std::to_string (inputs.size ()) + " inputs" +
                                                  (names.empty () ? "" : " (" + names + ")") +
                                                  "; a classification model has exactly one image input");
  }
  const TensorDesc &in = inputs[0];
  const tensor::View &v = in.view;
  Shape shape;
  shape.batch = v.n;
  shape.height = v.h;
  shape.width = v.w;
  if (v.c == 3 || v.c == 1) {
    shape.channels = v.c;
  } else if ((v.layout == tensor::Layout::kDlaHwc4 && v.c == 4) || (v.lanes > 1 && v.c == v.lanes)) {
    /* The padded count (docs/cudla.md 7): the kernel writes 3 channels and zero pad lanes. */
    shape.channels = 3;
    shape.channels_padded = true;
  } else {
    return Status::Error (
        Code::kModel,
        "input '" + in.name + "' has " + std::to_string (v.c) + " channels (" + host::describe_view (v) +
            "); the element takes an image input with 3 channels (RGB or BGR; in chw16/chw32/dla_hwc4 the "
            "descriptor may report the padded 16/32/4): rebuild the model with a 3-channel input. "
            "Raw descriptor: " +
            in.raw);
  }
  /* Same strides: c = 3 and c = 16 (or 32, or 4) give one channel group with the same lanes. */
  shape.input_view = v;
  shape.input_view.c = shape.channels;
  if (outputs.empty ())
    return Status::Error (host::Code::kModel, "the model has no outputs");
  for (const TensorDesc &o : outputs) {
    const tensor::View &ov = o.view;
    const bool vector = ov.h == 1 && ov.w == 1;
    if (!vector && !any_outputs)
      return Status::Error (host::Code::kModel,
                            "output '" + o.name + "' is " + std::to_string (ov.c) + "x" +
                                std::to_string (ov.h) + "x" + std::to_string (ov.w) +
                                " (C x H x W), not a vector of class scores (C x 1 x 1): set "
                                "tensor-meta=true to run it and read its outputs as tensors, or end the "
                                "network with global pooling or a fully connected layer (a detector runs "
                                "in dladetect). Raw descriptor: " +
                                o.raw);
    if (ov.n != shape.batch)
      return Status::Error (host::Code::kModel, "output '" + o.name + "' has batch " + std::to_string (ov.n) +
                                                    " but the input has batch " +
                                                    std::to_string (shape.batch));
    shape.classes.push_back (vector ? ov.c : 0);
    shape.classes_may_include_padding.push_back (vector && ov.lanes > 1 && ov.c % ov.lanes == 0);
  }
  *out = std::move (shape);
  return Status::Ok ();
}

int64_t resolve_class_count (const tensor::View &v, int64_t labels)
{
  const bool may_pad = v.lanes > 1 && v.c % v.lanes == 0;
  if (labels > 0 && may_pad && labels <= v.c && v.c - labels < v.lanes)
    return labels;
  return v.c;
}

Status check_tensor_sizes (const std::vector<TensorDesc> &inputs, const std::vector<TensorDesc> &outputs)
{
  for (const auto *list : {&inputs, &outputs})
    for (const TensorDesc &t : *list)
      if (t.bytes > kMaxTensorBytes)
        return Status::Error (Code::kModel, "tensor '" + t.name + "' needs " + std::to_string (t.bytes) +
                                                " bytes, more than the " + std::to_string (kMaxTensorBytes) +
                                                " a classification model's tensor can "
                                                "have: not a classifier dlainfer can run");
  return Status::Ok ();
}

namespace {

/* Full-frame classification reads one picture into 3 channels; objects fill a batch of them. */
Status check_pictures (const Shape &shape, bool objects)
{
  if (shape.batch != 1 && !objects)
    return Status::Error (
        Code::kModel,
        "The model's input has batch " + std::to_string (shape.batch) +
            "; full-frame classification runs one picture per task: set inference-region=roi-list to "
            "classify the objects of each frame " +
            std::to_string (shape.batch) +
            " at a time, or rebuild the loadable with batch 1 (trtexec --shapes=<input>:1x3xHxW, or an ONNX "
            "file with a batch of 1)");
  if (shape.channels != 3)
    return Status::Error (Code::kModel, "The model's input has " + std::to_string (shape.channels) +
                                            " channel(s); the preprocessing writes 3 (RGB or BGR): "
                                            "rebuild the model with a 3-channel input (" +
                                            host::kInputFormatsHint + ")");
  return Status::Ok ();
}

Status check_labels (const Requirements &req, int classes)
{
  if (req.labels == 0 || req.labels == size_t (classes))
    return Status::Ok ();
  if (classes == 0)
    return Status::Error (Code::kSettings, "The labels file '" + req.labels_path +
                                               "' is set but the model's first output is no class vector "
                                               "(it runs for its tensors only): unset labels");
  return Status::Error (Code::kSettings, "The labels file '" + req.labels_path + "' has " +
                                             std::to_string (req.labels) + " labels but the model has " +
                                             std::to_string (classes) + " classes");
}

/* INT8 tensors carry the quantisation scales they were calibrated with; the element is told them. */
Status check_scales (const Plan &p, const Requirements &req, Check *failed)
{
  if (p.input_view.type == tensor::ElemType::kInt8 && !(req.input_scale > 0.f)) {
    *failed = Check::kInputScale;
    return Status::Error (
        Code::kSettings,
        "The model's input is INT8: set input-scale to its quantisation scale (value = q * scale; e.g. "
        "input-scale=0.0078740157 for 1/127), as calibrated when the loadable was built");
  }
  if (p.any_int8_output && !(req.output_scale > 0.f)) {
    *failed = Check::kOutputScale;
    return Status::Error (
        Code::kSettings,
        "The model's output is INT8: set output-scale to its quantisation scale (value = q * scale), as "
        "calibrated when the loadable was built, or rebuild it with --outputIOFormats=fp16:chw16");
  }
  return Status::Ok ();
}

}  // namespace

Status plan (const std::vector<TensorDesc> &inputs, const std::vector<TensorDesc> &outputs,
             const Requirements &req, Plan *out, Check *failed)
{
  Plan p;
  *failed = Check::kShape;
  Status st = validate (inputs, outputs, &p.shape, req.tensors || req.detector);
  if (st.ok ())
    st = check_pictures (p.shape, req.objects);
  if (!st.ok ())
    return st;
  const tensor::View &scores = outputs[0].view;
  const bool vector = p.shape.classes[0] > 0 && !req.detector;
  p.classes = vector ? int (resolve_class_count (scores, int64_t (req.labels))) : 0;
  /* Output 0 is read as classes; with raw tensors on (or a decoder) every output is read as values. */
  for (size_t i = 0; i < outputs.size (); ++i)
    p.any_int8_output |=
        (i == 0 || req.tensors || req.detector) && outputs[i].view.type == tensor::ElemType::kInt8;
  p.classes_may_be_padding = vector && req.labels == 0 && p.shape.classes_may_include_padding[0];
  *failed = Check::kLabels;
  if (!req.detector && !(st = check_labels (req, p.classes)).ok ())
    return st;
  p.input_view = p.shape.input_view;
  p.output_view = scores;
  if (vector)
    p.output_view.c = p.classes; /* a padded count the labels resolved: the pad lanes are not classes */
  if (!(st = check_scales (p, req, failed)).ok ())
    return st;
  *out = std::move (p);
  return Status::Ok ();
}

}  // namespace classifier
