/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the dlainfer element's properties.
 *
 * Values live in dlainfer::Settings under the object lock. Model-changing properties (model,
 * model-instance-id, labels, dla-core, cuda-device-id, task-timeout, max-in-flight, input-scale,
 * output-scale, tensor-meta, tensor-type, inference-region) take effect at the next start and are refused
 * above READY with a GST_WARNING and a GST_ELEMENT_WARNING on the bus (not a g_warning: an application
 * setting them late is not a programming error); the others are read at the start of every frame. `stats` and
 * `model-info` are read-only; `model-info` is notified once after start, `stats` at most once a second and at
 * EOS. */
#include <cmath>
#include <string>
#include <vector>

#include "dla/engine.h"
#include "gst/gstdlainfer-private.h"
#include "gst/objects/selection.h"

#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace {

enum {
  PROP_0,
  PROP_MODEL,
  PROP_MODEL_INSTANCE_ID,
  PROP_LABELS,
  PROP_DLA_CORE,
  PROP_CUDA_DEVICE_ID,
  PROP_MEAN,
  PROP_STD,
  PROP_CHANNEL_ORDER,
  PROP_TASK_TIMEOUT,
  PROP_MAX_IN_FLIGHT,
  PROP_RESIZE_MODE,
  PROP_CROP_FRACTION,
  PROP_PAD_VALUE,
  PROP_ANTIALIAS,
  PROP_INPUT_SCALE,
  PROP_OUTPUT_SCALE,
  PROP_INTERVAL,
  PROP_ACTIVATION,
  PROP_TOP_K,
  PROP_THRESHOLD,
  PROP_POST_MESSAGES,
  PROP_TENSOR_META,
  PROP_TENSOR_TYPE,
  PROP_DUMP_DIR,
  PROP_DUMP_COUNT,
  PROP_INFERENCE_REGION,
  PROP_OBJECT_CLASS,
  PROP_RECLASSIFY_INTERVAL,
  PROP_OBJECT_MIN_WIDTH,
  PROP_OBJECT_MIN_HEIGHT,
  PROP_MAX_OBJECTS,
  PROP_ATTRIBUTE_NAME,
  PROP_STATS,
  PROP_MODEL_INFO,
  PROP_MEAN_STRING,
  PROP_STD_STRING,
};

constexpr auto kReadyFlags =
    GParamFlags (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
constexpr auto kPlayingFlags =
    GParamFlags (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
constexpr auto kReadOnlyFlags = GParamFlags (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

/* Whether a model-changing property may change now (object lock held). */
bool model_may_change (GstDlaInfer *self, GParamSpec *pspec, bool *refused)
{
  const GstState state = GST_STATE (self);
  const GstState pending = GST_STATE_PENDING (self);
  if (state <= GST_STATE_READY && pending <= GST_STATE_READY)
    return true;
  GST_WARNING_OBJECT (self, "property '%s' can only change in the NULL or READY state; ignored in %s",
                      pspec->name, gst_element_state_get_name (state));
  *refused = true;
  return false;
}

/* A GstValueArray of numbers (floats from gst-launch, doubles from Python, ints from "<1,1,1>"),
 * kept as set whatever its length or values: dlainfer::check () refuses a wrong one at start and
 * set_property warns about it now. Anything but a number is kept as NaN. */
std::vector<float> read_triple (const GValue *value)
{
  std::vector<float> out;
  for (guint i = 0; i < gst_value_array_get_size (value); ++i) {
    const GValue *item = gst_value_array_get_value (value, i);
    if (G_VALUE_HOLDS_FLOAT (item))
      out.push_back (g_value_get_float (item));
    else if (G_VALUE_HOLDS_DOUBLE (item))
      out.push_back (float (g_value_get_double (item)));
    else if (G_VALUE_HOLDS_INT (item))
      out.push_back (float (g_value_get_int (item)));
    else if (G_VALUE_HOLDS_UINT (item))
      out.push_back (float (g_value_get_uint (item)));
    else if (G_VALUE_HOLDS_INT64 (item))
      out.push_back (float (g_value_get_int64 (item)));
    else
      out.push_back (NAN);
  }
  return out;
}

/* The array as given, for the messages: its numbers as written ("<0.5, 1>") and anything else as
 * GStreamer writes it ("<abc, 1, 2>"), not as NaN. *not_number: the first item that is no number. */
std::string given_text (const GValue *value, std::string *not_number)
{
  std::string out = "<";
  for (guint i = 0; i < gst_value_array_get_size (value); ++i) {
    const GValue *item = gst_value_array_get_value (value, i);
    std::string text;
    if (G_VALUE_HOLDS_FLOAT (item) || G_VALUE_HOLDS_DOUBLE (item)) {
      char buf[32];
      g_ascii_formatd (
          buf, sizeof buf, "%g",
          G_VALUE_HOLDS_FLOAT (item) ? double (g_value_get_float (item)) : g_value_get_double (item));
      text = buf;
    } else {
      gchar *t = gst_value_serialize (item);
      text = t ? t : G_VALUE_TYPE_NAME (item);
      g_free (t);
      const bool number = G_VALUE_HOLDS_INT (item) || G_VALUE_HOLDS_UINT (item) || G_VALUE_HOLDS_INT64 (item);
      if (!number && not_number->empty ())
        *not_number = text;
    }
    out += (i ? ", " : "") + text;
  }
  return out + ">";
}

void write_triple (GValue *value, const std::vector<float> &v)
{
  for (float x : v) {
    GValue item = G_VALUE_INIT;
    g_value_init (&item, G_TYPE_FLOAT);
    g_value_set_float (&item, x);
    gst_value_array_append_value (value, &item);
    g_value_unset (&item);
  }
}

/* No element spec: GObject would replace a double or an int (Python's Gst.ValueArray, "<1,1,1>")
 * by the float spec's default and refuse the whole value with a g_warning. read_triple converts. */
GParamSpec *triple_spec (const char *name, const char *nick, const char *blurb)
{
  return gst_param_spec_array (name, nick, blurb, nullptr, kPlayingFlags);
}

std::string string_or_empty (const GValue *value)
{
  const gchar *v = g_value_get_string (value);
  return v ? v : "";
}

GParamSpec *stats_spec = nullptr;
GParamSpec *model_info_spec = nullptr;

/* Secondary classification (docs/objects.md): DL Streamer's names, nvinfer's minimum size. */
void install_object_properties (GObjectClass *klass, const dlainfer::Settings &defaults)
{
  g_object_class_install_property (
      klass, PROP_INFERENCE_REGION,
      g_param_spec_enum ("inference-region", "Inference region",
                         "What the model classifies: the whole frame, or each object a detector put on it "
                         "(roi-list; a loadable with batch N takes N objects per DLA task)",
                         GST_TYPE_DLA_INFER_INFERENCE_REGION, int (defaults.inference_region), kReadyFlags));
  g_object_class_install_property (
      klass, PROP_OBJECT_CLASS,
      g_param_spec_string ("object-class", "Object class",
                           "roi-list: the detections' type labels to classify, separated by commas, e.g. "
                           "\"car,truck\" (unset: every type)",
                           nullptr, kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_RECLASSIFY_INTERVAL,
      g_param_spec_uint ("reclassify-interval", "Reclassify interval",
                         "roi-list: frames a tracked object carries its last result, marked carried with its "
                         "age, before it is classified again (sooner when its box grows by 20 %; 0: every "
                         "frame)",
                         0, G_MAXINT, defaults.reclassify_interval, kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_OBJECT_MIN_WIDTH,
      g_param_spec_uint ("input-object-min-width", "Minimum object width",
                         "roi-list: objects narrower than this (in frame pixels, after clipping) are skipped "
                         "and counted",
                         0, G_MAXINT, defaults.min_object_width, kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_OBJECT_MIN_HEIGHT,
      g_param_spec_uint ("input-object-min-height", "Minimum object height",
                         "roi-list: objects shorter than this (in frame pixels, after clipping) are skipped "
                         "and counted",
                         0, G_MAXINT, defaults.min_object_height, kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_MAX_OBJECTS,
      g_param_spec_uint ("max-objects", "Maximum objects",
                         "roi-list: most objects classified per frame, the largest first; the rest are "
                         "counted in stats (0: 1024, the most a frame can have classified)",
                         0, dlainfer::objects::kMaxObjectsPerFrame, defaults.max_objects, kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_ATTRIBUTE_NAME,
      g_param_spec_string ("attribute-name", "Attribute name",
                           "roi-list: name of the parameter structure holding the result on each object's "
                           "GstVideoRegionOfInterestMeta (unset: the element's name)",
                           nullptr, kPlayingFlags));
}

}  // namespace

void gst_dla_infer_notify (GstDlaInfer *self, GstDlaInferNotify which)
{
  g_object_notify_by_pspec (G_OBJECT (self),
                            which == GST_DLA_INFER_NOTIFY_STATS ? stats_spec : model_info_spec);
}

GType gst_dla_infer_channel_order_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {int (preprocess::ChannelOrder::kRGB), "Red, green, blue", "rgb"},
      {int (preprocess::ChannelOrder::kBGR), "Blue, green, red (Caffe/OpenCV models)", "bgr"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type)) {
    const GType t = g_enum_register_static ("GstDlaInferChannelOrder", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType gst_dla_infer_resize_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {int (preprocess::ResizeMode::kStretch), "Stretch the frame to the input size (aspect ratio not kept)",
       "stretch"},
      {int (preprocess::ResizeMode::kLetterbox),
       "Fit the whole frame, keep its aspect ratio, pad with pad-value", "letterbox"},
      {int (preprocess::ResizeMode::kCenterCrop),
       "Resize the short side to input/crop-fraction and crop the centre (torchvision Resize + CenterCrop)",
       "center-crop"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type)) {
    const GType t = g_enum_register_static ("GstDlaInferResizeMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

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
  if (g_once_init_enter (&type)) {
    const GType t = g_enum_register_static ("GstDlaInferActivation", values);
    g_once_init_leave (&type, t);
  }
  return type;
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
  if (g_once_init_enter (&type)) {
    const GType t = g_enum_register_static ("GstDlaInferInferenceRegion", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType gst_dla_infer_tensor_type_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {0, "FLOAT32", "float32"},
      {1, "FLOAT16 (half the bytes; a class vector stays FLOAT32)", "float16"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter (&type)) {
    const GType t = g_enum_register_static ("GstDlaInferTensorType", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

void gst_dla_infer_install_properties (GObjectClass *klass)
{
  const dlainfer::Settings defaults;
  g_object_class_install_property (
      klass, PROP_MODEL,
      g_param_spec_string (
          "model", "Model",
          "Path of the cuDLA loadable (built with trtexec --useDLACore=N --buildDLAStandalone); required",
          nullptr, kReadyFlags));
  g_object_class_install_property (
      klass, PROP_MODEL_INSTANCE_ID,
      g_param_spec_string (
          "model-instance-id", "Model instance id",
          "Elements with the same id share one loaded model (one device handle, module and task queue per "
          "DLA core), each with its own frames in flight and per-frame settings; only one of them (any) "
          "needs 'model', the others take its labels and .modelinfo settings, and model, dla-core, "
          "cuda-device-id and task-timeout set on several must agree (none: the element loads its own)",
          nullptr, kReadyFlags));
  g_object_class_install_property (
      klass, PROP_LABELS,
      g_param_spec_string (
          "labels", "Labels",
          "Path of a labels file, one label per line (none: classes are named class_<index>)", nullptr,
          kReadyFlags));
  g_object_class_install_property (
      klass, PROP_DLA_CORE,
      g_param_spec_int ("dla-core", "DLA core",
                        "DLA core that runs the model (Orin has 2: 0 and 1); -1: every core, each task on "
                        "the core expected to end it first",
                        -1, 15, defaults.dla_core, kReadyFlags));
  g_object_class_install_property (
      klass, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
                        "CUDA device whose primary context the element uses (-1: automatic, device 0)", -1,
                        G_MAXINT, defaults.cuda_device_id, kReadyFlags));
  g_object_class_install_property (
      klass, PROP_MEAN,
      triple_spec ("mean", "Mean",
                   "Per-channel mean subtracted from pixel/255, in tensor "
                   "channel order, e.g. \"<0.485, 0.456, 0.406>\" (3 "
                   "numbers; anything else fails at start; as text: mean-string)"));
  g_object_class_install_property (
      klass, PROP_STD,
      triple_spec ("std", "Standard deviation",
                   "Per-channel divisor applied after the mean, e.g. \"<0.229, 0.224, 0.225>\" (3 "
                   "numbers > 0; anything else fails at start; as text: std-string)"));
  /* PyGObject converts no GstValueArray (gst-python, often absent, does): the same values as text. */
  g_object_class_install_property (
      klass, PROP_MEAN_STRING,
      g_param_spec_string ("mean-string", "Mean as text",
                           "mean as text, for bindings without GstValueArray (PyGObject without gst-python): "
                           "\"0.485, 0.456, 0.406\" or \"<0.485, 0.456, 0.406>\"; reads back the text set, "
                           "else the numbers in use (NULL: back to the default)",
                           nullptr, kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_STD_STRING,
      g_param_spec_string ("std-string", "Standard deviation as text",
                           "std as text, for bindings without GstValueArray (PyGObject without gst-python): "
                           "\"0.229, 0.224, 0.225\" or \"<0.229, 0.224, 0.225>\"; reads back the text set, "
                           "else the numbers in use (NULL: back to the default)",
                           nullptr, kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_CHANNEL_ORDER,
      g_param_spec_enum ("channel-order", "Channel order",
                         "Order of the colour channels in the model's input",
                         GST_TYPE_DLA_INFER_CHANNEL_ORDER, int (defaults.channel_order), kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_TASK_TIMEOUT,
      g_param_spec_uint ("task-timeout", "Task timeout",
                         "Milliseconds a DLA task may take before it counts as hung and the stream fails", 1,
                         1000000, defaults.task_timeout_ms, kReadyFlags));
  g_object_class_install_property (
      klass, PROP_MAX_IN_FLIGHT,
      g_param_spec_int ("max-in-flight", "Max in flight",
                        "DLA tasks queued or running at once (task slots, not frames), across the cores: 1 "
                        "runs one frame at a time; 2 keeps one task queued behind the running one (with "
                        "dla-core=-1, 2 per core)",
                        1, dla::kMaxSlots, defaults.max_in_flight, kReadyFlags));
  g_object_class_install_property (
      klass, PROP_INPUT_SCALE,
      g_param_spec_float ("input-scale", "Input scale",
                          "Quantisation scale of an INT8 model input (value = q * scale; 1/127 for inputs "
                          "calibrated to [-1, 1]); "
                          "required for INT8 inputs, ignored for FP16 (0: not set)",
                          0.f, G_MAXFLOAT, defaults.input_scale, kReadyFlags));
  g_object_class_install_property (
      klass, PROP_OUTPUT_SCALE,
      g_param_spec_float (
          "output-scale", "Output scale",
          "Quantisation scale of an INT8 model output (value = q * scale), applied before the activation; "
          "required for INT8 outputs, ignored for FP16 (0: not set)",
          0.f, G_MAXFLOAT, defaults.output_scale, kReadyFlags));
  g_object_class_install_property (
      klass, PROP_RESIZE_MODE,
      g_param_spec_enum ("resize-mode", "Resize mode", "How the frame is fitted to the model's input size",
                         GST_TYPE_DLA_INFER_RESIZE_MODE, int (defaults.resize_mode), kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_CROP_FRACTION,
      g_param_spec_float (
          "crop-fraction", "Crop fraction",
          "center-crop: the part of the resized short side kept (timm's crop_pct; 0.875 = Resize(256) + "
          "CenterCrop(224))",
          0.01f, 1.f, defaults.crop_fraction, kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_PAD_VALUE,
      g_param_spec_uint (
          "pad-value", "Pad value",
          "letterbox: colour of the padding as 0xRRGGBB (normalised with mean/std like the picture)", 0,
          0xffffff, defaults.pad_value, kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_ANTIALIAS,
      g_param_spec_boolean (
          "antialias", "Antialias",
          "Widen the resize filter when downscaling (as Pillow and torchvision antialias=True); off: plain "
          "bilinear",
          defaults.antialias, kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_INTERVAL,
      g_param_spec_uint (
          "interval", "Interval",
          "Frames skipped after each inference (0: infer every frame); skipped frames carry the last result, "
          "marked carried with its age",
          0, G_MAXINT, defaults.interval, kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_ACTIVATION,
      g_param_spec_enum ("activation", "Activation", "Function applied to the model's output scores",
                         GST_TYPE_DLA_INFER_ACTIVATION, int (defaults.activation), kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_TOP_K,
      g_param_spec_uint ("top-k", "Top k", "Most results kept per frame, best first (0: every class)", 0,
                         G_MAXINT, defaults.top_k, kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_THRESHOLD,
      g_param_spec_float ("threshold", "Threshold",
                          "Results whose confidence (after the activation) is below this are dropped",
                          -G_MAXFLOAT, G_MAXFLOAT, defaults.threshold, kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
                            "Post a \"dlainfer-result\" element message (timestamp, class-ids, labels, "
                            "confidences) per inference",
                            defaults.post_messages, kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_TENSOR_META,
      g_param_spec_boolean (
          "tensor-meta", "Tensor meta",
          "Attach every output of the model, de-padded, row-major: a GstTensorMeta (GStreamer >= 1.26; a "
          "class "
          "vector is FLOAT32 [1,N] 'classification-generic-out' for tensor decoders), else a "
          "GstDlaTensorMeta. "
          "Needed to run a model whose output is not a class vector (a feature map, an embedding)",
          defaults.tensor_meta, kReadyFlags));
  g_object_class_install_property (
      klass, PROP_TENSOR_TYPE,
      g_param_spec_enum ("tensor-type", "Tensor type",
                         "Element type of the attached outputs other than a class vector (wins over the "
                         ".modelinfo's type)",
                         GST_TYPE_DLA_INFER_TENSOR_TYPE, defaults.tensor_fp16 ? 1 : 0, kReadyFlags));
  g_object_class_install_property (
      klass, PROP_DUMP_DIR,
      g_param_spec_string (
          "dump-dir", "Dump folder",
          "Folder (made when missing) where the next dump-count inferences write their input "
          "tensor and raw outputs, with layout.txt describing them, for offline comparison",
          nullptr, kPlayingFlags));
  g_object_class_install_property (
      klass, PROP_DUMP_COUNT,
      g_param_spec_uint ("dump-count", "Dump count",
                         "Inferences still to write into dump-dir; setting it arms the dump (0: none)", 0,
                         G_MAXINT, 0, kPlayingFlags));
  install_object_properties (klass, defaults);
  static_assert (dla::kTimingPeriod == 32, "the stats blurb names the timing period");
  g_object_class_install_property (
      klass, PROP_STATS,
      stats_spec = g_param_spec_boxed (
          "stats", "Statistics",
          "Since start: frames, inferences, skipped, errors, graph-launches (inferences "
          "whose kernel launch was "
          "replayed from a CUDA graph), and mean/max milliseconds of preprocess and dla "
          "(CUDA events on the first two inferences and every 32nd after them), postprocess "
          "and total (host clock, "
          "every inference); cores: per DLA core the model runs on, its tasks and busy-ms "
          "(their DLA time: measured on the timed ones, the core's learnt duration for the others); "
          "tensor-copies: tensor-meta tensors copied on the host because downstream held every pooled buffer",
          GST_TYPE_STRUCTURE, kReadOnlyFlags));
  g_object_class_install_property (
      klass, PROP_MODEL_INFO,
      model_info_spec = g_param_spec_boxed ("model-info", "Model information",
                                            "The open model: backend, cuDLA version, DLA core(s), "
                                            "each tensor's name, dims, layout, type, size and raw "
                                            "descriptor, the .modelinfo read and where each setting "
                                            "came from (settings-source) (NULL until started)",
                                            GST_TYPE_STRUCTURE, kReadOnlyFlags));
}

void gst_dla_infer_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstDlaInfer *self = GST_DLA_INFER (object);
  dlainfer::Settings &s = self->priv->settings;
  bool refused = false;                /* a model-changing property above READY */
  std::string bad;                     /* a value start() will refuse */
  std::string not_number;              /* mean/std: the first item of the array that is no number */
  const char *user_name = pspec->name; /* mean-string sets mean */
  bool unset = false;                  /* mean-string=NULL: the default (or the .modelinfo's) again */
  bool warn = false;                   /* bad also as a g_warning */
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODEL:
      if (model_may_change (self, pspec, &refused)) {
        const gchar *v = g_value_get_string (value);
        s.model = v ? v : "";
      }
      break;
    case PROP_MODEL_INSTANCE_ID:
      if (model_may_change (self, pspec, &refused)) {
        const gchar *v = g_value_get_string (value);
        s.model_instance_id = v ? v : "";
      }
      break;
    case PROP_LABELS:
      if (model_may_change (self, pspec, &refused)) {
        const gchar *v = g_value_get_string (value);
        s.labels = v ? v : "";
      }
      break;
    case PROP_DLA_CORE:
      if (model_may_change (self, pspec, &refused))
        s.dla_core = g_value_get_int (value);
      break;
    case PROP_CUDA_DEVICE_ID:
      if (model_may_change (self, pspec, &refused))
        s.cuda_device_id = g_value_get_int (value);
      break;
    case PROP_TASK_TIMEOUT:
      if (model_may_change (self, pspec, &refused))
        s.task_timeout_ms = g_value_get_uint (value);
      break;
    case PROP_MAX_IN_FLIGHT:
      if (model_may_change (self, pspec, &refused))
        s.max_in_flight = g_value_get_int (value);
      break;
    case PROP_MEAN:
    case PROP_STD: {
      const bool is_std = prop_id == PROP_STD;
      (is_std ? s.std : s.mean) = read_triple (value);
      (is_std ? s.std_property : s.mean_property) = pspec->name;
      (is_std ? s.std_text : s.mean_text) = given_text (value, &not_number);
      dlainfer::check_mean_std (s, is_std, &bad);
      break;
    }
    case PROP_MEAN_STRING:
    case PROP_STD_STRING: {
      const bool is_std = prop_id == PROP_STD_STRING;
      user_name = is_std ? "std" : "mean";
      const gchar *v = g_value_get_string (value);
      const dlainfer::Settings defaults;
      (is_std ? s.std : s.mean) = v ? dlainfer::parse_numbers (v) : is_std ? defaults.std : defaults.mean;
      (is_std ? s.std_property : s.mean_property) = v ? pspec->name : "";
      (is_std ? s.std_text : s.mean_text) = v ? v : "";
      unset = !v;
      /* A wrong text is a wrong type, as GObject warns for one: on stderr, not only on the bus. */
      if (!dlainfer::check_mean_std (s, is_std, &bad))
        warn = true;
      break;
    }
    case PROP_CHANNEL_ORDER:
      s.channel_order = preprocess::ChannelOrder (g_value_get_enum (value));
      break;
    case PROP_INPUT_SCALE:
      if (model_may_change (self, pspec, &refused))
        s.input_scale = g_value_get_float (value);
      break;
    case PROP_OUTPUT_SCALE:
      if (model_may_change (self, pspec, &refused))
        s.output_scale = g_value_get_float (value);
      break;
    case PROP_RESIZE_MODE:
      s.resize_mode = preprocess::ResizeMode (g_value_get_enum (value));
      break;
    case PROP_CROP_FRACTION:
      s.crop_fraction = g_value_get_float (value);
      break;
    case PROP_PAD_VALUE:
      s.pad_value = g_value_get_uint (value);
      break;
    case PROP_ANTIALIAS:
      s.antialias = g_value_get_boolean (value);
      break;
    case PROP_INTERVAL:
      s.interval = g_value_get_uint (value);
      break;
    case PROP_ACTIVATION:
      s.activation = postprocess::Activation (g_value_get_enum (value));
      break;
    case PROP_TOP_K:
      s.top_k = g_value_get_uint (value);
      break;
    case PROP_THRESHOLD:
      s.threshold = g_value_get_float (value);
      break;
    case PROP_POST_MESSAGES:
      s.post_messages = g_value_get_boolean (value);
      break;
    case PROP_TENSOR_META:
      if (model_may_change (self, pspec, &refused))
        s.tensor_meta = g_value_get_boolean (value);
      break;
    case PROP_TENSOR_TYPE:
      if (model_may_change (self, pspec, &refused))
        s.tensor_fp16 = g_value_get_enum (value) == 1;
      break;
    case PROP_DUMP_DIR: {
      const gchar *v = g_value_get_string (value);
      self->priv->tensors.dump ().set_dir (v ? v : "");
      break;
    }
    case PROP_INFERENCE_REGION:
      if (model_may_change (self, pspec, &refused))
        s.inference_region = dlainfer::InferenceRegion (g_value_get_enum (value));
      break;
    case PROP_OBJECT_CLASS:
      s.object_class = string_or_empty (value);
      dlainfer::check (s, &bad);
      break;
    case PROP_RECLASSIFY_INTERVAL:
      s.reclassify_interval = g_value_get_uint (value);
      break;
    case PROP_OBJECT_MIN_WIDTH:
      s.min_object_width = g_value_get_uint (value);
      break;
    case PROP_OBJECT_MIN_HEIGHT:
      s.min_object_height = g_value_get_uint (value);
      break;
    case PROP_MAX_OBJECTS:
      s.max_objects = g_value_get_uint (value);
      break;
    case PROP_ATTRIBUTE_NAME:
      s.attribute_name = string_or_empty (value);
      dlainfer::check (s, &bad);
      break;
    case PROP_DUMP_COUNT:
      self->priv->tensors.dump ().set_count (g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  if (unset)
    s.user_set.erase (user_name);
  else if (!refused)
    s.user_set.insert (user_name); /* wins over the model's .modelinfo */
  GST_OBJECT_UNLOCK (self);
  /* An item that is no number (Gst.util_set_object_arg (e, "mean", "<abc>")) is a wrong type too;
   * a wrong count of numbers is refused at start only (and said on the bus). */
  if (!not_number.empty () && !bad.empty ())
    warn = true;
  if (warn)
    g_warning ("%s: %s", GST_OBJECT_NAME (self), bad.c_str ());
  /* Nothing dropped quietly: a warning on the bus (the lock is not held while posting). */
  if (refused)
    GST_ELEMENT_WARNING (
        self, RESOURCE, SETTINGS,
        ("Property '%s' can only change in the NULL or READY state; the new value is ignored", pspec->name),
        (nullptr));
  if (!bad.empty ()) {
    GST_WARNING_OBJECT (self, "%s", bad.c_str ());
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("%s; the element will not start with it", bad.c_str ()),
                         (nullptr));
  }
}

void gst_dla_infer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstDlaInfer *self = GST_DLA_INFER (object);
  const dlainfer::Settings &s = self->priv->settings;
  if (prop_id == PROP_STATS) {
    /* The counters have a lock of their own: reading them never waits for a frame. */
    GstStructure *stats = self->priv->stats.to_structure ();
    /* tensor-meta: tensors copied on the host because downstream held every pooled buffer. */
    gst_structure_set (stats, "tensor-copies", G_TYPE_UINT64, self->priv->tensors.tensor_copies (), nullptr);
    g_value_take_boxed (value, stats);
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODEL:
      g_value_set_string (value, s.model.empty () ? nullptr : s.model.c_str ());
      break;
    case PROP_MODEL_INSTANCE_ID:
      g_value_set_string (value, s.model_instance_id.empty () ? nullptr : s.model_instance_id.c_str ());
      break;
    case PROP_LABELS:
      g_value_set_string (value, s.labels.empty () ? nullptr : s.labels.c_str ());
      break;
    case PROP_DLA_CORE:
      g_value_set_int (value, s.dla_core);
      break;
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, s.cuda_device_id);
      break;
    case PROP_TASK_TIMEOUT:
      g_value_set_uint (value, s.task_timeout_ms);
      break;
    case PROP_MAX_IN_FLIGHT:
      g_value_set_int (value, s.max_in_flight);
      break;
    case PROP_MEAN:
      write_triple (value, s.mean);
      break;
    case PROP_STD:
      write_triple (value, s.std);
      break;
    case PROP_MEAN_STRING:
    case PROP_STD_STRING: {
      const bool is_std = prop_id == PROP_STD_STRING;
      const std::string &text = is_std ? s.std_text : s.mean_text;
      g_value_set_string (value,
                          (text.empty () ? dlainfer::numbers_text (is_std ? s.std : s.mean) : text).c_str ());
      break;
    }
    case PROP_CHANNEL_ORDER:
      g_value_set_enum (value, int (s.channel_order));
      break;
    case PROP_INPUT_SCALE:
      g_value_set_float (value, s.input_scale);
      break;
    case PROP_OUTPUT_SCALE:
      g_value_set_float (value, s.output_scale);
      break;
    case PROP_RESIZE_MODE:
      g_value_set_enum (value, int (s.resize_mode));
      break;
    case PROP_CROP_FRACTION:
      g_value_set_float (value, s.crop_fraction);
      break;
    case PROP_PAD_VALUE:
      g_value_set_uint (value, s.pad_value);
      break;
    case PROP_ANTIALIAS:
      g_value_set_boolean (value, s.antialias);
      break;
    case PROP_INTERVAL:
      g_value_set_uint (value, s.interval);
      break;
    case PROP_ACTIVATION:
      g_value_set_enum (value, int (s.activation));
      break;
    case PROP_TOP_K:
      g_value_set_uint (value, s.top_k);
      break;
    case PROP_THRESHOLD:
      g_value_set_float (value, s.threshold);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, s.post_messages);
      break;
    case PROP_TENSOR_META:
      g_value_set_boolean (value, s.tensor_meta);
      break;
    case PROP_TENSOR_TYPE:
      g_value_set_enum (value, s.tensor_fp16 ? 1 : 0);
      break;
    case PROP_DUMP_DIR: {
      const std::string dir = self->priv->tensors.dump ().dir ();
      g_value_set_string (value, dir.empty () ? nullptr : dir.c_str ());
      break;
    }
    case PROP_DUMP_COUNT:
      g_value_set_uint (value, self->priv->tensors.dump ().count ());
      break;
    case PROP_MODEL_INFO:
      g_value_set_boxed (value, self->priv->model_info);
      break;
    case PROP_INFERENCE_REGION:
      g_value_set_enum (value, int (s.inference_region));
      break;
    case PROP_OBJECT_CLASS:
      g_value_set_string (value, s.object_class.empty () ? nullptr : s.object_class.c_str ());
      break;
    case PROP_RECLASSIFY_INTERVAL:
      g_value_set_uint (value, s.reclassify_interval);
      break;
    case PROP_OBJECT_MIN_WIDTH:
      g_value_set_uint (value, s.min_object_width);
      break;
    case PROP_OBJECT_MIN_HEIGHT:
      g_value_set_uint (value, s.min_object_height);
      break;
    case PROP_MAX_OBJECTS:
      g_value_set_uint (value, s.max_objects);
      break;
    case PROP_ATTRIBUTE_NAME:
      g_value_set_string (value, s.attribute_name.empty () ? nullptr : s.attribute_name.c_str ());
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}
