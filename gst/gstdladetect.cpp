/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-dladetect
 * @title: dladetect
 *
 * Detects objects in video frames on NVIDIA's Deep Learning Accelerator (DLA) through cuDLA: the
 * loadable ends at the detector's head convolutions, and the decode (boxes, scores, class-aware NMS,
 * the map back to frame pixels) runs on the GPU right after each DLA task. Each detection becomes a
 * GstAnalyticsODMtd (GStreamer >= 1.24) and a GstVideoRegionOfInterestMeta with a "detection"
 * parameter (every version), so `dlainfer inference-region=roi-list` can classify them.
 *
 * Everything else is dlainfer's: the fused preprocessing, frames in flight, `dla-core=-1`,
 * `model-instance-id`, `.modelinfo`, `stats`, raw tensors. The decoder (yolo-anchors, yolov8, ssd)
 * and its geometry come from the model's `.modelinfo` (`dlainfer-decoder` and the keys of
 * docs/detection.md) or the `decoder` property; the properties the user sets win over the file.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=v.mp4 ! decodebin ! cudaupload ! \
 *     dladetect model=yolov5s.dla labels=coco.txt resize-mode=letterbox threshold=0.3 ! \
 *     dlainfer inference-region=roi-list model=colour.dla dla-core=1 ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gst/detect_settings.h"
#include "gst/gstdlabaseinfer-private.h"
#include "gst/gstdladetect.h"
#include "gst/stages/frame_stage.h"
#include "host/detect/plan.h"

struct _GstDlaDetect {
  GstDlaBaseInfer parent;
  dlainfer::DetectSettings *detect; /* its own values: GST_OBJECT_LOCK */
};

G_DEFINE_TYPE (GstDlaDetect, gst_dla_detect, GST_TYPE_DLA_BASE_INFER);
GST_ELEMENT_REGISTER_DEFINE (dla_detect, "dladetect", GST_RANK_NONE, GST_TYPE_DLA_DETECT);

GType gst_dla_detect_decoder_get_type (void)
{
  static GType type = 0;
  using dlainfer::DecoderChoice;
  static const GEnumValue values[] = {
      {int (DecoderChoice::kAuto), "The model's .modelinfo names it (dlainfer-decoder)", "auto"},
      {int (DecoderChoice::kYoloAnchors), "YOLO with anchors (YOLOv2-v7, TinyFaceDetector)", "yolo-anchors"},
      {int (DecoderChoice::kYolov8), "Anchor-free YOLOv8/v11 (DFL heads, or the decoded tensor)", "yolov8"},
      {int (DecoderChoice::kSsd), "SSD / RetinaNet priors", "ssd"},
      {0, nullptr, nullptr},
  };
  return dlainfer::enum_type (&type, "GstDlaDetectDecoder", values);
}

namespace {

using dlainfer::DetectSettings;
using dlainfer::Property;
using dlainfer::SetNote;
using dlainfer::Settings;

DetectSettings &detect_of (GstDlaBaseInfer *self)
{
  return *GST_DLA_DETECT (self)->detect;
}

/* The property whose value is DetectSettings field `F` (as dlainfer::field for Settings). */
template <auto F>
Property detect_field (GParamSpec *spec)
{
  return {spec,
          [] (GstDlaBaseInfer *self, Settings &, const GValue *v, SetNote *) {
            dlainfer::property_value::from (v, &(detect_of (self).*F));
          },
          [] (GstDlaBaseInfer *self, const Settings &, GValue *v) {
            dlainfer::property_value::to (detect_of (self).*F, v);
          }};
}

std::vector<Property> gst_dla_detect_properties ()
{
  using dlainfer::kPlayingFlags;
  using dlainfer::kReadyFlags;
  const DetectSettings d;
  return {
      detect_field<&DetectSettings::decoder> (g_param_spec_enum (
          "decoder", "Decoder",
          "The detector's decode (auto: the model's .modelinfo names it; docs/detection.md)",
          GST_TYPE_DLA_DETECT_DECODER, int (d.decoder), kReadyFlags)),
      detect_field<&DetectSettings::threshold> (
          g_param_spec_float ("threshold", "Threshold",
                              "Detections scoring this or less are dropped, for every class (default: the "
                              ".modelinfo's, per class; "
                              "in [0, 1))",
                              0.f, 1.f, d.threshold, kReadyFlags)),
      detect_field<&DetectSettings::nms_iou_threshold> (
          g_param_spec_float ("nms-iou-threshold", "NMS IoU threshold",
                              "A box overlapping a better one of its class by more than this IoU is "
                              "suppressed (1: none; in (0, 1])",
                              0.f, 1.f, d.nms_iou_threshold, kReadyFlags)),
      detect_field<&DetectSettings::max_detections> (
          g_param_spec_uint ("max-detections", "Maximum detections", "Most detections per frame, best first",
                             1, detect::kMaxDetections, d.max_detections, kReadyFlags)),
      detect_field<&DetectSettings::object_class> (
          g_param_spec_string ("object-class", "Object class",
                               "Only these classes are reported: labels (or class indices) separated by "
                               "commas, e.g. \"car,truck\" "
                               "(unset: every class)",
                               nullptr, kReadyFlags)),
      detect_field<&DetectSettings::post_messages> (g_param_spec_boolean (
          "post-messages", "Post messages",
          "Post a \"dladetect-result\" element message (timestamp, detections: label, class-id, confidence, "
          "box) per inference",
          d.post_messages, kPlayingFlags)),
  };
}

/* What the decoder sees of the open model. */
detect::ModelTensors model_tensors (const Settings &s, const dlainfer::Model &m)
{
  detect::ModelTensors t;
  t.input_width = int (m.plan.input_view.w);
  t.input_height = int (m.plan.input_view.h);
  t.outputs = dla::host_descs (m.engine->outputs ());
  t.output_scales.assign (t.outputs.size (), s.output_scale);
  return t;
}

/* The decoder's plan against the model's outputs, then the stage; the refusal posted. */
std::unique_ptr<dlainfer::FrameStage> gst_dla_detect_make_stage (GstDlaBaseInfer *self, const Settings &s,
                                                                 const dlainfer::Model &m)
{
  GST_OBJECT_LOCK (self);
  const DetectSettings d = detect_of (self);
  GST_OBJECT_UNLOCK (self);
  detect::Config config;
  auto plan = std::make_unique<detect::Plan> ();
  dla::Status st = dlainfer::detect_config (s, d, m.labels, &config);
  if (st.ok ())
    st = detect::build_plan (config, model_tensors (s, m), plan.get ());
  if (!st.ok ()) {
    post_status (self, st, "the detection decoder for " + s.model + "\n" + m.engine->describe ());
    return nullptr;
  }
  std::string why;
  auto stage = dlainfer::make_frame_detection (self, m, *plan, &detect_of (self), &why);
  if (!stage)
    post_status (self, dla::Status::Error (dla::Code::kInit, why), "starting the detection decoder");
  return stage;
}

}  // namespace

static void gst_dla_detect_finalize (GObject *object)
{
  delete GST_DLA_DETECT (object)->detect;
  G_OBJECT_CLASS (gst_dla_detect_parent_class)->finalize (object);
}

static void gst_dla_detect_class_init (GstDlaDetectClass *klass)
{
  GstDlaBaseInferClass *base_class = GST_DLA_BASE_INFER_CLASS (klass);
  G_OBJECT_CLASS (klass)->finalize = gst_dla_detect_finalize;
  gst_element_class_set_static_metadata (
      GST_ELEMENT_CLASS (klass), "DLA detection", "Filter/Analyzer/Video",
      "Detects objects in video frames on the NVIDIA DLA (cuDLA hybrid mode), decodes them on the GPU and "
      "attaches them as metadata",
      "gst-dlainfer developers");
  base_class->make_stage = gst_dla_detect_make_stage;
  base_class->model_kind = dlainfer::ModelKind::kDetector;
  gst_dla_base_infer_class_install_properties (base_class, gst_dla_detect_properties ());
  gst_type_mark_as_plugin_api (GST_TYPE_DLA_DETECT_DECODER, GstPluginAPIFlags (0));
}

static void gst_dla_detect_init (GstDlaDetect *self)
{
  self->detect = new dlainfer::DetectSettings ();
}
