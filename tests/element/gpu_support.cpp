/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <cmath>
#include <cstring>

#include "common/numeric.h"
#include "gpu_support.h"
#include "gst/meta/gstdlatensormeta.h"

#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 26, 0)
#include <gst/analytics/analytics.h>
#define UPSTREAM_TENSORS 1
#endif

namespace element_gpu {
namespace {

/* Why the swdla end-to-end tests cannot run here, or "" when they can. */
std::string swdla_missing ()
{
  const char *lib = g_getenv ("DLAINFER_CUDLA_LIBRARY");
  if (!lib || !g_file_test (lib, G_FILE_TEST_EXISTS))
    return std::string ("the software DLA library is missing (DLAINFER_CUDLA_LIBRARY=") +
           (lib ? lib : "unset") + "): build tests/swdla";
  if (!g_file_test (model ("colours").c_str (), G_FILE_TEST_EXISTS))
    return "the swdla test models are missing (" + model ("colours") + "): build tests/swdla's models";
  GstElementFactory *f = gst_element_factory_find ("dlainfer");
  if (!f)
    return "dlainfer is not registered: the plugin in GST_PLUGIN_PATH_1_0 did not load (see "
           "GST_DEBUG=GST_PLUGIN_LOADING:4)";
  gst_object_unref (f);
  return "";
}

}  // namespace

void SwdlaTest::SetUp ()
{
  const std::string why = swdla_missing ();
  if (!why.empty ())
    GTEST_FAIL () << why;
}

bool have_element (const char *factory)
{
  GstElementFactory *f = gst_element_factory_find (factory);
  if (f)
    gst_object_unref (f);
  return f != nullptr;
}

bool cudaupload_available ()
{
  if (have_element ("cudaupload"))
    return true;
  ADD_FAILURE () << "cudaupload (GStreamer's nvcodec plugin) is missing on a CUDA machine: the CUDA-memory "
                    "cases cannot run (install gstreamer1.0-plugins-bad, or bundle nvcodec)";
  return false;
}

std::vector<Result> results_of (GstBuffer *buf)
{
  std::vector<Result> out;
  const GType api = GST_DLA_CLASSIFICATION_META_API_TYPE;
  gpointer state = nullptr;
  while (GstMeta *meta = gst_buffer_iterate_meta_filtered (buf, &state, api)) {
    const auto *m = reinterpret_cast<const GstDlaClassificationMeta *> (meta);
    Result r;
    r.found = true;
    const gchar *element = gst_dla_classification_meta_get_element_name (m);
    const gchar *backend = gst_dla_classification_meta_get_backend (m);
    r.element = element ? element : "";
    r.backend = backend ? backend : "";
    r.carried = gst_dla_classification_meta_get_carried (m);
    r.age = gst_dla_classification_meta_get_age (m);
    r.dla_core = gst_dla_classification_meta_get_dla_core (m);
    gint id = 0;
    const gchar *label = nullptr;
    gfloat confidence = 0.f;
    for (guint i = 0; gst_dla_classification_meta_get_result (m, i, &id, &label, &confidence); ++i) {
      r.ids.push_back (id);
      r.labels.push_back (label);
      r.confidences.push_back (confidence);
    }
    out.push_back (std::move (r));
  }
  return out;
}

Result result_of (GstBuffer *buf, const std::string &element)
{
  for (Result &r : results_of (buf))
    if (r.element == element)
      return r;
  return Result ();
}

Pipeline::Pipeline (const std::string &desc)
{
  GError *err = nullptr;
  pipeline_ = gst_parse_launch (desc.c_str (), &err);
  EXPECT_EQ (err, nullptr) << desc << ": " << (err ? err->message : "");
  g_clear_error (&err);
  if (!pipeline_)
    return;
  src_ = gst_bin_get_by_name (GST_BIN (pipeline_), "src");
  sink_ = gst_bin_get_by_name (GST_BIN (pipeline_), "sink");
}

Pipeline::~Pipeline ()
{
  if (pipeline_)
    gst_element_set_state (pipeline_, GST_STATE_NULL);
  if (src_)
    gst_object_unref (src_);
  if (sink_)
    gst_object_unref (sink_);
  if (pipeline_)
    gst_object_unref (pipeline_);
}

GstElement *Pipeline::by_name (const char *name) const
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline_), name);
  if (e)
    gst_object_unref (e); /* the bin keeps it */
  return e;
}

bool Pipeline::play ()
{
  if (!pipeline_)
    return false;
  return gst_element_set_state (pipeline_, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE;
}

bool Pipeline::push (GstBuffer *buf)
{
  return src_ && gst_app_src_push_buffer (GST_APP_SRC (src_), buf) == GST_FLOW_OK;
}

void Pipeline::set_src_caps (const std::string &caps)
{
  GstCaps *c = gst_caps_from_string (caps.c_str ());
  gst_app_src_set_caps (GST_APP_SRC (src_), c);
  gst_caps_unref (c);
}

void Pipeline::end_of_stream ()
{
  if (src_)
    gst_app_src_end_of_stream (GST_APP_SRC (src_));
}

GstSample *Pipeline::pull (GstClockTime timeout)
{
  if (!sink_)
    return nullptr;
  GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink_), timeout);
  if (!s) {
    const BusError e = wait_error (0);
    ADD_FAILURE () << "no sample" << (e.posted ? ": " + e.source + ": " + e.message + " / " + e.debug : "");
  }
  return s;
}

bool Pipeline::wait_eos (GstClockTime timeout)
{
  GstBus *bus = gst_element_get_bus (pipeline_);
  GstMessage *msg =
      gst_bus_timed_pop_filtered (bus, timeout, GstMessageType (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  bool eos = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (msg && !eos) {
    GError *err = nullptr;
    gchar *dbg = nullptr;
    gst_message_parse_error (msg, &err, &dbg);
    ADD_FAILURE () << "error instead of EOS: " << err->message << " / " << (dbg ? dbg : "");
    g_error_free (err);
    g_free (dbg);
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  return eos;
}

BusError Pipeline::wait_error (GstClockTime timeout)
{
  return element_test::wait_bus_error (pipeline_, timeout, GST_MESSAGE_EOS);
}

void Pipeline::stop ()
{
  if (pipeline_) {
    EXPECT_EQ (gst_element_set_state (pipeline_, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  }
}

GstBuffer *rgba_frame (int w, int h, const std::function<uint32_t (int, int)> &fill, GstClockTime pts)
{
  GstBuffer *buf = gst_buffer_new_allocate (nullptr, gsize (w) * h * 4, nullptr);
  GstMapInfo map;
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (int y = 0; y < h; ++y) {
    uint8_t *row = map.data + size_t (y) * w * 4;
    for (int x = 0; x < w; ++x) {
      const uint32_t c = fill (x, y);
      row[4 * x + 0] = uint8_t (c >> 16);
      row[4 * x + 1] = uint8_t (c >> 8);
      row[4 * x + 2] = uint8_t (c);
      row[4 * x + 3] = 255;
    }
  }
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

BusError start_error (const std::string &desc)
{
  Pipeline p (desc);
  if (!p.get ())
    return BusError ();
  gst_element_set_state (p.get (), GST_STATE_PAUSED);
  BusError e = p.wait_error (30 * GST_SECOND);
  p.stop ();
  return e;
}

GstCudaContext *element_context (GstElement *element)
{
  GstQuery *q = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstPad *pad = gst_element_get_static_pad (element, "sink");
  GstCudaContext *ctx = nullptr;
  if (gst_pad_query (pad, q)) {
    GstContext *context = nullptr;
    gst_query_parse_context (q, &context);
    if (context)
      gst_structure_get (gst_context_get_structure (context), GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT,
                         &ctx, nullptr);
  }
  gst_object_unref (pad);
  gst_query_unref (q);
  return ctx;
}

}  // namespace element_gpu

namespace element_gpu {

std::vector<float> tensor_floats (GstBuffer *data, bool fp16)
{
  std::vector<float> out;
  GstMapInfo map;
  if (!gst_buffer_map (data, &map, GST_MAP_READ))
    return out;
  const size_t n = map.size / (fp16 ? 2 : 4);
  out.resize (n);
  for (size_t i = 0; i < n; ++i) {
    if (fp16) {
      uint16_t h;
      memcpy (&h, map.data + 2 * i, 2);
      out[i] = tensor::half_to_float (h);
    } else {
      memcpy (&out[i], map.data + 4 * i, 4);
    }
  }
  gst_buffer_unmap (data, &map);
  return out;
}

std::vector<float> tensor_values (GstBuffer *buf)
{
#ifdef UPSTREAM_TENSORS
  GstTensorMeta *m = gst_buffer_get_tensor_meta (buf);
  if (!m || m->num_tensors == 0)
    return {};
  const GstTensor *t = gst_tensor_meta_get (m, 0);
  return tensor_floats (t->data, t->data_type == GST_TENSOR_DATA_TYPE_FLOAT16);
#else
  GstDlaTensorMeta *m = gst_buffer_get_dla_tensor_meta (buf);
  if (!m || gst_dla_tensor_meta_get_n_tensors (m) == 0)
    return {};
  return tensor_floats (gst_dla_tensor_meta_get_data (m, 0),
                        gst_dla_tensor_meta_get_data_type (m, 0) == GST_DLA_TENSOR_DATA_TYPE_FLOAT16);
#endif
}

std::vector<std::vector<float>> colour_tensors (const std::string &props, int w, int h)
{
  Pipeline p ("appsrc name=src format=time caps=video/x-raw,format=RGBA,width=" + std::to_string (w) +
              ",height=" + std::to_string (h) + ",framerate=30/1 ! dlainfer " + props +
              " tensor-meta=true ! appsink name=sink sync=false");
  std::vector<std::vector<float>> out;
  if (!p.play ()) {
    ADD_FAILURE () << "the reference pipeline did not start: " << props;
    return {};
  }
  for (guint64 i = 0; i < 8; ++i) {
    GstSample *s = p.push (coloured_frame (i, w, h)) ? p.pull () : nullptr;
    if (!s) {
      ADD_FAILURE () << "no reference tensor for " << kColours[i].name;
      return {};
    }
    out.push_back (tensor_values (gst_sample_get_buffer (s)));
    gst_sample_unref (s);
    if (out.back ().empty ()) {
      ADD_FAILURE () << "the reference frame of " << kColours[i].name << " has no tensor";
      return {};
    }
  }
  p.stop ();
  return out;
}

::testing::AssertionResult same_tensor (const std::vector<float> &got, const std::vector<float> &want)
{
  if (got.size () != want.size ())
    return ::testing::AssertionFailure () << got.size () << " values, expected " << want.size ();
  for (size_t i = 0; i < got.size (); ++i)
    if (!(std::fabs (got[i] - want[i]) <= 1e-5f + 1e-5f * std::fabs (want[i])))
      return ::testing::AssertionFailure () << "value " << i << " is " << got[i] << ", expected " << want[i];
  return ::testing::AssertionSuccess ();
}

}  // namespace element_gpu
