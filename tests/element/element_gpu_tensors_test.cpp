/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tensor-meta, any image model, dump-dir and .modelinfo end to end on a CUDA GPU with swdla
 * (docs/tensors.md, docs/modelinfo.md). One frame through each output layout and type the test models
 * offer: the attached tensor equals, exactly, the output swdla wrote (dumped raw, de-padded by
 * swdla's own unpacker), and swdla's CPU executor run on the dumped input (swdla's tolerance: the CUDA
 * executor sums in another order). Ids, dims and types as specified; on GStreamer >= 1.26 the class
 * vector is found as upstream's classifier decoder looks for it. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <glib/gstdio.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common/numeric.h"
#include "cpu_executor.h"
#include "gpu_support.h"
#include "gst/meta/gstdlatensormeta.h"
#include "model.h"

#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 26, 0)
#include <gst/analytics/analytics.h>
#define UPSTREAM_TENSORS 1
#endif

namespace {

using namespace element_gpu;

/* One attached tensor as plain values (FLOAT16 widened to float). */
struct Tensor {
  bool found = false;
  std::string id;
  bool fp16 = false;
  bool row_major = false;
  std::vector<gsize> dims;
  std::vector<float> values;
};

/* Tensor 0 of the buffer's tensor meta (upstream's on >= 1.26, the library's before). */
Tensor tensor_of (GstBuffer *buf, size_t *count)
{
  Tensor t;
  *count = 0;
#ifdef UPSTREAM_TENSORS
  EXPECT_EQ (gst_buffer_get_dla_tensor_meta (buf), nullptr) << ">= 1.26 attaches upstream's meta only";
  GstTensorMeta *m = gst_buffer_get_tensor_meta (buf);
  if (!m || m->num_tensors == 0)
    return t;
  *count = m->num_tensors;
  const GstTensor *g = gst_tensor_meta_get (m, 0);
  t.id = g_quark_to_string (g->id);
  t.fp16 = g->data_type == GST_TENSOR_DATA_TYPE_FLOAT16;
  EXPECT_TRUE (t.fp16 || g->data_type == GST_TENSOR_DATA_TYPE_FLOAT32);
  EXPECT_EQ (g->layout, GST_TENSOR_LAYOUT_CONTIGUOUS);
  t.row_major = g->dims_order == GST_TENSOR_DIM_ORDER_ROW_MAJOR;
  t.dims.assign (g->dims, g->dims + g->num_dims);
  t.values = tensor_floats (g->data, t.fp16);
#else
  GstDlaTensorMeta *m = gst_buffer_get_dla_tensor_meta (buf);
  if (!m || gst_dla_tensor_meta_get_n_tensors (m) == 0)
    return t;
  *count = gst_dla_tensor_meta_get_n_tensors (m);
  t.id = gst_dla_tensor_meta_get_id (m, 0);
  t.fp16 = gst_dla_tensor_meta_get_data_type (m, 0) == GST_DLA_TENSOR_DATA_TYPE_FLOAT16;
  t.row_major = gst_dla_tensor_meta_get_dims_order (m, 0) == GST_DLA_TENSOR_DIM_ORDER_ROW_MAJOR;
  gsize n = 0;
  const gsize *d = gst_dla_tensor_meta_get_dims (m, 0, &n);
  t.dims.assign (d, d + n);
  t.values = tensor_floats (gst_dla_tensor_meta_get_data (m, 0), t.fp16);
#endif
  t.found = true;
  return t;
}

#ifdef UPSTREAM_TENSORS
/* The classifier decoder's lookup: id classification-generic-out, FLOAT32, row-major [1, N]. */
void expect_decoder_finds (GstBuffer *buf, gsize classes)
{
  GstTensorMeta *m = gst_buffer_get_tensor_meta (buf);
  ASSERT_NE (m, nullptr);
#if GST_CHECK_VERSION(1, 28, 0)
  const gsize dims[2] = {1, classes};
  const GstTensor *t = gst_tensor_meta_get_typed_tensor (
      m, g_quark_from_string ("classification-generic-out"), GST_TENSOR_DATA_TYPE_FLOAT32,
      GST_TENSOR_DIM_ORDER_ROW_MAJOR, 2, dims);
  EXPECT_NE (t, nullptr) << "gst_tensor_meta_get_typed_tensor";
#else
  /* 1.26 has no gst_tensor_meta_get_typed_tensor: the same checks by hand. */
  const gint i = gst_tensor_meta_get_index_from_id (m, g_quark_from_string ("classification-generic-out"));
  ASSERT_GE (i, 0);
  const GstTensor *t = gst_tensor_meta_get (m, gsize (i));
  EXPECT_EQ (t->data_type, GST_TENSOR_DATA_TYPE_FLOAT32);
  EXPECT_EQ (t->dims_order, GST_TENSOR_DIM_ORDER_ROW_MAJOR);
  ASSERT_EQ (t->num_dims, 2u);
  EXPECT_EQ (t->dims[0], 1u);
  EXPECT_EQ (t->dims[1], classes);
#endif
}
#endif

std::vector<uint8_t> file_bytes (const std::string &path)
{
  gchar *data = nullptr;
  gsize len = 0;
  std::vector<uint8_t> out;
  if (g_file_get_contents (path.c_str (), &data, &len, nullptr))
    out.assign (data, data + len);
  g_free (data);
  return out;
}

swdla::Model swdla_model (const std::string &name)
{
  const std::vector<uint8_t> b = file_bytes (model (name));
  swdla::Model m;
  std::string why;
  EXPECT_TRUE (swdla::parse_model (b.data (), b.size (), &m, &why)) << name << ": " << why;
  return m;
}

/* A fresh folder under the build's tests directory, removed with its files. */
class DumpDir {
 public:
  DumpDir () : path_ (g_dir_make_tmp ("dlainfer-dump-XXXXXX", nullptr)) {}
  ~DumpDir ()
  {
    if (GDir *d = g_dir_open (path_, 0, nullptr)) {
      while (const gchar *f = g_dir_read_name (d))
        g_unlink ((std::string (path_) + "/" + f).c_str ());
      g_dir_close (d);
    }
    g_rmdir (path_);
    g_free (path_);
  }
  std::string file (const std::string &name) const { return std::string (path_) + "/" + name; }
  std::string path () const { return path_; }

 private:
  gchar *path_;
};

/* A gradient, so that every output value differs. */
uint32_t gradient (int x, int y)
{
  return uint32_t ((x * 2) & 255) << 16 | uint32_t ((y * 3) & 255) << 8 | uint32_t ((x + y) & 255);
}

/* appsrc (160 x 120 RGBA) ! dlainfer name=infer model=<path> <props> ! appsink. */
std::string pipeline_of (const std::string &model_path, const std::string &props)
{
  return "appsrc name=src format=time caps=video/x-raw,format=RGBA,width=160,height=120,framerate=30/1 ! "
         "dlainfer name=infer model=" +
         model_path + " " + props + " ! appsink name=sink sync=false";
}

struct Frame {
  bool ok = false;
  Tensor tensor;
  size_t tensors = 0;
  Result result;
};

/* One 160 x 120 frame through dlainfer with `props`; what the buffer carries. */
Frame run_frame (const std::string &name, const std::string &props)
{
  Frame f;
  Pipeline p (pipeline_of (model (name), props));
  if (!p.play () || !p.push (rgba_frame (160, 120, gradient))) {
    ADD_FAILURE () << name << ": the pipeline did not take the frame: " << props;
    return f;
  }
  GstSample *s = p.pull ();
  if (!s) {
    ADD_FAILURE () << name << ": no sample: " << props;
    return f;
  }
  GstBuffer *buf = gst_sample_get_buffer (s);
  f.tensor = tensor_of (buf, &f.tensors);
  f.result = result_of (buf);
#ifdef UPSTREAM_TENSORS
  if (f.result.found)
    expect_decoder_finds (buf, f.tensor.dims.empty () ? 0 : f.tensor.dims.back ());
#endif
  gst_sample_unref (s);
  p.stop ();
  f.ok = true;
  return f;
}

using Tensors = SwdlaTest;

struct Case {
  const char *model;
  bool classifier;
  bool fp16; /* tensor-type=float16 */
};

void PrintTo (const Case &c, std::ostream *os)
{
  *os << c.model << (c.fp16 ? " float16" : " float32");
}

class EveryLayout : public Tensors, public testing::WithParamInterface<Case> {};

/* The attached tensor is the DLA's output exactly (swdla's raw output, dumped, de-padded by swdla's
 * unpacker), the dump's .f32 is the same, and swdla's CPU executor on the dumped input agrees. */
TEST_P (EveryLayout, TensorIsTheDlaOutput)
{
  const Case &k = GetParam ();
  const swdla::Model m = swdla_model (k.model);
  ASSERT_EQ (m.outputs.size (), 1u);
  const swdla::TensorSpec &out = m.outputs[0];
  DumpDir dir;
  char scale[64] = "";
  if (out.type == tensor::ElemType::kInt8)
    std::snprintf (scale, sizeof scale, " output-scale=%.9g", double (out.scale));
  const Frame f = run_frame (k.model, std::string ("tensor-meta=true dump-count=1 dump-dir=") + dir.path () +
                                          scale + (k.fp16 ? " tensor-type=float16" : ""));
  ASSERT_TRUE (f.ok);
  ASSERT_TRUE (f.tensor.found) << "no tensor meta";
  EXPECT_EQ (f.tensors, 1u);
  EXPECT_TRUE (f.tensor.row_major);
  EXPECT_EQ (f.result.found, k.classifier) << "a classification only for a classifier";
  const std::vector<gsize> dims = k.classifier
                                      ? std::vector<gsize>{1, gsize (out.c)}
                                      : std::vector<gsize>{1, gsize (out.c), gsize (out.h), gsize (out.w)};
  EXPECT_EQ (f.tensor.dims, dims);
  EXPECT_EQ (f.tensor.id, k.classifier ? "classification-generic-out" : out.name);
  EXPECT_EQ (f.tensor.fp16, k.fp16 && !k.classifier) << "a class vector is always FLOAT32";

  const std::vector<uint8_t> raw = file_bytes (dir.file ("000000-output-" + out.name + ".bin"));
  tensor::View v;
  ASSERT_TRUE (out.view (&v));
  ASSERT_EQ (raw.size (), size_t (v.size)) << "the dumped output";
  const std::vector<float> dla = swdla::unpack_tensor (out, raw.data ());
  ASSERT_EQ (f.tensor.values.size (), dla.size ());
  for (size_t i = 0; i < dla.size (); ++i) {
    const float want = f.tensor.fp16 ? tensor::half_to_float (tensor::float_to_half (dla[i])) : dla[i];
    ASSERT_EQ (f.tensor.values[i], want) << k.model << " element " << i;
  }
  const std::vector<uint8_t> f32 = file_bytes (dir.file ("000000-output-" + out.name + ".f32"));
  ASSERT_EQ (f32.size (), dla.size () * 4);
  EXPECT_EQ (memcmp (f32.data (), dla.data (), f32.size ()), 0) << "the dump's .f32 is the de-padded output";

  const std::vector<uint8_t> input = file_bytes (dir.file ("000000-input-" + m.inputs[0].name + ".bin"));
  tensor::View iv;
  ASSERT_TRUE (m.inputs[0].view (&iv));
  ASSERT_EQ (input.size (), size_t (iv.size)) << "the dumped input";
  std::vector<uint8_t> cpu (size_t (v.size));
  swdla::run_cpu (m, {input.data ()}, {cpu.data ()});
  const std::vector<float> want = swdla::unpack_tensor (out, cpu.data ());
  int bad = 0;
  for (size_t i = 0; i < want.size (); ++i) {
    const float tol =
        out.type == tensor::ElemType::kInt8 ? out.scale * 1.01f : 1e-3f + 2e-3f * std::fabs (want[i]);
    bad += !(std::fabs (dla[i] - want[i]) <= tol);
  }
  EXPECT_EQ (bad, 0) << k.model << ": the DLA output differs from swdla's CPU executor on the dumped input";
  const std::vector<uint8_t> layout = file_bytes (dir.file ("layout.txt"));
  const std::string text (layout.begin (), layout.end ());
  EXPECT_NE (text.find ("output " + out.name + ": layout=" + tensor::layout_name (out.layout)),
             std::string::npos)
      << text;
}

INSTANTIATE_TEST_SUITE_P (Models, EveryLayout,
                          testing::Values (Case{"featuremap", false, false}, Case{"featuremap", false, true},
                                           Case{"featuremap-out-fp16-dla_linear", false, false},
                                           Case{"featuremap-out-fp16-dla_linear", false, true},
                                           Case{"featuremap-out-int8-chw32", false, false},
                                           Case{"featuremap-out-int8-chw32", false, true},
                                           Case{"featuremap-out-int8-dla_linear", false, false},
                                           Case{"featuremap-out-int8-dla_linear", false, true},
                                           Case{"colours", true, false}, Case{"colours", true, true},
                                           Case{"colours-out-fp16-dla_linear", true, false},
                                           Case{"colours-out-int8-chw32", true, false},
                                           Case{"colours-out-int8-dla_linear", true, false},
                                           Case{"readout-out-int8-chw32", true, false}),
                          [] (const testing::TestParamInfo<Case> &i) {
                            std::string s =
                                std::string (i.param.model) + (i.param.fp16 ? "_float16" : "_float32");
                            for (char &c : s)
                              if (c == '-')
                                c = '_';
                            return s;
                          });

/* Without tensor-meta a feature-map model is refused, naming the property. */
TEST_F (Tensors, FeatureMapRefusedWithoutTensorMeta)
{
  const BusError e =
      start_error ("videotestsrc num-buffers=1 ! dlainfer model=" + model ("featuremap") + " ! fakesink");
  ASSERT_TRUE (e.posted);
  EXPECT_NE (e.message.find ("tensor-meta=true"), std::string::npos) << e.message;
  EXPECT_NE (e.message.find ("'features'"), std::string::npos) << e.message;
}

/* dump-count=2 over 3 frames: two dumps, then dump-count reads 0. */
TEST_F (Tensors, DumpWritesTheNextCountInferences)
{
  DumpDir dir;
  Pipeline p (pipeline_of (model ("colours"), "dump-count=2 dump-dir=" + dir.path ()));
  ASSERT_TRUE (p.play ());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE (p.push (rgba_frame (160, 120, gradient, GstClockTime (i) * GST_SECOND / 30)));
    GstSample *s = p.pull ();
    ASSERT_NE (s, nullptr);
    gst_sample_unref (s);
  }
  guint left = 99;
  g_object_get (p.by_name ("infer"), "dump-count", &left, nullptr);
  EXPECT_EQ (left, 0u);
  p.stop ();
  for (const char *f : {"000000-input-image.bin", "000001-input-image.bin", "000000-output-logits.bin",
                        "000001-output-logits.f32", "layout.txt"})
    EXPECT_TRUE (g_file_test (dir.file (f).c_str (), G_FILE_TEST_EXISTS)) << f;
  EXPECT_FALSE (g_file_test (dir.file ("000002-input-image.bin").c_str (), G_FILE_TEST_EXISTS));
}

/* A folder that cannot be made: a warning naming it, and the frames go on. */
TEST_F (Tensors, DumpToAnUnwritableFolderWarns)
{
  Pipeline p (pipeline_of (model ("colours"), "dump-count=1 dump-dir=/proc/dlainfer-no-such-folder"));
  ASSERT_TRUE (p.play ());
  ASSERT_TRUE (p.push (rgba_frame (160, 120, gradient)));
  GstSample *s = p.pull ();
  ASSERT_NE (s, nullptr) << "the frame still flows";
  gst_sample_unref (s);
  GstBus *bus = gst_element_get_bus (p.get ());
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_WARNING);
  ASSERT_NE (msg, nullptr) << "no warning on the bus";
  GError *err = nullptr;
  gst_message_parse_warning (msg, &err, nullptr);
  EXPECT_NE (std::string (err->message).find ("/proc/dlainfer-no-such-folder"), std::string::npos)
      << err->message;
  g_error_free (err);
  gst_message_unref (msg);
  gst_object_unref (bus);
  p.stop ();
}

/* Downstream holds every pooled pinned buffer (the engine's slots + 16 per output; max-in-flight=1
 * has two slots, the one in flight and the spare): the frames go on, each tensor over the bound
 * copied on the host, counted in stats, with one warning on the bus. */
TEST_F (Tensors, PoolExhaustedCopiesCountedAndWarnedOnce)
{
  Pipeline p (pipeline_of (model ("colours"), "tensor-meta=true max-in-flight=1"));
  ASSERT_TRUE (p.play ());
  const int bound = 2 + 16, n = bound + 3;
  for (int i = 0; i < n; ++i)
    ASSERT_TRUE (p.push (rgba_frame (160, 120, gradient)));
  std::vector<GstSample *> held; /* every tensor stays downstream until the end */
  for (int i = 0; i < n; ++i) {
    GstSample *s = p.pull ();
    ASSERT_NE (s, nullptr) << "frame " << i << " did not come out";
    size_t tensors = 0;
    EXPECT_EQ (tensor_of (gst_sample_get_buffer (s), &tensors).dims.empty (), false) << "frame " << i;
    held.push_back (s);
  }
  GstStructure *stats = nullptr;
  g_object_get (p.by_name ("infer"), "stats", &stats, nullptr);
  ASSERT_NE (stats, nullptr);
  guint64 copies = 0;
  EXPECT_TRUE (gst_structure_get_uint64 (stats, "tensor-copies", &copies));
  EXPECT_EQ (copies, guint64 (n - bound));
  gst_structure_free (stats);
  GstBus *bus = gst_element_get_bus (p.get ());
  int warnings = 0;
  while (GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING)) {
    GError *err = nullptr;
    gst_message_parse_warning (msg, &err, nullptr);
    EXPECT_NE (std::string (err->message).find ("pinned buffer"), std::string::npos) << err->message;
    ++warnings;
    g_error_free (err);
    gst_message_unref (msg);
  }
  EXPECT_EQ (warnings, 1) << "one warning, not one per frame";
  gst_object_unref (bus);
  for (GstSample *s : held)
    gst_sample_unref (s);
  p.stop ();
}

/* A copy of a model with a .modelinfo beside it, in a folder of its own. */
class ModelWithInfo {
 public:
  ModelWithInfo (const std::string &name, const std::string &info)
  {
    const std::vector<uint8_t> b = file_bytes (model (name));
    path_ = dir_.file (name + ".swdla");
    g_file_set_contents (path_.c_str (), reinterpret_cast<const gchar *> (b.data ()), gssize (b.size ()),
                         nullptr);
    g_file_set_contents (dir_.file (name + ".modelinfo").c_str (), info.c_str (), -1, nullptr);
  }
  const std::string &path () const { return path_; }

 private:
  DumpDir dir_;
  std::string path_;
};

/* The file's id names the tensor; its normalisation is what model-info reports as used. */
TEST_F (Tensors, ModelInfoGivesIdAndNormalisation)
{
  ModelWithInfo mi ("featuremap",
                    "[modelinfo]\nversion=1.0\n[image]\ndir=input\nranges=-1,1\n"
                    "[features]\ndir=output\ndims=1,20,16,16\nid=my-feature-map\n");
  Pipeline p (pipeline_of (mi.path (), "tensor-meta=true"));
  ASSERT_TRUE (p.play ());
  ASSERT_TRUE (p.push (rgba_frame (160, 120, gradient)));
  GstSample *s = p.pull ();
  ASSERT_NE (s, nullptr);
  size_t n = 0;
  EXPECT_EQ (tensor_of (gst_sample_get_buffer (s), &n).id, "my-feature-map");
  gst_sample_unref (s);
  GstStructure *info = nullptr;
  g_object_get (p.by_name ("infer"), "model-info", &info, nullptr);
  ASSERT_NE (info, nullptr);
  const GstStructure *src = gst_value_get_structure (gst_structure_get_value (info, "settings-source"));
  EXPECT_STREQ (gst_structure_get_string (src, "mean"), "modelinfo");
  EXPECT_STREQ (gst_structure_get_string (src, "resize-mode"), "default");
  gst_structure_free (info);
  GValue mean = G_VALUE_INIT;
  g_object_get_property (G_OBJECT (p.by_name ("infer")), "mean", &mean);
  ASSERT_EQ (gst_value_array_get_size (&mean), 3u);
  EXPECT_FLOAT_EQ (g_value_get_float (gst_value_array_get_value (&mean, 0)), 0.5f);
  g_value_unset (&mean);
  p.stop ();
}

/* A file that disagrees with the loadable stops the start, naming the file and the dims. */
TEST_F (Tensors, ModelInfoThatDisagreesIsRefused)
{
  ModelWithInfo mi ("colours", "[modelinfo]\nversion=1.0\n[logits]\ndims=1,10\n");
  const BusError e =
      start_error ("videotestsrc num-buffers=1 ! dlainfer model=" + mi.path () + " ! fakesink");
  ASSERT_TRUE (e.posted);
  EXPECT_NE (e.message.find ("colours.modelinfo"), std::string::npos) << e.message;
  EXPECT_NE (e.message.find ("dims=1,10"), std::string::npos) << e.message;
}

}  // namespace
