/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The dlainfer element on a machine without a DLA (CPU suite): registration, pad templates,
 * properties, caps acceptance and refusal, and every start failure that needs no GPU, each as an
 * error on the bus with a specific domain and a message that says what to do. */
#include <glib/gstdio.h>
#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bus_error.h"
#include "no_device.h"
#include "test_support.h"

namespace {

GstElement *make_infer ()
{
  GstElement *e = gst_element_factory_make ("dlainfer", nullptr);
  EXPECT_NE (e, nullptr) << "dlainfer is not registered (GST_PLUGIN_PATH_1_0 = "
                         << (g_getenv ("GST_PLUGIN_PATH_1_0") ? g_getenv ("GST_PLUGIN_PATH_1_0") : "unset")
                         << ")";
  return e;
}

using element_test::BusError;

/* Runs `desc` towards PAUSED and returns the first error on the bus (the pipeline ends in NULL). */
BusError run_until_error (const std::string &desc)
{
  BusError out;
  GError *perr = nullptr;
  GstElement *pipeline = gst_parse_launch (desc.c_str (), &perr);
  EXPECT_EQ (perr, nullptr) << desc << ": " << (perr ? perr->message : "");
  g_clear_error (&perr);
  if (!pipeline)
    return out;
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  out = element_test::wait_bus_error (pipeline, 10 * GST_SECOND, GST_MESSAGE_ASYNC_DONE);
  EXPECT_EQ (gst_element_set_state (pipeline, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipeline);
  return out;
}

std::string pipeline_with (const std::string &props)
{
  return "videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=64,height=48 ! dlainfer name=infer " +
         props + " ! fakesink";
}

/* A temporary directory of one test, removed with what it holds when the test ends. */
class TempDir {
 public:
  TempDir ()
  {
    GError *err = nullptr;
    gchar *dir = g_dir_make_tmp ("dlainfer-test-XXXXXX", &err);
    EXPECT_NE (dir, nullptr) << (err ? err->message : "");
    g_clear_error (&err);
    path_ = dir ? dir : "/nonexistent-tmp";
    g_free (dir);
  }
  ~TempDir ()
  {
    for (const std::string &f : files_)
      g_remove (f.c_str ());
    g_rmdir (path_.c_str ());
  }
  TempDir (const TempDir &) = delete;
  TempDir &operator= (const TempDir &) = delete;

  std::string file (const std::string &name, const std::string &content)
  {
    const std::string path = path_ + "/" + name;
    std::ofstream (path, std::ios::binary) << content;
    files_.push_back (path);
    return path;
  }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

#define EXPECT_ERROR(e, dom, cod, needle)                                                   \
  do {                                                                                      \
    EXPECT_TRUE ((e).posted) << "no error on the bus";                                      \
    EXPECT_EQ ((e).domain, dom) << (e).message;                                             \
    EXPECT_EQ ((e).code, int (cod)) << (e).message;                                         \
    EXPECT_EQ ((e).source, "infer");                                                        \
    EXPECT_NE ((e).message.find (needle), std::string::npos) << "message: " << (e).message; \
  } while (0)

/* The plugin loads and registers dlainfer on a machine without cuDLA, DLA or GPU. */
TEST (Element, RegistersAnywhere)
{
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (), "dlainfer");
  ASSERT_NE (plugin, nullptr);
  gst_object_unref (plugin);
  GstElementFactory *f = gst_element_factory_find ("dlainfer");
  ASSERT_NE (f, nullptr);
  EXPECT_STREQ (gst_element_factory_get_metadata (f, GST_ELEMENT_METADATA_KLASS), "Filter/Analyzer/Video");
  gst_object_unref (f);
}

/* The GStreamer this test runs on is the one it was compiled against, plugins included: a build
 * against the 1.24.2 prefix that loaded the Debian 13 root's 1.26 libraries or plugins (a leaking
 * LD_LIBRARY_PATH or plugin path) would test the wrong version without failing anything else. */
TEST (Element, RunsOnTheGStreamerItWasBuiltAgainst)
{
  guint major, minor, micro, nano;
  gst_version (&major, &minor, &micro, &nano);
  EXPECT_EQ (major, guint (GST_VERSION_MAJOR));
  EXPECT_EQ (minor, guint (GST_VERSION_MINOR));
  EXPECT_EQ (micro, guint (GST_VERSION_MICRO))
      << "libgstreamer " << gst_version_string () << ", headers " << GST_VERSION_MAJOR << "."
      << GST_VERSION_MINOR << "." << GST_VERSION_MICRO;
  /* -base's videotestsrc: its release's major.minor (packages may differ in the micro version). */
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (), "videotestsrc");
  ASSERT_NE (plugin, nullptr) << "videotestsrc is not installed";
  const std::string want =
      std::to_string (GST_VERSION_MAJOR) + "." + std::to_string (GST_VERSION_MINOR) + ".";
  EXPECT_EQ (std::string (gst_plugin_get_version (plugin)).rfind (want, 0), 0u)
      << "videotestsrc " << gst_plugin_get_version (plugin) << " from " << gst_plugin_get_filename (plugin)
      << ", built against GStreamer " << GST_VERSION_MAJOR << "." << GST_VERSION_MINOR;
  gst_object_unref (plugin);
}

/* Both pads take the six formats in CUDA and in system memory and NV12/RGBA as Jetson NVMM (first:
 * preferred), progressive only: the templates say interlace-mode=progressive, so an interlaced
 * source fails with GStreamer's caps message. */
TEST (Element, PadTemplates)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  for (const char *name : {"sink", "src"}) {
    GstPadTemplate *t = gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (e), name);
    ASSERT_NE (t, nullptr) << name;
    GstCaps *caps = gst_pad_template_get_caps (t);
    EXPECT_EQ (gst_caps_get_size (caps), 3u);
    EXPECT_TRUE (gst_caps_features_contains (gst_caps_get_features (caps, 0), "memory:NVMM")) << name;
    for (guint i = 0; i < gst_caps_get_size (caps); ++i)
      EXPECT_STREQ (gst_structure_get_string (gst_caps_get_structure (caps, i), "interlace-mode"),
                    "progressive")
          << name << " structure " << i;
    for (const char *fmt : {"NV12", "I420", "RGBA", "BGRA", "RGBx", "BGRx"}) {
      for (const char *feature : {"", "(memory:CUDAMemory)"}) {
        const std::string s = std::string ("video/x-raw") + feature + ",format=" + fmt +
                              ",width=8,height=8,framerate=30/1,interlace-mode=progressive";
        GstCaps *one = gst_caps_from_string (s.c_str ());
        EXPECT_TRUE (gst_caps_is_subset (one, caps)) << name << ": " << s;
        gst_caps_unref (one);
      }
    }
    for (const char *fmt : {"NV12", "RGBA"}) {
      const std::string s = std::string ("video/x-raw(memory:NVMM),format=") + fmt +
                            ",width=1920,height=1080,framerate=30/1,interlace-mode=progressive";
      GstCaps *one = gst_caps_from_string (s.c_str ());
      EXPECT_TRUE (gst_caps_is_subset (one, caps)) << name << ": " << s;
      gst_caps_unref (one);
    }
    gst_caps_unref (caps);
  }
  gst_object_unref (e);
}

/* Upstream offering NVMM and other memory: the element's caps query puts NVMM first. */
TEST (Element, PrefersNvmmWhenOffered)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GstCaps *offer = gst_caps_from_string (
      "video/x-raw,format=NV12,width=640,height=480; "
      "video/x-raw(memory:CUDAMemory),format=NV12,width=640,height=480; "
      "video/x-raw(memory:NVMM),format=NV12,width=640,height=480");
  GstCaps *caps = gst_pad_query_caps (sink, offer);
  ASSERT_GT (gst_caps_get_size (caps), 0u);
  EXPECT_TRUE (gst_caps_features_contains (gst_caps_get_features (caps, 0), "memory:NVMM"))
      << gst_caps_to_string (caps);
  GstCaps *fixed = gst_caps_fixate (gst_caps_ref (caps));
  EXPECT_TRUE (gst_caps_features_contains (gst_caps_get_features (fixed, 0), "memory:NVMM"));
  gst_caps_unref (fixed);
  gst_caps_unref (caps);
  gst_caps_unref (offer);
  gst_object_unref (sink);
  gst_object_unref (e);
}

/* Caps acceptance on the sink pad: every supported format and memory, interlaced and other
 * formats refused. */
TEST (Element, AcceptsAndRefusesCaps)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  const struct {
    const char *caps;
    bool ok;
  } cases[] = {
      {"video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1", true},
      {"video/x-raw(memory:CUDAMemory),format=NV12,width=1921,height=1079,framerate=30/1", true},
      {"video/x-raw,format=I420,width=3840,height=2160,framerate=60/1", true},
      {"video/x-raw(memory:CUDAMemory),format=BGRx,width=3,height=3,framerate=0/1", true},
      {"video/x-raw,format=RGBA,width=7,height=5,framerate=1/1", true},
      {"video/x-raw,format=NV12,width=640,height=480,framerate=30/1,interlace-mode=interleaved", false},
      {"video/x-raw(memory:CUDAMemory),format=NV12,width=640,height=480,framerate=30/1,interlace-mode=mixed",
       false},
      {"video/x-raw,format=GRAY8,width=640,height=480,framerate=30/1", false},
      {"video/x-raw(memory:NVMM),format=NV12,width=1920,height=1080,framerate=30/1", true},
      {"video/x-raw(memory:NVMM),format=RGBA,width=1280,height=720,framerate=30/1", true},
      /* NVMM in a format the import does not read: the template refuses it. */
      {"video/x-raw(memory:NVMM),format=I420,width=1920,height=1080,framerate=30/1", false},
      {"video/x-raw(memory:NVMM),format=BGRx,width=1920,height=1080,framerate=30/1", false},
      {"video/x-raw(memory:NVMM),format=NV12,width=640,height=480,framerate=30/1,interlace-mode=interleaved",
       false},
      {"video/x-raw(memory:GLMemory),format=NV12,width=640,height=480,framerate=30/1", false},
      {"audio/x-raw,format=S16LE,rate=48000,channels=2,layout=interleaved", false},
  };
  GstCaps *templ = gst_pad_get_pad_template_caps (sink);
  for (const auto &c : cases) {
    GstCaps *caps = gst_caps_from_string (c.caps);
    ASSERT_NE (caps, nullptr) << c.caps;
    EXPECT_EQ (bool (gst_pad_query_accept_caps (sink, caps)), c.ok) << c.caps;
    /* Nothing is refused beyond the templates (a refusal there has no visible reason). */
    EXPECT_EQ (bool (gst_caps_can_intersect (caps, templ)), c.ok) << "by the template: " << c.caps;
    gst_caps_unref (caps);
  }
  gst_caps_unref (templ);
  gst_object_unref (sink);
  gst_object_unref (e);
}

TEST (Element, PropertyDefaults)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  gchar *model = nullptr, *labels = nullptr;
  gint core = -5, device = -5, order = -5;
  guint timeout = 0;
  gboolean qos = TRUE;
  g_object_get (e, "model", &model, "labels", &labels, "dla-core", &core, "cuda-device-id", &device,
                "channel-order", &order, "task-timeout", &timeout, "qos", &qos, nullptr);
  EXPECT_EQ (model, nullptr);
  EXPECT_EQ (labels, nullptr);
  EXPECT_EQ (core, 0);
  EXPECT_EQ (device, -1);
  EXPECT_EQ (order, 0);
  EXPECT_EQ (timeout, 5000u);
  EXPECT_FALSE (qos) << "QoS must be off: every frame is inferred";
  GValue mean = G_VALUE_INIT, std_v = G_VALUE_INIT;
  g_value_init (&mean, GST_TYPE_ARRAY);
  g_value_init (&std_v, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "mean", &mean);
  g_object_get_property (G_OBJECT (e), "std", &std_v);
  gchar *ms = gst_value_serialize (&mean), *ss = gst_value_serialize (&std_v);
  EXPECT_STREQ (ms, "< (float)0, (float)0, (float)0 >");
  EXPECT_STREQ (ss, "< (float)1, (float)1, (float)1 >");
  g_free (ms);
  g_free (ss);
  g_value_unset (&mean);
  g_value_unset (&std_v);
  g_free (model);
  g_free (labels);
  EXPECT_FALSE (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (e)));
  EXPECT_TRUE (gst_base_transform_is_in_place (GST_BASE_TRANSFORM (e)));
  gst_object_unref (e);
}

std::string get_array (GstElement *e, const char *name)
{
  GValue v = G_VALUE_INIT;
  g_value_init (&v, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), name, &v);
  gchar *s = gst_value_serialize (&v);
  std::string out = s;
  g_free (s);
  g_value_unset (&v);
  return out;
}

void set_array (GstElement *e, const char *name, const char *text)
{
  GValue v = G_VALUE_INIT;
  g_value_init (&v, GST_TYPE_ARRAY);
  /* As gst-launch does (the spec has no element spec: the numbers come as written, ints or doubles). */
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e), name);
  ASSERT_TRUE (gst_value_deserialize_with_pspec (&v, text, pspec)) << text;
  g_object_set_property (G_OBJECT (e), name, &v);
  g_value_unset (&v);
}

/* mean/std take exactly 3 values (std > 0); anything else is kept as set (start refuses it:
 * ElementFailure.BadMeanStdAtStart). The gst-launch syntax works. */
TEST (Element, MeanAndStd)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  set_array (e, "mean", "<0.485, 0.456, 0.406>");
  EXPECT_EQ (get_array (e, "mean"),
             "< (float)0.48500001430511475, (float)0.45600000023841858, (float)0.40599998831748962 >");
  set_array (e, "mean", "<0.5, 0.5>");
  EXPECT_EQ (get_array (e, "mean"), "< (float)0.5, (float)0.5 >") << "kept as set; start refuses it";
  set_array (e, "std", "<0.25, 0.5, 2>");
  EXPECT_EQ (get_array (e, "std"), "< (float)0.25, (float)0.5, (float)2 >");
  set_array (e, "std", "<1, 1, 1>");
  EXPECT_EQ (get_array (e, "std"), "< (float)1, (float)1, (float)1 >") << "integers taken";
  gst_util_set_object_arg (G_OBJECT (e), "channel-order", "bgr");
  gint order = 0;
  g_object_get (e, "channel-order", &order, nullptr);
  EXPECT_EQ (order, 1);
  gst_object_unref (e);

  GError *err = nullptr;
  GstElement *p = gst_parse_launch (
      "dlainfer name=x mean=\"<0.1,0.2,0.3>\" std=\"<0.5,0.5,0.5>\" channel-order=bgr", &err);
  ASSERT_EQ (err, nullptr) << err->message;
  EXPECT_EQ (get_array (p, "std"), "< (float)0.5, (float)0.5, (float)0.5 >");
  gst_object_unref (p);
}

std::string get_string (GstElement *e, const char *name)
{
  gchar *v = nullptr;
  g_object_get (e, name, &v, nullptr);
  std::string out = v ? v : "<null>";
  g_free (v);
  return out;
}

/* mean-string/std-string: mean and std as text, for PyGObject without gst-python (which converts
 * no GstValueArray). They set the same values, read back the text set (else the numbers in use),
 * and a wrong text is a g_warning naming the property, the text and the form it takes. */
TEST (Element, MeanAndStdAsText)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  EXPECT_EQ (get_string (e, "mean-string"), "<0, 0, 0>");
  EXPECT_EQ (get_string (e, "std-string"), "<1, 1, 1>");
  g_object_set (e, "mean-string", "0.485, 0.456, 0.406", "std-string", "<0.25,0.5,2>", nullptr);
  EXPECT_EQ (get_array (e, "mean"),
             "< (float)0.48500001430511475, (float)0.45600000023841858, (float)0.40599998831748962 >");
  EXPECT_EQ (get_array (e, "std"), "< (float)0.25, (float)0.5, (float)2 >");
  EXPECT_EQ (get_string (e, "mean-string"), "0.485, 0.456, 0.406") << "the text as set";
  set_array (e, "mean", "<0.1, 0.2, 0.3>");
  EXPECT_EQ (get_string (e, "mean-string"), "<0.1, 0.2, 0.3>") << "the array as text";
  g_object_set (e, "mean-string", nullptr, nullptr);
  EXPECT_EQ (get_string (e, "mean-string"), "<0, 0, 0>") << "NULL: the default again";
  {
    dlainfer_test::ExpectLogs logs;
    g_object_set (e, "mean-string", "0.1,0.2", nullptr);
    EXPECT_TRUE (logs.contains ("Property 'mean-string' is \"0.1,0.2\" (2 values): it takes 3 numbers"));
    EXPECT_TRUE (logs.contains ("e.g. mean-string=\"<0.485, 0.456, 0.406>\""));
    g_object_set (e, "std-string", "1,x,1", nullptr);
    EXPECT_TRUE (logs.contains ("Property 'std-string' is \"1,x,1\" (3 values): it takes 3 numbers > 0"));
    EXPECT_EQ (logs.count (), 2);
  }
  EXPECT_EQ (get_string (e, "mean-string"), "0.1,0.2") << "kept as set; start refuses it";
  gst_object_unref (e);
}

/* An array item that is not a number (mean=<abc,1,2>) is quoted as given, at set time (a
 * g_warning: a wrong type, as GObject's) and at start, never as NaN. */
TEST (ElementFailure, MeanNotANumberQuotedAsGiven)
{
  dlainfer_test::ExpectLogs logs;
  BusError e = run_until_error (pipeline_with ("model=/nonexistent.bin mean=\"<abc,1,2>\""));
  EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
                "Property 'mean' is <abc, 1, 2> (3 values): it takes 3 numbers");
  EXPECT_EQ (e.message.find ("nan"), std::string::npos) << e.message;
  EXPECT_TRUE (logs.contains ("Property 'mean' is <abc, 1, 2>"));
  e = run_until_error (pipeline_with ("model=/nonexistent.bin std-string=\"0.2, abc, 0.2\""));
  EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
                "Property 'std-string' is \"0.2, abc, 0.2\" (3 values): it takes 3 numbers > 0");
  EXPECT_EQ (logs.count (), 2) << "one g_warning per wrong value, when set";
}

/* Model-changing properties are refused (kept) above READY; per-frame ones are taken. The state
 * is forced here because reaching PLAYING needs a DLA. */
TEST (Element, ModelPropertiesOnlyInNullOrReady)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  g_object_set (e, "model", "/a.bin", "dla-core", 1, nullptr);
  GST_OBJECT_LOCK (e);
  GST_STATE (e) = GST_STATE_PLAYING;
  GST_OBJECT_UNLOCK (e);
  g_object_set (e, "model", "/b.bin", "dla-core", 0, "labels", "/l.txt", "task-timeout", 7u, "cuda-device-id",
                3, nullptr);
  gst_util_set_object_arg (G_OBJECT (e), "channel-order", "bgr");
  gchar *model = nullptr, *labels = nullptr;
  gint core = -1, device = 0, order = 0;
  guint timeout = 0;
  g_object_get (e, "model", &model, "dla-core", &core, "labels", &labels, "task-timeout", &timeout,
                "cuda-device-id", &device, "channel-order", &order, nullptr);
  EXPECT_STREQ (model, "/a.bin");
  EXPECT_EQ (core, 1);
  EXPECT_EQ (labels, nullptr);
  EXPECT_EQ (timeout, 5000u);
  EXPECT_EQ (device, -1);
  EXPECT_EQ (order, 1) << "channel-order changes at any state";
  g_free (model);
  g_free (labels);
  GST_OBJECT_LOCK (e);
  GST_STATE (e) = GST_STATE_NULL;
  GST_OBJECT_UNLOCK (e);
  gst_object_unref (e);
}

/* NULL -> READY -> NULL works anywhere (the context is optional until start) and posts nothing. */
TEST (Element, ReadyWithoutGpu)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ (gst_element_set_state (e, GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
    EXPECT_EQ (gst_element_set_state (e, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  }
  gst_object_unref (e);
}

TEST (ElementFailure, NoModelProperty)
{
  const BusError e = run_until_error (pipeline_with (""));
  EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, "No model set");
}

TEST (ElementFailure, ModelFileMissing)
{
  const BusError e = run_until_error (pipeline_with ("model=/nonexistent/model.bin"));
  EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, "/nonexistent/model.bin");
}

/* A directory is not a readable file (tests run as root, so permission bits cannot make one). */
TEST (ElementFailure, ModelUnreadable)
{
  const BusError e = run_until_error (pipeline_with ("model=/"));
  EXPECT_TRUE (e.posted);
  EXPECT_EQ (e.domain, GST_RESOURCE_ERROR) << e.message;
  EXPECT_NE (e.message.find ("'/'"), std::string::npos) << e.message;
}

TEST (ElementFailure, EmptyModelFile)
{
  TempDir tmp;
  const BusError e = run_until_error (pipeline_with ("model=" + tmp.file ("empty.bin", "")));
  EXPECT_TRUE (e.posted);
  EXPECT_EQ (e.domain, GST_RESOURCE_ERROR) << e.message;
  EXPECT_NE (e.message.find ("empty"), std::string::npos) << e.message;
}

/* Not a loadable: the message says what a loadable is and how trtexec makes one. */
TEST (ElementFailure, NotALoadable)
{
  TempDir tmp;
  const std::string path = tmp.file ("not-loadable.engine", "this is a TensorRT plan, not a loadable");
  const BusError e = run_until_error (pipeline_with ("model=" + path));
  EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, "is not a DLA loadable");
  EXPECT_NE (e.message.find ("trtexec"), std::string::npos) << e.message;
  EXPECT_NE (e.message.find ("--buildDLAStandalone"), std::string::npos) << e.message;
}

/* The cuDLA library named by DLAINFER_CUDLA_LIBRARY is missing: LIBRARY/INIT naming the file. */
TEST (ElementFailure, CudlaLibraryMissing)
{
  TempDir tmp;
  const std::string model = tmp.file ("swdla-magic.bin", std::string ("SWDLAMDL") + std::string (56, '\0'));
  g_setenv ("DLAINFER_CUDLA_LIBRARY", "/nonexistent/libcudla.so.1", TRUE);
  const BusError e = run_until_error (pipeline_with ("model=" + model));
  g_unsetenv ("DLAINFER_CUDLA_LIBRARY");
  EXPECT_TRUE (e.posted);
  EXPECT_NE (e.message.find ("/nonexistent/libcudla.so.1"), std::string::npos) << e.message;
  EXPECT_NE (e.message.find ("DLAINFER_CUDLA_LIBRARY"), std::string::npos) << e.message;
  EXPECT_TRUE (e.domain == GST_LIBRARY_ERROR || e.domain == GST_RESOURCE_ERROR) << e.message;
}

TEST (ElementFailure, LabelsFileMissing)
{
  const BusError e =
      run_until_error (pipeline_with ("model=/nonexistent.bin labels=/nonexistent/labels.txt"));
  EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, "/nonexistent/labels.txt");
}

TEST (ElementFailure, LabelsDeepStreamStyle)
{
  TempDir tmp;
  const std::string labels = tmp.file ("ds-labels.txt", "cat;dog;bird\n");
  const BusError e = run_until_error (pipeline_with ("model=/nonexistent.bin labels=" + labels));
  EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, "one label per line");
}

/* A malformed .modelinfo beside the model stops the start with the file, the cause and the fix,
 * before the model is opened (docs/modelinfo.md). */
TEST (ElementFailure, ModelInfoMalformed)
{
  TempDir tmp;
  tmp.file ("m.bin.modelinfo", "[modelinfo]\nversion=2.0\n");
  const BusError e = run_until_error (pipeline_with ("model=" + tmp.file ("m.bin", "")));
  EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, "m.bin.modelinfo' has version 2.0");
  EXPECT_NE (e.message.find ("regenerate it as version 1.0"), std::string::npos) << e.message;
}

/* A PLACEHOLDER value (as upstream's generator writes them) is a warning on the bus, then the start
 * goes on (here to the missing model's error). */
TEST (ElementFailure, ModelInfoPlaceholderWarns)
{
  TempDir tmp;
  tmp.file ("m.bin.modelinfo", "[modelinfo]\nversion=1.0\ngroup-id=PLACEHOLDER_GROUP_ID\n");
  GstElement *pipeline =
      gst_parse_launch (pipeline_with ("model=" + tmp.file ("m.bin", "")).c_str (), nullptr);
  ASSERT_NE (pipeline, nullptr);
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_WARNING);
  ASSERT_NE (msg, nullptr) << "no warning on the bus";
  GError *err = nullptr;
  gst_message_parse_warning (msg, &err, nullptr);
  EXPECT_NE (std::string (err->message).find ("group-id is 'PLACEHOLDER_GROUP_ID', a placeholder"),
             std::string::npos)
      << err->message;
  g_error_free (err);
  gst_message_unref (msg);
  const BusError e = element_test::wait_bus_error (pipeline, 10 * GST_SECOND, GST_MESSAGE_ASYNC_DONE);
  EXPECT_TRUE (e.posted) << "the empty model file still fails the start";
  gst_object_unref (bus);
  EXPECT_EQ (gst_element_set_state (pipeline, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipeline);
}

/* A labels file named by a .modelinfo: the error names that file and its key, not the labels
 * property the user never set. */
TEST (ElementFailure, ModelInfoLabelsMissingNamesTheFileAndKey)
{
  TempDir tmp;
  const std::string mi = tmp.file ("m.modelinfo", "[modelinfo]\nversion=1.0\ndlainfer-labels=gone.txt\n");
  const BusError e = run_until_error (pipeline_with ("model=" + tmp.file ("m.bin", "")));
  EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, "gone.txt' does not exist");
  EXPECT_NE (e.message.find ("named by the key dlainfer-labels in '" + mi + "'"), std::string::npos)
      << e.message;
  EXPECT_NE (e.message.find ("or set the labels property"), std::string::npos) << e.message;
  EXPECT_EQ (e.debug.find ("property 'labels'"), std::string::npos) << e.debug;
  EXPECT_NE (e.debug.find ("dlainfer-labels"), std::string::npos) << e.debug;
}

/* The file's labels are used unless the labels property is set, which wins. */
TEST (ElementFailure, ModelInfoLabelsAndTheProperty)
{
  TempDir tmp;
  tmp.file ("m.modelinfo", "[modelinfo]\nversion=1.0\ndlainfer-labels=from-file.txt\n");
  const std::string model = tmp.file ("m.bin", "");
  BusError e = run_until_error (pipeline_with ("model=" + model));
  EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, "from-file.txt");
  e = run_until_error (pipeline_with ("model=" + model + " labels=/nonexistent/from-property.txt"));
  EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, "/nonexistent/from-property.txt");
}

/* A wrong mean or std fails start with an error naming the property, its value and what it takes.
 * The settings are checked before anything else: the model file (missing here) is opened after. */
TEST (ElementFailure, BadMeanStdAtStart)
{
  {
    const BusError e = run_until_error (pipeline_with ("model=/nonexistent.bin mean=\"<0.5,0.5>\""));
    EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
                  "Property 'mean' is <0.5, 0.5> (2 values): it takes 3 numbers");
  }
  {
    const BusError e = run_until_error (pipeline_with ("model=/nonexistent.bin std=\"<0,1,1>\""));
    EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
                  "Property 'std' is <0, 1, 1> (3 values): it takes 3 numbers > 0");
  }
  {
    const BusError e = run_until_error (pipeline_with ("std=\"<1,1,1,1>\""));
    EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, "Property 'std' is <1, 1, 1, 1>");
  }
}

/* A waiting sharer (model-instance-id, no `model`) whose model cannot open at its first caps posts
 * one error naming the id; upstream then says "reason error", pointing at it, never not-negotiated,
 * which would point at the caps. Before any CUDA: on any machine. */
TEST (ElementFailure, WaitingSharerFailsWithoutNotNegotiated)
{
  GError *perr = nullptr;
  GstElement *pipeline = gst_parse_launch (pipeline_with ("model-instance-id=nobody-caps").c_str (), &perr);
  ASSERT_EQ (perr, nullptr) << perr->message;
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipeline);
  std::vector<BusError> errors;
  /* Every error until the bus is quiet (the source's follows the element's). */
  while (GstMessage *msg = gst_bus_timed_pop_filtered (
             bus, 2 * GST_SECOND, GstMessageType (GST_MESSAGE_ERROR | GST_MESSAGE_EOS))) {
    const bool eos = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
    if (!eos) {
      GError *err = nullptr;
      gchar *dbg = nullptr;
      gst_message_parse_error (msg, &err, &dbg);
      BusError b;
      b.posted = true;
      b.message = err->message;
      b.debug = dbg ? dbg : "";
      b.source = GST_OBJECT_NAME (GST_MESSAGE_SRC (msg));
      errors.push_back (b);
      g_error_free (err);
      g_free (dbg);
    }
    gst_message_unref (msg);
    if (eos)
      break;
  }
  gst_object_unref (bus);
  EXPECT_EQ (gst_element_set_state (pipeline, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipeline);
  ASSERT_FALSE (errors.empty ()) << "no error on the bus";
  EXPECT_EQ (errors[0].source, "infer");
  EXPECT_NE (errors[0].message.find ("No model for model-instance-id 'nobody-caps'"), std::string::npos)
      << errors[0].message;
  EXPECT_LE (errors.size (), 2u) << "the element's error, and at most the source's";
  for (const BusError &b : errors) {
    std::printf ("error from %s: %s (%s)\n", b.source.c_str (), b.message.c_str (), b.debug.c_str ());
    for (const char *misleading : {"not-negotiated", "not negotiated"}) {
      EXPECT_EQ (b.message.find (misleading), std::string::npos) << b.source << ": " << b.message;
      EXPECT_EQ (b.debug.find (misleading), std::string::npos) << b.source << ": " << b.debug;
    }
  }
}

/* The object settings fail start naming the property and the fix; roi-list does not attach raw
 * tensors (a batch of objects), so tensor-meta with it is refused, never ignored. */
TEST (ElementFailure, BadObjectSettingsAtStart)
{
  {
    const BusError e = run_until_error (pipeline_with ("model=/nonexistent.bin object-class=\"car, ,bus\""));
    EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
                  "Property 'object-class' is \"car, ,bus\": it has an empty item");
  }
  {
    const BusError e = run_until_error (pipeline_with ("model=/nonexistent.bin smoothing=1"));
    EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
                  "Property 'smoothing' is 1: it takes 0 (off) up to below 1");
  }
  {
    const BusError e = run_until_error (pipeline_with ("model=/nonexistent.bin attribute-name=\"a b\""));
    EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
                  "Property 'attribute-name' is \"a b\": it names a GstStructure");
  }
  {
    const BusError e =
        run_until_error (pipeline_with ("model=/nonexistent.bin inference-region=roi-list tensor-meta=true"));
    EXPECT_ERROR (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
                  "inference-region=roi-list with tensor-meta=true: the raw tensors of a batch of objects");
  }
  {
    /* Without tensor-meta roi-list starts (and fails on the model file, not on the region). */
    const BusError e = run_until_error (pipeline_with ("model=/nonexistent.bin inference-region=roi-list"));
    EXPECT_TRUE (e.posted);
    EXPECT_EQ (e.message.find ("inference-region"), std::string::npos) << e.message;
  }
}

/* The debug text of an error names the code that failed, not the helper that posts it. */
TEST (ElementFailure, ErrorDebugNamesTheCaller)
{
  const BusError e = run_until_error (pipeline_with ("model=/nonexistent/model.bin"));
  EXPECT_TRUE (e.posted);
  EXPECT_EQ (e.debug.find ("post_status"), std::string::npos) << e.debug;
  EXPECT_NE (e.debug.find ("gst_dla_base_infer_open_model"), std::string::npos)
      << e.debug; /* start opens the model */
}

/* `stats` is notified at EOS (and at most once a second while frames flow: a GPU test). */
TEST (Element, StatsNotifiedAtEos)
{
  GstElement *e = make_infer ();
  ASSERT_NE (e, nullptr);
  int stats = 0, info = 0;
  g_signal_connect (e, "notify::stats",
                    G_CALLBACK (+[] (GObject *, GParamSpec *, gpointer n) { ++*(int *)n; }), &stats);
  g_signal_connect (e, "notify::model-info",
                    G_CALLBACK (+[] (GObject *, GParamSpec *, gpointer n) { ++*(int *)n; }), &info);
  GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS (e);
  klass->sink_event (GST_BASE_TRANSFORM (e), gst_event_new_eos ());
  EXPECT_EQ (stats, 1);
  EXPECT_EQ (info, 0) << "model-info only after a start";
  gst_object_unref (e);
}

/* With a real (software) cuDLA library and model but no CUDA device, start fails with a clear
 * error naming the missing device. Needs the swdla build; meaningful only without a GPU. */
TEST (ElementFailure, StartWithoutCudaDevice)
{
  element_test::expect_no_cuda_device_error (
      [] (const std::string &props) { return run_until_error (pipeline_with (props)); });
}

}  // namespace
