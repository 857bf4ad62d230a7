/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: dlainfer's own properties, beside the family's (gstdlabaseinferprops.cpp): the
 * post-processing of a class vector, the result message, and roi-list's objects. Values live in
 * dlainfer::Settings; GstDlaBaseInfer's set_property serves them (gst/property_table.h). */
#include "gst/gstdlainfer.h"
#include "gst/objects/selection.h"
#include "gst/property_table.h"

GType gst_dla_infer_activation_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {int (postprocess::Activation::kSoftmax), "Softmax over the classes (single-label models)", "softmax"},
      {int (postprocess::Activation::kSigmoid), "Sigmoid per class (multi-label models)", "sigmoid"},
      {int (postprocess::Activation::kNone), "None: the model's scores as they are (it ends in a softmax)",
       "none"},
      {0, nullptr, nullptr},
  };
  return dlainfer::enum_type (&type, "GstDlaInferActivation", values);
}

GType gst_dla_infer_inference_region_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {int (dlainfer::InferenceRegion::kFullFrame), "The whole frame (objects on it are ignored)",
       "full-frame"},
      {int (dlainfer::InferenceRegion::kRoiList),
       "Each object a detector put on the frame (GstAnalyticsODMtd or GstVideoRegionOfInterestMeta)",
       "roi-list"},
      {0, nullptr, nullptr},
  };
  return dlainfer::enum_type (&type, "GstDlaInferInferenceRegion", values);
}

std::vector<dlainfer::Property> gst_dla_infer_properties ()
{
  using dlainfer::field;
  using dlainfer::kPlayingFlags;
  using dlainfer::kReadyFlags;
  using dlainfer::Settings;
  const Settings defaults;
  return {field<&Settings::activation> (
              g_param_spec_enum ("activation", "Activation", "Function applied to the model's output scores",
                                 GST_TYPE_DLA_INFER_ACTIVATION, int (defaults.activation), kPlayingFlags)),
          field<&Settings::top_k> (
              g_param_spec_uint ("top-k", "Top k", "Most results kept per frame, best first (0: every class)",
                                 0, G_MAXINT, defaults.top_k, kPlayingFlags)),
          field<&Settings::threshold> (
              g_param_spec_float ("threshold", "Threshold",
                                  "Results whose confidence (after the activation) is below this are dropped",
                                  -G_MAXFLOAT, G_MAXFLOAT, defaults.threshold, kPlayingFlags)),
          field<&Settings::post_messages> (g_param_spec_boolean (
              "post-messages", "Post messages",
              "Post a \"dlainfer-result\" element message (timestamp, class-ids, labels, "
              "confidences) per inference",
              defaults.post_messages, kPlayingFlags)),
          /* Secondary classification (docs/objects.md): DL Streamer's names, nvinfer's minimum size. */
          field<&Settings::inference_region> (g_param_spec_enum (
              "inference-region", "Inference region",
              "What the model classifies: the whole frame, or each object a detector put on it "
              "(roi-list; a loadable with batch N takes N objects per DLA task)",
              GST_TYPE_DLA_INFER_INFERENCE_REGION, int (defaults.inference_region), kReadyFlags)),
          field<&Settings::object_class, true> (g_param_spec_string (
              "object-class", "Object class",
              "roi-list: the detections' type labels to classify, separated by commas, e.g. "
              "\"car,truck\" (unset: every type)",
              nullptr, kPlayingFlags)),
          field<&Settings::reclassify_interval> (g_param_spec_uint (
              "reclassify-interval", "Reclassify interval",
              "roi-list: frames a tracked object carries its last result, marked carried with its "
              "age, before it is classified again (sooner when its box grows by 20 %; 0: every "
              "frame)",
              0, G_MAXINT, defaults.reclassify_interval, kPlayingFlags)),
          field<&Settings::smoothing, true> (g_param_spec_float (
              "smoothing", "Smoothing",
              "roi-list: each tracked object's class scores averaged over its classifications, "
              "score = smoothing * previous + (1 - smoothing) * new, reset when its track ends "
              "(0: off; below 1; a label flips after the least n with smoothing^n < 0.5 "
              "disagreeing classifications)",
              0.f, 1.f, defaults.smoothing, kPlayingFlags)),
          field<&Settings::min_object_width> (g_param_spec_uint (
              "input-object-min-width", "Minimum object width",
              "roi-list: objects narrower than this (in frame pixels, after clipping) are skipped "
              "and counted",
              0, G_MAXINT, defaults.min_object_width, kPlayingFlags)),
          field<&Settings::min_object_height> (g_param_spec_uint (
              "input-object-min-height", "Minimum object height",
              "roi-list: objects shorter than this (in frame pixels, after clipping) are skipped "
              "and counted",
              0, G_MAXINT, defaults.min_object_height, kPlayingFlags)),
          field<&Settings::max_objects> (g_param_spec_uint (
              "max-objects", "Maximum objects",
              "roi-list: most objects classified per frame, the largest first; the rest are "
              "counted in stats (0: 1024, the most a frame can have classified)",
              0, dlainfer::objects::kMaxObjectsPerFrame, defaults.max_objects, kPlayingFlags)),
          field<&Settings::attribute_name, true> (g_param_spec_string (
              "attribute-name", "Attribute name",
              "roi-list: name of the parameter structure holding the result on each object's "
              "GstVideoRegionOfInterestMeta (unset: the element's name)",
              nullptr, kPlayingFlags))};
}
