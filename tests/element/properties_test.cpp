/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every dlainfer property as gst-inspect-1.0 shows it: blurb, range, default, mutability; values
 * out of range or of the wrong shape refused (old value kept); model-changing properties refused
 * above READY with a GST_WARNING (never a g_warning); read-only stats and model-info. CPU only:
 * states above READY are forced, since reaching them needs a DLA. */
#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "test_support.h"

namespace {

GstElement *make_infer ()
{
  GstElement *e = gst_element_factory_make ("dlainfer", nullptr);
  EXPECT_NE (e, nullptr) << "dlainfer is not registered";
  return e;
}

GParamSpec *spec (GstElement *e, const char *name)
{
  return g_object_class_find_property (G_OBJECT_GET_CLASS (e), name);
}

/* The value of a property, serialised as gst-inspect shows it ("0.875", "center-crop", ...). */
std::string get_str (GstElement *e, const char *name)
{
  GParamSpec *p = spec (e, name);
  if (!p)
    return "<no such property>";
  GValue v = G_VALUE_INIT;
  g_value_init (&v, p->value_type);
  g_object_get_property (G_OBJECT (e), name, &v);
  gchar *s = gst_value_serialize (&v);
  std::string out = s ? s : "<null>";
  g_free (s);
  g_value_unset (&v);
  return out;
}

std::string default_str (GParamSpec *p)
{
  const GValue *v = g_param_spec_get_default_value (p);
  gchar *s = gst_value_serialize (v);
  std::string out = s ? s : "<null>";
  g_free (s);
  return out;
}

/* dlainfer's GST_WARNING lines, read from GST_DEBUG_FILE (the test's environment sets GST_DEBUG
 * to dlainfer:2 and names the file). A log function of our own would do, but GStreamer leaks the
 * old list on every add/remove, which the valgrind setup would report. */
class WarningLog {
 public:
  WarningLog () : start_ (read_all ().size ()) {}
  bool available () const { return g_getenv ("GST_DEBUG_FILE") != nullptr; }
  bool contains (const std::string &needle) const
  {
    return since_start ().find (needle) != std::string::npos;
  }
  size_t count () const
  {
    const std::string text = since_start ();
    size_t n = 0;
    for (size_t pos = text.find ("WARN"); pos != std::string::npos; pos = text.find ("WARN", pos + 4))
      ++n;
    return n;
  }

 private:
  static std::string read_all ()
  {
    const char *path = g_getenv ("GST_DEBUG_FILE");
    gchar *text = nullptr;
    gsize len = 0;
    if (!path || !g_file_get_contents (path, &text, &len, nullptr))
      return "";
    std::string out (text, len);
    g_free (text);
    return out;
  }
  std::string since_start () const
  {
    const std::string all = read_all ();
    return all.size () > start_ ? all.substr (start_) : "";
  }
  size_t start_;
};

void force_state (GstElement *e, GstState state)
{
  GST_OBJECT_LOCK (e);
  GST_STATE (e) = state;
  GST_OBJECT_UNLOCK (e);
}

struct PropCase {
  const char *name;
  GType type;                /* G_TYPE_NONE: an enum; G_TYPE_INVALID: GST_TYPE_ARRAY (not a constant) */
  const char *default_value; /* serialised */
  bool ready_only;
  const char *min, *max; /* numeric range, serialised; nullptr when not numeric */
};

const PropCase kProps[] = {
    {"model", G_TYPE_STRING, "<null>", true, nullptr, nullptr},
    {"model-instance-id", G_TYPE_STRING, "<null>", true, nullptr, nullptr},
    {"labels", G_TYPE_STRING, "<null>", true, nullptr, nullptr},
    {"dla-core", G_TYPE_INT, "0", true, "-1", "15"}, /* -1: every core */
    {"cuda-device-id", G_TYPE_INT, "-1", true, "-1", "2147483647"},
    {"task-timeout", G_TYPE_UINT, "5000", true, "1", "1000000"},
    /* DLA task slots: dla::kMaxSlots at most; 2 by default (one running, one queued). */
    {"max-in-flight", G_TYPE_INT, "2", true, "1", "64"},
    {"input-scale", G_TYPE_FLOAT, "0", true, "0", nullptr},
    {"output-scale", G_TYPE_FLOAT, "0", true, "0", nullptr},
    {"mean", G_TYPE_INVALID, "< (float)0, (float)0, (float)0 >", false, nullptr, nullptr},
    {"std", G_TYPE_INVALID, "< (float)1, (float)1, (float)1 >", false, nullptr, nullptr},
    {"channel-order", G_TYPE_NONE, "rgb", false, nullptr, nullptr},
    {"resize-mode", G_TYPE_NONE, "stretch", false, nullptr, nullptr},
    {"crop-fraction", G_TYPE_FLOAT, "0.875", false, "0.0099999997764825821", "1"},
    {"pad-value", G_TYPE_UINT, "0", false, "0", "16777215"},
    {"antialias", G_TYPE_BOOLEAN, "true", false, nullptr, nullptr},
    {"interval", G_TYPE_UINT, "0", false, "0", "2147483647"},
    {"activation", G_TYPE_NONE, "softmax", false, nullptr, nullptr},
    {"top-k", G_TYPE_UINT, "5", false, "0", "2147483647"},
    {"threshold", G_TYPE_FLOAT, "0", false, nullptr, nullptr},
    {"post-messages", G_TYPE_BOOLEAN, "false", false, nullptr, nullptr},
    {"tensor-meta", G_TYPE_BOOLEAN, "false", true, nullptr, nullptr},
    {"tensor-type", G_TYPE_NONE, "float32", true, nullptr, nullptr},
    {"dump-dir", G_TYPE_STRING, "<null>", false, nullptr, nullptr},
    {"dump-count", G_TYPE_UINT, "0", false, "0", "2147483647"},
    {"inference-region", G_TYPE_NONE, "full-frame", true, nullptr, nullptr},
    {"object-class", G_TYPE_STRING, "<null>", false, nullptr, nullptr},
    {"reclassify-interval", G_TYPE_UINT, "0", false, "0", "2147483647"},
    {"input-object-min-width", G_TYPE_UINT, "16", false, "0", "2147483647"},
    {"input-object-min-height", G_TYPE_UINT, "16", false, "0", "2147483647"},
    {"max-objects", G_TYPE_UINT, "0", false, "0", "1024"},
    {"attribute-name", G_TYPE_STRING, "<null>", false, nullptr, nullptr},
    {"smoothing", G_TYPE_FLOAT, "0", false, "0", "1"},
};

std::string min_str (GParamSpec *p)
{
  if (G_IS_PARAM_SPEC_INT (p))
    return std::to_string (G_PARAM_SPEC_INT (p)->minimum);
  if (G_IS_PARAM_SPEC_UINT (p))
    return std::to_string (G_PARAM_SPEC_UINT (p)->minimum);
  if (G_IS_PARAM_SPEC_FLOAT (p)) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, G_TYPE_FLOAT);
    g_value_set_float (&v, G_PARAM_SPEC_FLOAT (p)->minimum);
    gchar *s = gst_value_serialize (&v);
    std::string out = s;
    g_free (s);
    return out;
  }
  return "?";
}

std::string max_str (GParamSpec *p)
{
  if (G_IS_PARAM_SPEC_INT (p))
    return std::to_string (G_PARAM_SPEC_INT (p)->maximum);
  if (G_IS_PARAM_SPEC_UINT (p))
    return std::to_string (G_PARAM_SPEC_UINT (p)->maximum);
  if (G_IS_PARAM_SPEC_FLOAT (p)) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, G_TYPE_FLOAT);
    g_value_set_float (&v, G_PARAM_SPEC_FLOAT (p)->maximum);
    gchar *s = gst_value_serialize (&v);
    std::string out = s;
    g_free (s);
    return out;
  }
  return "?";
}

/* Each property: type, a blurb, the default both in its spec and on a new element, the range, and
 * whether it may change while playing. */
TEST (Properties, SpecsDefaultsRanges)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  for (const PropCase &c : kProps) {
    SCOPED_TRACE (c.name);
    GParamSpec *p = spec (e, c.name);
    ASSERT_NE (p, nullptr);
    if (c.type == G_TYPE_INVALID) {
      EXPECT_EQ (p->value_type, GST_TYPE_ARRAY);
    } else if (c.type != G_TYPE_NONE) {
      EXPECT_EQ (p->value_type, c.type);
    } else {
      EXPECT_TRUE (G_IS_PARAM_SPEC_ENUM (p));
    }
    const char *blurb = g_param_spec_get_blurb (p);
    ASSERT_NE (blurb, nullptr);
    EXPECT_GT (std::string (blurb).size (), 20u) << "a blurb that says something";
    EXPECT_TRUE ((p->flags & G_PARAM_READWRITE) == G_PARAM_READWRITE);
    EXPECT_EQ (bool (p->flags & GST_PARAM_MUTABLE_READY), c.ready_only);
    EXPECT_EQ (bool (p->flags & GST_PARAM_MUTABLE_PLAYING), !c.ready_only);
    if (p->value_type != GST_TYPE_ARRAY) {
      EXPECT_EQ (default_str (p), c.default_value) << "spec default";
    }
    EXPECT_EQ (get_str (e, c.name), c.default_value) << "value on a new element";
    if (c.min) {
      EXPECT_EQ (min_str (p), c.min);
    }
    if (c.max) {
      EXPECT_EQ (max_str (p), c.max);
    }
  }
  /* threshold and input-scale: any float (threshold also negative, for activation=none). */
  EXPECT_EQ (G_PARAM_SPEC_FLOAT (spec (e, "threshold"))->minimum, -G_MAXFLOAT);
  EXPECT_EQ (G_PARAM_SPEC_FLOAT (spec (e, "threshold"))->maximum, G_MAXFLOAT);
  EXPECT_EQ (G_PARAM_SPEC_FLOAT (spec (e, "input-scale"))->maximum, G_MAXFLOAT);
  gst_object_unref (e);
}

std::vector<std::string> enum_nicks (GstElement *e, const char *name)
{
  std::vector<std::string> out;
  GEnumClass *k = G_PARAM_SPEC_ENUM (spec (e, name))->enum_class;
  for (guint i = 0; i < k->n_values; ++i)
    out.emplace_back (k->values[i].value_nick);
  return out;
}

/* The enums' values as gst-launch spells them, each settable by nick. */
TEST (Properties, Enums)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  EXPECT_EQ (enum_nicks (e, "channel-order"), (std::vector<std::string>{"rgb", "bgr"}));
  EXPECT_EQ (enum_nicks (e, "resize-mode"),
             (std::vector<std::string>{"stretch", "letterbox", "center-crop"}));
  EXPECT_EQ (enum_nicks (e, "activation"), (std::vector<std::string>{"softmax", "sigmoid", "none"}));
  EXPECT_EQ (enum_nicks (e, "tensor-type"), (std::vector<std::string>{"float32", "float16"}));
  EXPECT_EQ (enum_nicks (e, "inference-region"), (std::vector<std::string>{"full-frame", "roi-list"}));
  for (const char *mode : {"letterbox", "center-crop", "stretch"}) {
    gst_util_set_object_arg (G_OBJECT (e), "resize-mode", mode);
    EXPECT_EQ (get_str (e, "resize-mode"), mode);
  }
  for (const char *a : {"sigmoid", "none", "softmax"}) {
    gst_util_set_object_arg (G_OBJECT (e), "activation", a);
    EXPECT_EQ (get_str (e, "activation"), a);
  }
  gst_object_unref (e);
}

/* The gst-launch syntax of every per-frame property and input-scale. */
TEST (Properties, LaunchSyntax)
{
  GError *err = nullptr;
  GstElement *e = gst_parse_launch (
      "dlainfer name=x resize-mode=center-crop crop-fraction=0.5 pad-value=0x7f3f1f antialias=false "
      "interval=4 "
      "activation=sigmoid top-k=0 threshold=-2.5 post-messages=true input-scale=0.0078740157 "
      "channel-order=bgr "
      "mean=\"<0.5,0.25,0.125>\" std=\"<2,4,8>\"",
      &err);
  ASSERT_EQ (err, nullptr) << err->message;
  EXPECT_EQ (get_str (e, "resize-mode"), "center-crop");
  EXPECT_EQ (get_str (e, "crop-fraction"), "0.5");
  guint pad = 0, interval = 0, top_k = 99;
  gboolean antialias = TRUE, post = FALSE;
  gfloat threshold = 0, scale = 0;
  g_object_get (e, "pad-value", &pad, "interval", &interval, "top-k", &top_k, "antialias", &antialias,
                "post-messages", &post, "threshold", &threshold, "input-scale", &scale, nullptr);
  EXPECT_EQ (pad, 0x7f3f1fu);
  EXPECT_EQ (interval, 4u);
  EXPECT_EQ (top_k, 0u);
  EXPECT_FALSE (antialias);
  EXPECT_TRUE (post);
  EXPECT_FLOAT_EQ (threshold, -2.5f);
  EXPECT_FLOAT_EQ (scale, 1.f / 127.f);
  EXPECT_EQ (get_str (e, "activation"), "sigmoid");
  EXPECT_EQ (get_str (e, "channel-order"), "bgr");
  EXPECT_EQ (get_str (e, "mean"), "< (float)0.5, (float)0.25, (float)0.125 >");
  EXPECT_EQ (get_str (e, "std"), "< (float)2, (float)4, (float)8 >");
  gst_object_unref (e);
}

/* Out-of-range values: GObject refuses them with its own warning (expected here) and the old value
 * stays. */
TEST (Properties, RangesRefused)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  struct {
    const char *name, *bad, *kept;
  } cases[] = {
      {"dla-core", "16", "0"},
      {"dla-core", "-2", "0"},
      {"cuda-device-id", "-2", "-1"},
      {"task-timeout", "0", "5000"},
      {"task-timeout", "1000001", "5000"},
      {"max-in-flight", "0", "2"},
      {"max-in-flight", "65", "2"},
      {"input-scale", "-0.5", "0"},
      {"crop-fraction", "0.005", "0.875"},
      {"crop-fraction", "1.5", "0.875"},
      {"pad-value", "0x1000000", "0"},
      {"interval", "2147483648", "0"},
      {"top-k", "2147483648", "5"},
      {"max-objects", "1025", "0"},
      {"reclassify-interval", "2147483648", "0"},
      {"input-object-min-width", "2147483648", "16"},
      {"smoothing", "-0.1", "0"},
      {"smoothing", "1.5", "0"},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE (std::string (c.name) + "=" + c.bad);
    dlainfer_test::ExpectLogs logs;
    gst_util_set_object_arg (G_OBJECT (e), c.name, c.bad);
    EXPECT_EQ (logs.count (), 1) << "GObject's out-of-range warning";
    EXPECT_TRUE (logs.contains (std::string ("property '") + c.name + "'"))
        << "the warning names the property";
    EXPECT_EQ (get_str (e, c.name), c.kept);
  }
  gst_object_unref (e);
}

/* A GstValueArray of `values` as `type` (G_TYPE_FLOAT as gst-launch, G_TYPE_DOUBLE as Python's
 * Gst.ValueArray, G_TYPE_INT as "<1,1,1>"). */
void set_array (GstElement *e, const char *name, const std::vector<double> &values, GType type = G_TYPE_FLOAT)
{
  GValue v = G_VALUE_INIT;
  g_value_init (&v, GST_TYPE_ARRAY);
  for (double x : values) {
    GValue item = G_VALUE_INIT;
    g_value_init (&item, type);
    if (type == G_TYPE_DOUBLE)
      g_value_set_double (&item, x);
    else if (type == G_TYPE_INT)
      g_value_set_int (&item, int (x));
    else
      g_value_set_float (&item, float (x));
    gst_value_array_append_and_take_value (&v, &item);
  }
  g_object_set_property (G_OBJECT (e), name, &v);
  g_value_unset (&v);
}

/* mean/std: a value of the wrong shape (not 3 values, std <= 0) is kept as set, with a GST_WARNING
 * naming the property; start refuses it (element_test.cpp, ElementFailure.BadMeanStdAtStart).
 * Nothing is dropped quietly, and GObject never warns: the array has no element spec. */
TEST (Properties, MeanStdShapeRefused)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  WarningLog log;
  ASSERT_TRUE (log.available ()) << "GST_DEBUG_FILE is not set by the test's environment";
  dlainfer_test::ExpectLogs logs;
  set_array (e, "mean", {0.5, 0.5});
  EXPECT_EQ (get_str (e, "mean"), "< (float)0.5, (float)0.5 >") << "kept as set";
  EXPECT_TRUE (log.contains ("Property 'mean' is <0.5, 0.5> (2 values): it takes 3 numbers"));
  set_array (e, "mean", {1, 2, 3, 4});
  EXPECT_EQ (get_str (e, "mean"), "< (float)1, (float)2, (float)3, (float)4 >");
  EXPECT_TRUE (log.contains ("Property 'mean' is <1, 2, 3, 4> (4 values)"));
  set_array (e, "mean", {0.1, 0.2, 0.3});
  set_array (e, "std", {0, 1, 1});
  EXPECT_EQ (get_str (e, "std"), "< (float)0, (float)1, (float)1 >") << "kept as set";
  EXPECT_TRUE (log.contains ("Property 'std' is <0, 1, 1> (3 values): it takes 3 numbers > 0"));
  set_array (e, "std", {0.5, -1.0, 0.5});
  EXPECT_EQ (get_str (e, "std"), "< (float)0.5, (float)-1, (float)0.5 >");
  EXPECT_TRUE (log.contains ("Property 'std' is <0.5, -1, 0.5>"));
  set_array (e, "std", {});
  EXPECT_EQ (get_str (e, "std"), "<  >");
  EXPECT_EQ (logs.count (), 0) << "no GLib warning: the element checks the values itself";
  set_array (e, "std", {0.25, 0.5, 2});
  set_array (e, "mean", {-1.5, 0, 1e6});
  EXPECT_EQ (get_str (e, "mean"), "< (float)-1.5, (float)0, (float)1000000 >") << "any finite mean";
  gst_object_unref (e);
}

std::string get_string (GstElement *e, const char *name)
{
  gchar *v = nullptr;
  g_object_get (e, name, &v, nullptr);
  const std::string out = v ? v : "<null>";
  g_free (v);
  return out;
}

/* The object properties in gst-launch syntax; a wrong object-class or attribute-name is kept as set,
 * warned about now and refused at start (tests/element/element_test.cpp). */
TEST (Properties, ObjectProperties)
{
  GError *err = nullptr;
  GstElement *e = gst_parse_launch (
      "dlainfer inference-region=roi-list object-class=car,truck reclassify-interval=10 "
      "input-object-min-width=32 input-object-min-height=24 max-objects=16 attribute-name=vehicle-type "
      "smoothing=0.75",
      &err);
  ASSERT_EQ (err, nullptr) << err->message;
  EXPECT_EQ (get_str (e, "inference-region"), "roi-list");
  EXPECT_EQ (get_string (e, "object-class"), "car,truck");
  EXPECT_EQ (get_str (e, "reclassify-interval"), "10");
  EXPECT_EQ (get_str (e, "input-object-min-width"), "32");
  EXPECT_EQ (get_str (e, "input-object-min-height"), "24");
  EXPECT_EQ (get_str (e, "max-objects"), "16");
  EXPECT_EQ (get_str (e, "attribute-name"), "vehicle-type");
  EXPECT_EQ (get_str (e, "smoothing"), "0.75");
  WarningLog log;
  ASSERT_TRUE (log.available ()) << "GST_DEBUG_FILE is not set by the test's environment";
  g_object_set (e, "object-class", "car,,truck", nullptr);
  EXPECT_EQ (get_string (e, "object-class"), "car,,truck") << "kept as set";
  EXPECT_TRUE (log.contains ("Property 'object-class' is \"car,,truck\": it has an empty item"));
  g_object_set (e, "object-class", "car", "attribute-name", "9lives", nullptr);
  EXPECT_TRUE (log.contains ("Property 'attribute-name' is \"9lives\": it names a GstStructure"));
  g_object_set (e, "attribute-name", nullptr, nullptr);
  EXPECT_EQ (get_string (e, "attribute-name"), "<null>") << "unset: the element's name";
  g_object_set (e, "smoothing", 1.0f, nullptr);
  EXPECT_EQ (get_str (e, "smoothing"), "1") << "kept as set, refused at start";
  EXPECT_TRUE (log.contains ("Property 'smoothing' is 1: it takes 0 (off) up to below 1"));
  gst_object_unref (e);
}

/* Python's Gst.ValueArray([0.229, 0.224, 0.225]) holds doubles, "<1,1,1>" from some parsers ints:
 * both are taken (as floats), without a GLib warning. */
TEST (Properties, MeanStdFromDoublesAndInts)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  dlainfer_test::ExpectLogs logs;
  set_array (e, "std", {0.229, 0.224, 0.225}, G_TYPE_DOUBLE);
  EXPECT_EQ (get_str (e, "std"),
             "< (float)0.22900000214576721, (float)0.22400000691413879, (float)0.22499999403953552 >");
  set_array (e, "mean", {0.485, 0.456, 0.406}, G_TYPE_DOUBLE);
  EXPECT_EQ (get_str (e, "mean"),
             "< (float)0.48500001430511475, (float)0.45600000023841858, (float)0.40599998831748962 >");
  set_array (e, "std", {2, 4, 8}, G_TYPE_INT);
  EXPECT_EQ (get_str (e, "std"), "< (float)2, (float)4, (float)8 >");
  set_array (e, "mean", {1, 0, 1}, G_TYPE_INT);
  EXPECT_EQ (get_str (e, "mean"), "< (float)1, (float)0, (float)1 >");
  EXPECT_EQ (logs.count (), 0) << "no GLib warning";
  gst_object_unref (e);
}

struct Change {
  const char *name, *value;
};
const Change kModelChanges[] = {
    {"model", "/b.bin"},        {"labels", "/l.txt"},         {"dla-core", "1"},      {"cuda-device-id", "3"},
    {"task-timeout", "7"},      {"input-scale", "0.5"},       {"max-in-flight", "5"}, {"tensor-meta", "true"},
    {"tensor-type", "float16"}, {"model-instance-id", "cams"}};
const Change kFrameChanges[] = {{"mean", "<0.5,0.5,0.5>"}, {"std", "<0.25,0.25,0.25>"},
                                {"channel-order", "bgr"},  {"resize-mode", "letterbox"},
                                {"crop-fraction", "0.5"},  {"pad-value", "8421504"},
                                {"antialias", "false"},    {"interval", "3"},
                                {"activation", "none"},    {"top-k", "2"},
                                {"threshold", "0.5"},      {"post-messages", "true"},
                                {"dump-dir", "/tmp/d"},    {"dump-count", "2"}};

/* In PAUSED and PLAYING the model-changing properties keep their value, and the refusal is a
 * GST_WARNING naming the property (a g_warning would fail this test through the main's handler);
 * every per-frame property is taken. */
TEST (Properties, ModelPropertiesRefusedAboveReady)
{
  for (GstState state : {GST_STATE_PAUSED, GST_STATE_PLAYING}) {
    SCOPED_TRACE (gst_element_state_get_name (state));
    GstElement *e = make_infer ();
    ASSERT_NE (e, nullptr);
    g_object_set (e, "model", "/a.bin", nullptr);
    std::vector<std::string> before;
    for (const Change &c : kModelChanges)
      before.push_back (get_str (e, c.name));
    force_state (e, state);
    WarningLog log;
    for (size_t i = 0; i < G_N_ELEMENTS (kModelChanges); ++i) {
      gst_util_set_object_arg (G_OBJECT (e), kModelChanges[i].name, kModelChanges[i].value);
      EXPECT_EQ (get_str (e, kModelChanges[i].name), before[i]) << kModelChanges[i].name;
      EXPECT_TRUE (log.contains (std::string ("property '") + kModelChanges[i].name +
                                 "' can only change in the NULL or READY state"))
          << kModelChanges[i].name;
    }
    const size_t warnings = log.count ();
    for (const Change &c : kFrameChanges) {
      const std::string old = get_str (e, c.name);
      gst_util_set_object_arg (G_OBJECT (e), c.name, c.value);
      EXPECT_NE (get_str (e, c.name), old)
          << c.name << " must change while " << gst_element_state_get_name (state);
    }
    EXPECT_EQ (log.count (), warnings) << "per-frame properties change without a warning";
    force_state (e, GST_STATE_NULL);
    gst_object_unref (e);
  }
}

/* In NULL and READY every model-changing property is taken. */
TEST (Properties, ModelPropertiesTakenInNullAndReady)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  for (GstState state : {GST_STATE_NULL, GST_STATE_READY}) {
    ASSERT_NE (gst_element_set_state (e, state), GST_STATE_CHANGE_FAILURE);
    for (const Change &c : kModelChanges) {
      gst_util_set_object_arg (G_OBJECT (e), c.name, c.value);
      EXPECT_EQ (get_str (e, c.name), c.value) << c.name << " in " << gst_element_state_get_name (state);
    }
    g_object_set (e, "model", "/other.bin", "dla-core", 0, nullptr);
  }
  ASSERT_EQ (gst_element_set_state (e, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (e);
}

/* stats and model-info are read-only structures: stats all zero before any frame, model-info NULL
 * until a model is open. */
TEST (Properties, ReadOnlyStatsAndModelInfo)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  for (const char *name : {"stats", "model-info"}) {
    GParamSpec *p = spec (e, name);
    ASSERT_NE (p, nullptr) << name;
    EXPECT_EQ (p->value_type, GST_TYPE_STRUCTURE) << name;
    EXPECT_TRUE (p->flags & G_PARAM_READABLE) << name;
    EXPECT_FALSE (p->flags & G_PARAM_WRITABLE) << name;
    EXPECT_GT (std::string (g_param_spec_get_blurb (p)).size (), 20u) << name;
  }
  GstStructure *stats = nullptr, *info = nullptr;
  g_object_get (e, "stats", &stats, "model-info", &info, nullptr);
  ASSERT_NE (stats, nullptr);
  EXPECT_TRUE (gst_structure_has_name (stats, "dlainfer-stats"));
  for (const char *f : {"frames", "inferences", "skipped", "errors", "tensor-copies"}) {
    guint64 v = 1;
    EXPECT_TRUE (gst_structure_get_uint64 (stats, f, &v)) << f;
    EXPECT_EQ (v, 0u) << f;
  }
  for (const char *f : {"preprocess-mean-ms", "preprocess-max-ms", "dla-mean-ms", "dla-max-ms",
                        "postprocess-mean-ms", "postprocess-max-ms", "total-mean-ms", "total-max-ms"}) {
    double v = 1;
    EXPECT_TRUE (gst_structure_get_double (stats, f, &v)) << f;
    EXPECT_EQ (v, 0.0) << f;
  }
  gst_structure_free (stats);
  EXPECT_EQ (info, nullptr);
  /* Two reads are two copies: a caller may free its own. */
  GstStructure *a = nullptr, *b = nullptr;
  g_object_get (e, "stats", &a, nullptr);
  g_object_get (e, "stats", &b, nullptr);
  EXPECT_NE (a, b);
  gst_structure_free (a);
  gst_structure_free (b);
  gst_object_unref (e);
}

/* `infer` (a dlainfer's properties) after a frame source, started to PAUSED: the first error's
 * message ("<none>" when none came within 10 s). */
GstElement *start_failing (const std::string &infer, std::string *error_message)
{
  GError *err = nullptr;
  GstElement *pipeline = gst_parse_launch (
      ("videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=64,height=48 ! dlainfer " + infer +
       " ! fakesink")
          .c_str (),
      &err);
  EXPECT_EQ (err, nullptr);
  if (!pipeline)
    return nullptr;
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_ERROR);
  *error_message = "<none>";
  if (msg) {
    GError *error = nullptr;
    gst_message_parse_error (msg, &error, nullptr);
    *error_message = error->message;
    g_error_free (error);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return pipeline;
}

/* A start that fails (no model) leaves model-info NULL. */
TEST (Properties, ModelInfoNullAfterFailedStart)
{
  std::string error;
  GstElement *pipeline = start_failing ("name=infer", &error);
  ASSERT_NE (pipeline, nullptr);
  ASSERT_NE (error, "<none>");
  GstElement *infer = gst_bin_get_by_name (GST_BIN (pipeline), "infer");
  GstStructure *info = nullptr;
  g_object_get (infer, "model-info", &info, nullptr);
  EXPECT_EQ (info, nullptr);
  gst_object_unref (infer);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

/* One element of a model-instance-id must set `model`, any one: an element without it that finds
 * no instance at start starts (the element with `model` may start after it: GStreamer starts a
 * parsed pipeline's branches last-first) and opens at its first frame; when no element of the id
 * has `model` by then, that fails naming the id and the property. Before any CUDA: on any
 * machine. */
TEST (Properties, ASharerWithoutModelFailsAtItsFirstFrameWhenNoneHasIt)
{
  std::string error;
  GstElement *pipeline = start_failing ("name=first model-instance-id=cams", &error);
  ASSERT_NE (pipeline, nullptr);
  EXPECT_EQ (error,
             "No model for model-instance-id 'cams': first left 'model' unset and no element of that id "
             "that sets 'model' had started by its first frame: set the 'model' property on one of them");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  /* A wrong property of its own is still named at start, before any frame. */
  pipeline = start_failing ("name=first model-instance-id=cams mean=\"<1,2>\"", &error);
  ASSERT_NE (pipeline, nullptr);
  EXPECT_NE (error.find ("mean"), std::string::npos) << error;
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

/* The element documents itself: klass, description, and its enum types are plugin API. */
TEST (Properties, EnumTypesRegistered)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  for (const char *t : {"GstDlaInferChannelOrder", "GstDlaInferResizeMode", "GstDlaInferActivation",
                        "GstDlaInferTensorType", "GstDlaInferInferenceRegion"}) {
    const GType type = g_type_from_name (t);
    ASSERT_NE (type, G_TYPE_INVALID) << t;
    EXPECT_TRUE (G_TYPE_IS_ENUM (type)) << t;
  }
  gst_object_unref (e);
}

}  // namespace
