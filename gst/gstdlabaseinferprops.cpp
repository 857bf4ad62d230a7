/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: GstDlaBaseInfer's properties, common to the family: the model and how it runs, the
 * preprocessing, the raw tensors, stats and model-info; and the one set_property and get_property
 * of every class's table (gst/property_table.h).
 *
 * Values live in dlainfer::Settings under the object lock. Properties flagged
 * GST_PARAM_MUTABLE_READY define the model: they take effect at the next start and are refused
 * above READY with a GST_WARNING and a GST_ELEMENT_WARNING on the bus (not a g_warning: an
 * application setting them late is not a programming error); the others are read at the start of
 * every frame. `model-info` is notified once after start, `stats` at most once a second and at
 * EOS. */
#include <cmath>
#include <string>
#include <vector>

#include "dla/engine.h"
#include "gst/gstdlabaseinfer-private.h"

#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace {

using dlainfer::field;
using dlainfer::kPlayingFlags;
using dlainfer::kReadOnlyFlags;
using dlainfer::kReadyFlags;
using dlainfer::SetNote;
using dlainfer::Settings;

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
  return gst_param_spec_array (name, nick, blurb, nullptr, dlainfer::kPlayingFlags);
}

/* mean and std: kept as set (read_triple), with the text the messages quote. An item that is no
 * number (Gst.util_set_object_arg (e, "mean", "<abc>")) is a wrong type too; a wrong count of
 * numbers is refused at start only (and said on the bus). */
template <bool is_std>
void set_triple (GstDlaBaseInfer *, Settings &s, const GValue *v, SetNote *note)
{
  std::string not_number;
  (is_std ? s.std : s.mean) = read_triple (v);
  (is_std ? s.std_property : s.mean_property) = is_std ? "std" : "mean";
  (is_std ? s.std_text : s.mean_text) = given_text (v, &not_number);
  dlainfer::check_mean_std (s, is_std, &note->bad);
  note->warn = !not_number.empty () && !note->bad.empty ();
}

template <bool is_std>
void get_triple (GstDlaBaseInfer *, const Settings &s, GValue *v)
{
  write_triple (v, is_std ? s.std : s.mean);
}

/* mean-string and std-string set mean and std; NULL: the default (or the .modelinfo's) again. A
 * wrong text is a wrong type, as GObject warns for one: on stderr, not only on the bus. */
template <bool is_std>
void set_text (GstDlaBaseInfer *, Settings &s, const GValue *value, SetNote *note)
{
  const gchar *v = g_value_get_string (value);
  const Settings defaults;
  note->user_name = is_std ? "std" : "mean";
  (is_std ? s.std : s.mean) = v ? dlainfer::parse_numbers (v) : is_std ? defaults.std : defaults.mean;
  (is_std ? s.std_property : s.mean_property) = v ? (is_std ? "std-string" : "mean-string") : "";
  (is_std ? s.std_text : s.mean_text) = v ? v : "";
  note->unset = !v;
  note->warn = !dlainfer::check_mean_std (s, is_std, &note->bad);
}

/* The text set, else the numbers in use. */
template <bool is_std>
void get_text (GstDlaBaseInfer *, const Settings &s, GValue *v)
{
  const std::string &text = is_std ? s.std_text : s.mean_text;
  g_value_set_string (v, (text.empty () ? dlainfer::numbers_text (is_std ? s.std : s.mean) : text).c_str ());
}

void set_tensor_type (GstDlaBaseInfer *, Settings &s, const GValue *v, SetNote *)
{
  s.tensor_fp16 = g_value_get_enum (v) == 1;
}

void get_tensor_type (GstDlaBaseInfer *, const Settings &s, GValue *v)
{
  g_value_set_enum (v, s.tensor_fp16 ? 1 : 0);
}

void set_dump_dir (GstDlaBaseInfer *self, Settings &, const GValue *v, SetNote *)
{
  const gchar *dir = g_value_get_string (v);
  self->priv->tensors.dump ().set_dir (dir ? dir : "");
}

void get_dump_dir (GstDlaBaseInfer *self, const Settings &, GValue *v)
{
  const std::string dir = self->priv->tensors.dump ().dir ();
  g_value_set_string (v, dir.empty () ? nullptr : dir.c_str ());
}

void set_dump_count (GstDlaBaseInfer *self, Settings &, const GValue *v, SetNote *)
{
  self->priv->tensors.dump ().set_count (g_value_get_uint (v));
}

void get_dump_count (GstDlaBaseInfer *self, const Settings &, GValue *v)
{
  g_value_set_uint (v, self->priv->tensors.dump ().count ());
}

/* The counters have a lock of their own: reading them never waits for the object lock. */
void get_stats (GstDlaBaseInfer *self, const Settings &, GValue *v)
{
  GstStructure *stats = self->priv->stats.to_structure ();
  /* tensor-meta: tensors copied on the host because downstream held every pooled buffer. */
  gst_structure_set (stats, "tensor-copies", G_TYPE_UINT64, self->priv->tensors.tensor_copies (), nullptr);
  g_value_take_boxed (v, stats);
}

void get_model_info (GstDlaBaseInfer *self, const Settings &, GValue *v)
{
  g_value_set_boxed (v, self->priv->model_info);
}

GParamSpec *stats_spec = nullptr;
GParamSpec *model_info_spec = nullptr;

/* The row of `pspec` in its owner class's table; null for a spec installed otherwise. */
const dlainfer::Property *row_of (GParamSpec *pspec, guint prop_id)
{
  auto *klass = static_cast<GstDlaBaseInferClass *> (g_type_class_peek (pspec->owner_type));
  const std::vector<dlainfer::Property> *table = klass ? klass->properties : nullptr;
  if (!table || prop_id < 1 || prop_id > table->size () || (*table)[prop_id - 1].spec != pspec)
    return nullptr;
  return &(*table)[prop_id - 1];
}

/* A GST_PARAM_MUTABLE_READY property above READY (object lock held): refused, with a GST_WARNING. */
bool refused_now (GstDlaBaseInfer *self, GParamSpec *pspec)
{
  const GstState state = GST_STATE (self);
  if (!(pspec->flags & GST_PARAM_MUTABLE_READY) ||
      (state <= GST_STATE_READY && GST_STATE_PENDING (self) <= GST_STATE_READY))
    return false;
  GST_WARNING_OBJECT (self, "property '%s' can only change in the NULL or READY state; ignored in %s",
                      pspec->name, gst_element_state_get_name (state));
  return true;
}

}  // namespace

void gst_dla_base_infer_notify (GstDlaBaseInfer *self, GstDlaBaseInferNotify which)
{
  g_object_notify_by_pspec (G_OBJECT (self),
                            which == GST_DLA_BASE_INFER_NOTIFY_STATS ? stats_spec : model_info_spec);
}

GType gst_dla_infer_channel_order_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {int (preprocess::ChannelOrder::kRGB), "Red, green, blue", "rgb"},
      {int (preprocess::ChannelOrder::kBGR), "Blue, green, red (Caffe/OpenCV models)", "bgr"},
      {0, nullptr, nullptr},
  };
  return dlainfer::enum_type (&type, "GstDlaInferChannelOrder", values);
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
  return dlainfer::enum_type (&type, "GstDlaInferResizeMode", values);
}

GType gst_dla_infer_tensor_type_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {0, "FLOAT32", "float32"},
      {1, "FLOAT16 (half the bytes; a class vector stays FLOAT32)", "float16"},
      {0, nullptr, nullptr},
  };
  return dlainfer::enum_type (&type, "GstDlaInferTensorType", values);
}

std::vector<dlainfer::Property> gst_dla_base_infer_properties ()
{
  const Settings defaults;
  static_assert (dla::kTimingPeriod == 32, "the stats blurb names the timing period");
  return {
      field<&Settings::model> (g_param_spec_string (
          "model", "Model",
          "Path of the cuDLA loadable (built with trtexec --useDLACore=N --buildDLAStandalone); required",
          nullptr, kReadyFlags)),
      field<&Settings::model_instance_id> (g_param_spec_string (
          "model-instance-id", "Model instance id",
          "Elements with the same id share one loaded model (one device handle, module and task queue per "
          "DLA core), each with its own frames in flight and per-frame settings; only one of them (any) "
          "needs 'model', the others take its labels and .modelinfo settings, and model, dla-core, "
          "cuda-device-id and task-timeout set on several must agree (none: the element loads its own)",
          nullptr, kReadyFlags)),
      field<&Settings::labels> (g_param_spec_string (
          "labels", "Labels",
          "Path of a labels file, one label per line (none: classes are named class_<index>)", nullptr,
          kReadyFlags)),
      field<&Settings::dla_core> (g_param_spec_int (
          "dla-core", "DLA core",
          "DLA core that runs the model (Orin has 2: 0 and 1); -1: every core, each task on "
          "the core expected to end it first",
          -1, 15, defaults.dla_core, kReadyFlags)),
      field<&Settings::cuda_device_id> (
          g_param_spec_int ("cuda-device-id", "CUDA device id",
                            "CUDA device whose primary context the element uses (-1: automatic, device 0)",
                            -1, G_MAXINT, defaults.cuda_device_id, kReadyFlags)),
      {triple_spec ("mean", "Mean",
                    "Per-channel mean subtracted from pixel/255, in tensor "
                    "channel order, e.g. \"<0.485, 0.456, 0.406>\" (3 "
                    "numbers; anything else fails at start; as text: mean-string)"),
       set_triple<false>, get_triple<false>},
      {triple_spec ("std", "Standard deviation",
                    "Per-channel divisor applied after the mean, e.g. \"<0.229, 0.224, 0.225>\" (3 "
                    "numbers > 0; anything else fails at start; as text: std-string)"),
       set_triple<true>, get_triple<true>},
      /* PyGObject converts no GstValueArray (gst-python, often absent, does): the same values as text. */
      {g_param_spec_string (
           "mean-string", "Mean as text",
           "mean as text, for bindings without GstValueArray (PyGObject without gst-python): "
           "\"0.485, 0.456, 0.406\" or \"<0.485, 0.456, 0.406>\"; reads back the text set, "
           "else the numbers in use (NULL: back to the default)",
           nullptr, kPlayingFlags),
       set_text<false>, get_text<false>},
      {g_param_spec_string ("std-string", "Standard deviation as text",
                            "std as text, for bindings without GstValueArray (PyGObject without gst-python): "
                            "\"0.229, 0.224, 0.225\" or \"<0.229, 0.224, 0.225>\"; reads back the text set, "
                            "else the numbers in use (NULL: back to the default)",
                            nullptr, kPlayingFlags),
       set_text<true>, get_text<true>},
      field<&Settings::channel_order> (g_param_spec_enum (
          "channel-order", "Channel order", "Order of the colour channels in the model's input",
          GST_TYPE_DLA_INFER_CHANNEL_ORDER, int (defaults.channel_order), kPlayingFlags)),
      field<&Settings::task_timeout_ms> (
          g_param_spec_uint ("task-timeout", "Task timeout",
                             "Milliseconds a DLA task may take before it counts as hung and the stream fails",
                             1, 1000000, defaults.task_timeout_ms, kReadyFlags)),
      field<&Settings::max_in_flight> (g_param_spec_int (
          "max-in-flight", "Max in flight",
          "DLA tasks queued or running at once (task slots, not frames), across the cores: 1 "
          "runs one frame at a time; 2 keeps one task queued behind the running one (with "
          "dla-core=-1, 2 per core)",
          1, dla::kMaxSlots, defaults.max_in_flight, kReadyFlags)),
      field<&Settings::input_scale> (g_param_spec_float (
          "input-scale", "Input scale",
          "Quantisation scale of an INT8 model input (value = q * scale; 1/127 for inputs "
          "calibrated to [-1, 1]); "
          "required for INT8 inputs, ignored for FP16 (0: not set)",
          0.f, G_MAXFLOAT, defaults.input_scale, kReadyFlags)),
      field<&Settings::output_scale> (g_param_spec_float (
          "output-scale", "Output scale",
          "Quantisation scale of an INT8 model output (value = q * scale), applied before the activation; "
          "required for INT8 outputs, ignored for FP16 (0: not set)",
          0.f, G_MAXFLOAT, defaults.output_scale, kReadyFlags)),
      field<&Settings::resize_mode> (g_param_spec_enum (
          "resize-mode", "Resize mode", "How the frame is fitted to the model's input size",
          GST_TYPE_DLA_INFER_RESIZE_MODE, int (defaults.resize_mode), kPlayingFlags)),
      field<&Settings::crop_fraction> (g_param_spec_float (
          "crop-fraction", "Crop fraction",
          "center-crop: the part of the resized short side kept (timm's crop_pct; 0.875 = Resize(256) + "
          "CenterCrop(224))",
          0.01f, 1.f, defaults.crop_fraction, kPlayingFlags)),
      field<&Settings::pad_value> (g_param_spec_uint (
          "pad-value", "Pad value",
          "letterbox: colour of the padding as 0xRRGGBB (normalised with mean/std like the picture)", 0,
          0xffffff, defaults.pad_value, kPlayingFlags)),
      field<&Settings::antialias> (g_param_spec_boolean (
          "antialias", "Antialias",
          "Widen the resize filter when downscaling (as Pillow and torchvision antialias=True); off: plain "
          "bilinear",
          defaults.antialias, kPlayingFlags)),
      field<&Settings::interval> (g_param_spec_uint (
          "interval", "Interval",
          "Frames skipped after each inference (0: infer every frame); skipped frames carry the last result, "
          "marked carried with its age",
          0, G_MAXINT, defaults.interval, kPlayingFlags)),
      field<&Settings::tensor_meta> (g_param_spec_boolean (
          "tensor-meta", "Tensor meta",
          "Attach every output of the model, de-padded, row-major: a GstTensorMeta (GStreamer >= 1.26; a "
          "class "
          "vector is FLOAT32 [1,N] 'classification-generic-out' for tensor decoders), else a "
          "GstDlaTensorMeta. "
          "Needed to run a model whose output is not a class vector (a feature map, an embedding)",
          defaults.tensor_meta, kReadyFlags)),
      {g_param_spec_enum ("tensor-type", "Tensor type",
                          "Element type of the attached outputs other than a class vector (wins over the "
                          ".modelinfo's type)",
                          GST_TYPE_DLA_INFER_TENSOR_TYPE, defaults.tensor_fp16 ? 1 : 0, kReadyFlags),
       set_tensor_type, get_tensor_type},
      {g_param_spec_string (
           "dump-dir", "Dump folder",
           "Folder (made when missing) where the next dump-count inferences write their input "
           "tensor and raw outputs, with layout.txt describing them, for offline comparison",
           nullptr, kPlayingFlags),
       set_dump_dir, get_dump_dir},
      {g_param_spec_uint ("dump-count", "Dump count",
                          "Inferences still to write into dump-dir; setting it arms the dump (0: none)", 0,
                          G_MAXINT, 0, kPlayingFlags),
       set_dump_count, get_dump_count},
      {stats_spec = g_param_spec_boxed (
           "stats", "Statistics",
           "Since start: frames, inferences, skipped, errors, graph-launches (inferences "
           "whose kernel launch was "
           "replayed from a CUDA graph), and mean/max milliseconds of preprocess and dla "
           "(CUDA events on the first two inferences and every 32nd after them), postprocess "
           "and total (host clock, "
           "every inference); cores: per DLA core the model runs on, its tasks and busy-ms "
           "(their DLA time: measured on the timed ones, the core's learnt duration for the others); "
           "tensor-copies: tensor-meta tensors copied on the host because downstream held every pooled "
           "buffer",
           GST_TYPE_STRUCTURE, kReadOnlyFlags),
       nullptr, get_stats, false},
      {model_info_spec = g_param_spec_boxed ("model-info", "Model information",
                                             "The open model: backend, cuDLA version, DLA core(s), "
                                             "each tensor's name, dims, layout, type, size and raw "
                                             "descriptor, the .modelinfo read and where each setting "
                                             "came from (settings-source) (NULL until started)",
                                             GST_TYPE_STRUCTURE, kReadOnlyFlags),
       nullptr, get_model_info}};
}

static void gst_dla_base_infer_set_property (GObject *object, guint prop_id, const GValue *value,
                                             GParamSpec *pspec)
{
  GstDlaBaseInfer *self = GST_DLA_BASE_INFER (object);
  const dlainfer::Property *p = row_of (pspec, prop_id);
  if (!p || !p->set) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  Settings &s = self->priv->settings;
  SetNote note{{}, pspec->name};
  GST_OBJECT_LOCK (self);
  const bool refused = refused_now (self, pspec);
  if (!refused)
    p->set (self, s, value, &note);
  if (note.unset)
    s.user_set.erase (note.user_name);
  else if (!refused)
    s.user_set.insert (note.user_name); /* wins over the model's .modelinfo */
  GST_OBJECT_UNLOCK (self);
  if (note.warn)
    g_warning ("%s: %s", GST_OBJECT_NAME (self), note.bad.c_str ());
  /* Nothing dropped quietly: a warning on the bus (the lock is not held while posting). */
  if (refused)
    GST_ELEMENT_WARNING (
        self, RESOURCE, SETTINGS,
        ("Property '%s' can only change in the NULL or READY state; the new value is ignored", pspec->name),
        (nullptr));
  if (!note.bad.empty ()) {
    GST_WARNING_OBJECT (self, "%s", note.bad.c_str ());
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
                         ("%s; the element will not start with it", note.bad.c_str ()), (nullptr));
  }
}

static void gst_dla_base_infer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstDlaBaseInfer *self = GST_DLA_BASE_INFER (object);
  const dlainfer::Property *p = row_of (pspec, prop_id);
  if (!p) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  if (!p->locked)
    return p->get (self, self->priv->settings, value);
  GST_OBJECT_LOCK (self);
  p->get (self, self->priv->settings, value);
  GST_OBJECT_UNLOCK (self);
}

void gst_dla_base_infer_class_install_properties (GstDlaBaseInferClass *klass,
                                                  std::vector<dlainfer::Property> table)
{
  /* GObject does not inherit these: every class of the family gets the one pair. */
  G_OBJECT_CLASS (klass)->set_property = gst_dla_base_infer_set_property;
  G_OBJECT_CLASS (klass)->get_property = gst_dla_base_infer_get_property;
  /* As long as the class: never freed, as its specs. */
  auto *owned = new std::vector<dlainfer::Property> (std::move (table));
  for (size_t i = 0; i < owned->size (); ++i)
    g_object_class_install_property (G_OBJECT_CLASS (klass), guint (i + 1), (*owned)[i].spec);
  klass->properties = owned;
}
