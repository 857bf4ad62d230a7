/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-dlainfer
 * @title: dlainfer
 *
 * Classifies video frames on NVIDIA's Deep Learning Accelerator (DLA) through cuDLA in hybrid mode,
 * and attaches the result (GstDlaClassificationMeta) to each buffer, which passes unchanged.
 *
 * Frames in CUDA memory (`memory:CUDAMemory`) or system memory, in NV12, I420, RGBA, BGRA, RGBx or
 * BGRx, go through one fused CUDA kernel (colour conversion, resize, mean/std, FP16/INT8) straight
 * into the DLA's input tensor. The element works in the device's primary CUDA context and offers
 * it to its neighbours, so `cudaupload`, `cudaconvert` and decoders allocate in the same context.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! cudaupload ! \
 *     dlainfer model=resnet50.dla.bin labels=imagenet.txt mean="<0.485,0.456,0.406>" \
 *              std="<0.229,0.224,0.225>" ! fakesink
 * ]|
 * ## Results on the bus, every 5th frame inferred
 * |[
 * gst-launch-1.0 -m videotestsrc ! cudaupload ! dlainfer model=resnet50.dla.bin labels=imagenet.txt \
 *     resize-mode=center-crop interval=4 top-k=3 post-messages=true ! fakesink
 * ]|
 * Applications read GstDlaClassificationMeta (library gstreamer-dlainfer-1.0, header
 * <gst/dlainfer/gstdlameta.h>); with GStreamer >= 1.24 the results are also a GstAnalyticsClsMtd
 * in the buffer's GstAnalyticsRelationMeta. `stats` and `model-info` describe the running element.
 * The model is a cuDLA loadable: pipelines/build-loadable.sh builds one from an ONNX file, with the
 * trtexec recipe of TensorRT 11 and of TensorRT 10 and earlier (whose `--fp16` TensorRT 11 no
 * longer has). Interlaced video is refused by the pad templates (interlace-mode=progressive):
 * deinterlace upstream. `mean` and `std` take three numbers each (std > 0); anything else is kept
 * as set and fails at start with an error naming the property.
 * `DLAINFER_CUDLA_LIBRARY` names another cuDLA library (the software DLA used by the tests).
 *
 * Up to `max-in-flight` DLA tasks are queued at once (default 2: one running, one queued); a task
 * on the src pad pushes the frames in input order as their tasks end. Upstream pools are asked for
 * that many more buffers, and the element's latency (LATENCY query) includes them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gst/gstdlainfer.h"
#include "gst/open_model.h"
#include "gst/property_table.h"
#include "gst/stages/frame_stage.h"

struct _GstDlaInfer {
  GstDlaBaseInfer parent;
};

G_DEFINE_TYPE (GstDlaInfer, gst_dla_infer, GST_TYPE_DLA_BASE_INFER);
GST_ELEMENT_REGISTER_DEFINE (dla_infer, "dlainfer", GST_RANK_NONE, GST_TYPE_DLA_INFER);

/* What the frames are inferred for: the whole frame, or (roi-list) its objects, their results
 * written under names of the element's and the model's (objects/object_output.h). */
static std::unique_ptr<dlainfer::FrameStage> gst_dla_infer_make_stage (GstDlaBaseInfer *self,
                                                                       const dlainfer::Settings &s,
                                                                       const dlainfer::Model &m)
{
  const GQuark element = g_quark_from_string (GST_OBJECT_NAME (self));
  if (s.inference_region != dlainfer::InferenceRegion::kRoiList)
    return dlainfer::make_frame_classification (m, element);
  gchar *base = g_path_get_basename (m.engine->model_path ().c_str ()); /* a sharer's may be the instance's */
  const dlainfer::objects::OutputNames names (
      s.attribute_name.empty () ? GST_OBJECT_NAME (self) : s.attribute_name.c_str (), base,
      m.engine->outputs ().empty () ? "" : m.engine->outputs ()[0].name.c_str (),
      m.engine->backend ().c_str ());
  g_free (base);
  return dlainfer::make_object_classification (m, element, names);
}

static void gst_dla_infer_class_init (GstDlaInferClass *klass)
{
  GstDlaBaseInferClass *base_class = GST_DLA_BASE_INFER_CLASS (klass);
  gst_element_class_set_static_metadata (
      GST_ELEMENT_CLASS (klass), "DLA inference", "Filter/Analyzer/Video",
      "Classifies video frames on the NVIDIA DLA (cuDLA hybrid mode) and attaches the results as metadata",
      "gst-dlainfer developers");
  base_class->make_stage = gst_dla_infer_make_stage;
  gst_dla_base_infer_class_install_properties (base_class, gst_dla_infer_properties ());
  gst_type_mark_as_plugin_api (GST_TYPE_DLA_INFER_ACTIVATION, GstPluginAPIFlags (0));
  gst_type_mark_as_plugin_api (GST_TYPE_DLA_INFER_INFERENCE_REGION, GstPluginAPIFlags (0));
}

static void gst_dla_infer_init (GstDlaInfer *) {}
