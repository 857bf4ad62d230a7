/* gst-dlainfer: the dlainfer element's properties.
 *
 * Values live in dlainfer::Settings under the object lock. Model-changing properties (model,
 * labels, dla-core, cuda-device-id, task-timeout) take effect at the next start and are refused
 * with a warning above READY; the others are read at the start of every frame. */
#include "gstdlainfer-private.h"

#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace {

enum {
  PROP_0,
  PROP_MODEL,
  PROP_LABELS,
  PROP_DLA_CORE,
  PROP_CUDA_DEVICE_ID,
  PROP_MEAN,
  PROP_STD,
  PROP_CHANNEL_ORDER,
  PROP_TASK_TIMEOUT,
};

constexpr auto kReadyFlags =
    GParamFlags (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
constexpr auto kPlayingFlags =
    GParamFlags (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);

/* Whether a model-changing property may change now (object lock held). */
bool model_may_change (GstDlaInfer *self, GParamSpec *pspec)
{
  const GstState state = GST_STATE (self);
  const GstState pending = GST_STATE_PENDING (self);
  if (state <= GST_STATE_READY && pending <= GST_STATE_READY)
    return true;
  GST_WARNING_OBJECT (self, "property '%s' can only change in the NULL or READY state; ignored in %s",
      pspec->name, gst_element_state_get_name (state));
  return false;
}

/* A GstValueArray of exactly three floats into `out`; std values must also be > 0. */
bool read_triple (GstDlaInfer *self, const GValue *value, bool positive, float out[3], const char *name)
{
  if (gst_value_array_get_size (value) != 3) {
    GST_WARNING_OBJECT (self, "'%s' needs exactly 3 values (one per channel), got %u; ignored", name,
        gst_value_array_get_size (value));
    return false;
  }
  float v[3];
  for (guint i = 0; i < 3; ++i) {
    const GValue *item = gst_value_array_get_value (value, i);
    if (G_VALUE_HOLDS_FLOAT (item))
      v[i] = g_value_get_float (item);
    else if (G_VALUE_HOLDS_DOUBLE (item))
      v[i] = float (g_value_get_double (item));
    else if (G_VALUE_HOLDS_INT (item))
      v[i] = float (g_value_get_int (item));
    else {
      GST_WARNING_OBJECT (self, "'%s' values must be numbers; ignored", name);
      return false;
    }
    if (positive && !(v[i] > 0.f)) {
      GST_WARNING_OBJECT (self, "'%s' values must be > 0, got %g; ignored", name, double (v[i]));
      return false;
    }
  }
  for (int i = 0; i < 3; ++i)
    out[i] = v[i];
  return true;
}

void write_triple (GValue *value, const float v[3])
{
  for (int i = 0; i < 3; ++i) {
    GValue item = G_VALUE_INIT;
    g_value_init (&item, G_TYPE_FLOAT);
    g_value_set_float (&item, v[i]);
    gst_value_array_append_value (value, &item);
    g_value_unset (&item);
  }
}

GParamSpec *triple_spec (const char *name, const char *nick, const char *blurb, float min)
{
  return gst_param_spec_array (name, nick, blurb,
      g_param_spec_float ("value", "Value", "One channel's value", min, G_MAXFLOAT, 0.f,
          GParamFlags (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)),
      kPlayingFlags);
}

}  // namespace

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

void gst_dla_infer_install_properties (GObjectClass *klass)
{
  const dlainfer::Settings defaults;
  g_object_class_install_property (klass, PROP_MODEL,
      g_param_spec_string ("model", "Model",
          "Path of the cuDLA loadable (built with trtexec --useDLACore=N --buildDLAStandalone); required",
          nullptr, kReadyFlags));
  g_object_class_install_property (klass, PROP_LABELS,
      g_param_spec_string ("labels", "Labels",
          "Path of a labels file, one label per line (none: classes are named class_<index>)", nullptr,
          kReadyFlags));
  g_object_class_install_property (klass, PROP_DLA_CORE,
      g_param_spec_int ("dla-core", "DLA core", "DLA core that runs the model (Orin has 2: 0 and 1)", 0, 15,
          defaults.dla_core, kReadyFlags));
  g_object_class_install_property (klass, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device whose primary context the element uses (-1: automatic, device 0)", -1, G_MAXINT,
          defaults.cuda_device_id, kReadyFlags));
  g_object_class_install_property (klass, PROP_MEAN,
      triple_spec ("mean", "Mean",
          "Per-channel mean subtracted from pixel/255, in tensor channel order, e.g. \"<0.485, 0.456, 0.406>\"",
          -G_MAXFLOAT));
  g_object_class_install_property (klass, PROP_STD,
      triple_spec ("std", "Standard deviation",
          "Per-channel divisor (> 0) applied after the mean, e.g. \"<0.229, 0.224, 0.225>\"", 0.f));
  g_object_class_install_property (klass, PROP_CHANNEL_ORDER,
      g_param_spec_enum ("channel-order", "Channel order", "Order of the colour channels in the model's input",
          GST_TYPE_DLA_INFER_CHANNEL_ORDER, int (defaults.channel_order), kPlayingFlags));
  g_object_class_install_property (klass, PROP_TASK_TIMEOUT,
      g_param_spec_uint ("task-timeout", "Task timeout",
          "Milliseconds a DLA task may take before it counts as hung and the stream fails", 1, 1000000,
          defaults.task_timeout_ms, kReadyFlags));
}

void gst_dla_infer_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstDlaInfer *self = GST_DLA_INFER (object);
  dlainfer::Settings &s = self->priv->settings;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODEL:
      if (model_may_change (self, pspec)) {
        const gchar *v = g_value_get_string (value);
        s.model = v ? v : "";
      }
      break;
    case PROP_LABELS:
      if (model_may_change (self, pspec)) {
        const gchar *v = g_value_get_string (value);
        s.labels = v ? v : "";
      }
      break;
    case PROP_DLA_CORE:
      if (model_may_change (self, pspec))
        s.dla_core = g_value_get_int (value);
      break;
    case PROP_CUDA_DEVICE_ID:
      if (model_may_change (self, pspec))
        s.cuda_device_id = g_value_get_int (value);
      break;
    case PROP_TASK_TIMEOUT:
      if (model_may_change (self, pspec))
        s.task_timeout_ms = g_value_get_uint (value);
      break;
    case PROP_MEAN:
      read_triple (self, value, false, s.mean, "mean");
      break;
    case PROP_STD:
      read_triple (self, value, true, s.std, "std");
      break;
    case PROP_CHANNEL_ORDER:
      s.channel_order = preprocess::ChannelOrder (g_value_get_enum (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

void gst_dla_infer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstDlaInfer *self = GST_DLA_INFER (object);
  const dlainfer::Settings &s = self->priv->settings;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODEL: g_value_set_string (value, s.model.empty () ? nullptr : s.model.c_str ()); break;
    case PROP_LABELS: g_value_set_string (value, s.labels.empty () ? nullptr : s.labels.c_str ()); break;
    case PROP_DLA_CORE: g_value_set_int (value, s.dla_core); break;
    case PROP_CUDA_DEVICE_ID: g_value_set_int (value, s.cuda_device_id); break;
    case PROP_TASK_TIMEOUT: g_value_set_uint (value, s.task_timeout_ms); break;
    case PROP_MEAN: write_triple (value, s.mean); break;
    case PROP_STD: write_triple (value, s.std); break;
    case PROP_CHANNEL_ORDER: g_value_set_enum (value, int (s.channel_order)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (self);
}
