/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The raw output tensors without a GPU (docs/tensors.md): the public library's GstDlaTensorMeta
 * (add, read, copy, refusals), what each output is published as (ids, dims, types from the
 * properties and the .modelinfo), and the meta attached from host copies of the outputs — upstream's
 * GstTensorMeta on GStreamer >= 1.26, ours before — found as upstream's classifier decoder looks. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "common/numeric.h"
#include "gst/meta/gstdlatensormeta.h"
#include "gst/modelinfo/modelinfo.h"
#include "gst/outputs/dump.h"
#include "gst/outputs/tensor_output.h"

#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 26, 0)
#include <gst/analytics/analytics.h>
#endif

namespace {

GstBuffer *floats (std::vector<float> v)
{
  return gst_buffer_new_memdup (v.data (), v.size () * sizeof (float));
}

std::vector<gsize> dims_of (const GstDlaTensorMeta *m, gsize index)
{
  gsize n = 0;
  const gsize *d = gst_dla_tensor_meta_get_dims (m, index, &n);
  return d ? std::vector<gsize> (d, d + n) : std::vector<gsize> ();
}

TEST (DlaTensorMeta, AddReadCopy)
{
  GstBuffer *buf = gst_buffer_new ();
  GstDlaTensorMeta *m = gst_buffer_add_dla_tensor_meta (buf, g_quark_from_string ("dlainfer0"));
  ASSERT_NE (m, nullptr);
  const gsize dims[] = {1, 3};
  EXPECT_TRUE (gst_dla_tensor_meta_add_tensor (
      m, g_quark_from_string ("classification-generic-out"), GST_DLA_TENSOR_DATA_TYPE_FLOAT32,
      GST_DLA_TENSOR_DIM_ORDER_ROW_MAJOR, 2, dims, floats ({1.f, 2.f, 3.f})));
  /* Refused, and the data unreffed (valgrind's leak check sees it otherwise). */
  EXPECT_FALSE (gst_dla_tensor_meta_add_tensor (m, 1, GST_DLA_TENSOR_DATA_TYPE_FLOAT32,
                                                GST_DLA_TENSOR_DIM_ORDER_ROW_MAJOR, 2, dims, floats ({1.f})));
  const gsize nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  EXPECT_FALSE (gst_dla_tensor_meta_add_tensor (m, 1, GST_DLA_TENSOR_DATA_TYPE_FLOAT32,
                                                GST_DLA_TENSOR_DIM_ORDER_ROW_MAJOR, 9, nine, floats ({1.f})));

  GstBuffer *copy = gst_buffer_copy (buf);
  gst_buffer_unref (buf);
  GstDlaTensorMeta *c = gst_buffer_get_dla_tensor_meta (copy);
  ASSERT_NE (c, nullptr);
  ASSERT_EQ (gst_dla_tensor_meta_get_n_tensors (c), 1u);
  EXPECT_EQ (gst_dla_tensor_meta_get_index_from_id (c, "classification-generic-out"), 0);
  EXPECT_EQ (gst_dla_tensor_meta_get_index_from_id (c, "never-interned-id"), -1);
  EXPECT_STREQ (gst_dla_tensor_meta_get_id (c, 0), "classification-generic-out");
  EXPECT_EQ (gst_dla_tensor_meta_get_id (c, 1), nullptr);
  EXPECT_EQ (gst_dla_tensor_meta_get_data_type (c, 0), GST_DLA_TENSOR_DATA_TYPE_FLOAT32);
  EXPECT_EQ (gst_dla_tensor_meta_get_dims_order (c, 0), GST_DLA_TENSOR_DIM_ORDER_ROW_MAJOR);
  EXPECT_EQ (dims_of (c, 0), (std::vector<gsize>{1, 3}));
  gsize n = 9;
  EXPECT_EQ (gst_dla_tensor_meta_get_dims (c, 5, &n), nullptr);
  EXPECT_EQ (n, 0u);
  float values[3] = {};
  ASSERT_EQ (gst_buffer_extract (gst_dla_tensor_meta_get_data (c, 0), 0, values, sizeof values),
             sizeof values);
  EXPECT_EQ (values[2], 3.f);
  gst_buffer_unref (copy);
}

#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 26, 0)
static_assert (int (GST_DLA_TENSOR_DATA_TYPE_FLOAT16) == int (GST_TENSOR_DATA_TYPE_FLOAT16), "same values");
static_assert (int (GST_DLA_TENSOR_DATA_TYPE_FLOAT32) == int (GST_TENSOR_DATA_TYPE_FLOAT32), "same values");
static_assert (int (GST_DLA_TENSOR_DIM_ORDER_COL_MAJOR) == int (GST_TENSOR_DIM_ORDER_COL_MAJOR),
               "same values");
#endif

dla::TensorInfo output (const char *name, tensor::Layout l, tensor::ElemType t, int64_t c, int64_t h,
                        int64_t w)
{
  dla::TensorInfo info;
  info.name = name;
  EXPECT_TRUE (tensor::make_view (l, t, 1, c, h, w, &info.view));
  return info;
}

TEST (TensorPlans, IdsDimsTypes)
{
  dlainfer::Settings s;
  const auto logits = output ("logits", tensor::Layout::kChw16, tensor::ElemType::kFp16, 1008, 1, 1);
  const auto map = output ("features", tensor::Layout::kChw16, tensor::ElemType::kFp16, 64, 7, 7);
  auto plans = dlainfer::plan_tensors ({logits, map}, s, 1000);
  ASSERT_EQ (plans.size (), 2u);
  EXPECT_STREQ (g_quark_to_string (plans[0].id), "classification-generic-out");
  EXPECT_EQ (plans[0].dims, (std::vector<gsize>{1, 1000})); /* the padded 1008 resolved by the labels */
  EXPECT_EQ (plans[0].view.c, 1000);
  EXPECT_EQ (plans[0].type, depad::Type::kFloat32);
  EXPECT_STREQ (g_quark_to_string (plans[1].id), "features");
  EXPECT_EQ (plans[1].dims, (std::vector<gsize>{1, 64, 7, 7}));
  EXPECT_EQ (plans[1].type, depad::Type::kFloat32);

  /* No classifier: output 0 is published as it is. FP16 on request, never for a class vector. */
  s.tensor_fp16 = true;
  plans = dlainfer::plan_tensors ({map, logits}, s, 0);
  EXPECT_EQ (plans[0].type, depad::Type::kFloat16);
  EXPECT_EQ (plans[1].dims, (std::vector<gsize>{1, 1008, 1, 1}));
  EXPECT_STREQ (g_quark_to_string (plans[1].id), "logits");
}

TEST (TensorPlans, ModelInfoIdsAndTypes)
{
  auto mi = std::make_shared<dlainfer::ModelInfo> ();
  std::string error;
  ASSERT_TRUE (
      dlainfer::parse_modelinfo ("[modelinfo]\nversion=1.0\n[logits]\nid=my-scores\n"
                                 "[features]\ntype=float16\nid=embedding\n",
                                 "m.modelinfo", mi.get (), &error))
      << error;
  dlainfer::Settings s;
  s.modelinfo = mi;
  const auto logits = output ("logits", tensor::Layout::kDlaLinear, tensor::ElemType::kFp16, 10, 1, 1);
  const auto map = output ("features", tensor::Layout::kChw16, tensor::ElemType::kFp16, 64, 7, 7);
  auto plans = dlainfer::plan_tensors ({logits, map}, s, 10);
  EXPECT_STREQ (g_quark_to_string (plans[0].id), "my-scores");
  EXPECT_STREQ (g_quark_to_string (plans[1].id), "embedding");
  EXPECT_EQ (plans[1].type, depad::Type::kFloat16);
  /* A descriptor that reports the padded channel count (32 for 20): the file's dims say the real one. */
  ASSERT_TRUE (dlainfer::parse_modelinfo ("[modelinfo]\nversion=1.0\n[features]\ndims=1,20,7,7\n",
                                          "m.modelinfo", mi.get (), &error))
      << error;
  const auto padded = output ("features", tensor::Layout::kChw16, tensor::ElemType::kFp16, 32, 7, 7);
  plans = dlainfer::plan_tensors ({padded}, s, 0);
  EXPECT_EQ (plans[0].dims, (std::vector<gsize>{1, 20, 7, 7}));
  EXPECT_EQ (plans[0].view.c, 20);
  ASSERT_TRUE (
      dlainfer::parse_modelinfo ("[modelinfo]\nversion=1.0\n[logits]\nid=my-scores\n"
                                 "[features]\ntype=float16\nid=embedding\n",
                                 "m.modelinfo", mi.get (), &error))
      << error;
  s.user_set.insert ("tensor-type"); /* tensor-type=float32 set: wins over the file */
  plans = dlainfer::plan_tensors ({logits, map}, s, 10);
  EXPECT_EQ (plans[1].type, depad::Type::kFloat32);
}

/* An INT8 chw32 class vector (scale 0.5) and an FP16 dla_linear 2x3x5 map, pad bytes poisoned. */
struct HostOutputs {
  dla::TensorInfo scores = output ("logits", tensor::Layout::kChw32, tensor::ElemType::kInt8, 4, 1, 1);
  dla::TensorInfo map = output ("features", tensor::Layout::kDlaLinear, tensor::ElemType::kFp16, 2, 3, 5);
  std::vector<uint8_t> a = std::vector<uint8_t> (size_t (scores.view.size), 0x7c);
  std::vector<uint8_t> b = std::vector<uint8_t> (size_t (map.view.size), 0x7c);
  HostOutputs ()
  {
    for (int c = 0; c < 4; ++c)
      a[size_t (scores.view.offset (0, c, 0, 0))] = uint8_t (int8_t (c - 2)); /* -1, -0.5, 0, 0.5 */
    for (int c = 0; c < 2; ++c)
      for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 5; ++x) {
          const uint16_t h = tensor::float_to_half (float (c * 100 + y * 10 + x));
          std::memcpy (b.data () + map.view.offset (0, c, y, x), &h, 2);
        }
  }
};

std::vector<float> buffer_floats (GstBuffer *data)
{
  std::vector<float> v (gst_buffer_get_size (data) / sizeof (float));
  gst_buffer_extract (data, 0, v.data (), v.size () * sizeof (float));
  return v;
}

TEST (TensorOutput, AttachedAsTheDecoderReadsThem)
{
  HostOutputs h;
  dlainfer::Settings s;
  s.output_scale = 0.5f;
  dlainfer::TensorOutput out;
  out.prepare ({h.scores, h.map}, s, 4, g_quark_from_string ("dlainfer0"));
  GstBuffer *buf = gst_buffer_new ();
  out.attach_host (buf, {h.a.data (), h.b.data ()});
#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 26, 0)
  EXPECT_EQ (gst_buffer_get_dla_tensor_meta (buf), nullptr) << "off: tensor-meta is false";
  EXPECT_EQ (gst_buffer_get_tensor_meta (buf), nullptr) << "off: tensor-meta is false";
#else
  EXPECT_EQ (gst_buffer_get_dla_tensor_meta (buf), nullptr) << "off: tensor-meta is false";
#endif
  s.tensor_meta = true;
  out.prepare ({h.scores, h.map}, s, 4, g_quark_from_string ("dlainfer0"));
  out.attach_host (buf, {h.a.data (), h.b.data ()});
  std::vector<float> map_expected;
  for (int c = 0; c < 2; ++c)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 5; ++x)
        map_expected.push_back (float (c * 100 + y * 10 + x));
#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 26, 0)
  EXPECT_TRUE (dlainfer::upstream_tensor_meta ());
  EXPECT_EQ (gst_buffer_get_dla_tensor_meta (buf), nullptr);
  GstTensorMeta *tm = gst_buffer_get_tensor_meta (buf);
  ASSERT_NE (tm, nullptr);
  ASSERT_EQ (tm->num_tensors, 2u);
  /* The classifier decoder's lookup: id, FLOAT32, row-major [1, N]. */
  const gint i = gst_tensor_meta_get_index_from_id (tm, g_quark_from_string ("classification-generic-out"));
  ASSERT_EQ (i, 0);
  const GstTensor *t = gst_tensor_meta_get (tm, gsize (i));
  EXPECT_EQ (t->data_type, GST_TENSOR_DATA_TYPE_FLOAT32);
  EXPECT_EQ (t->dims_order, GST_TENSOR_DIM_ORDER_ROW_MAJOR);
  EXPECT_EQ (t->layout, GST_TENSOR_LAYOUT_CONTIGUOUS);
  ASSERT_EQ (t->num_dims, 2u);
  EXPECT_EQ (t->dims[0], 1u);
  EXPECT_EQ (t->dims[1], 4u);
  EXPECT_EQ (buffer_floats (t->data), (std::vector<float>{-1.f, -0.5f, 0.f, 0.5f}));
  const GstTensor *m = gst_tensor_meta_get (tm, 1);
  EXPECT_STREQ (g_quark_to_string (m->id), "features");
  ASSERT_EQ (m->num_dims, 4u);
  EXPECT_EQ (m->dims[1], 2u);
  EXPECT_EQ (m->dims[3], 5u);
  EXPECT_EQ (buffer_floats (m->data), map_expected);
#else
  EXPECT_FALSE (dlainfer::upstream_tensor_meta ());
  GstDlaTensorMeta *tm = gst_buffer_get_dla_tensor_meta (buf);
  ASSERT_NE (tm, nullptr);
  EXPECT_STREQ (g_quark_to_string (tm->element), "dlainfer0");
  ASSERT_EQ (gst_dla_tensor_meta_get_n_tensors (tm), 2u);
  ASSERT_EQ (gst_dla_tensor_meta_get_index_from_id (tm, "classification-generic-out"), 0);
  EXPECT_EQ (gst_dla_tensor_meta_get_data_type (tm, 0), GST_DLA_TENSOR_DATA_TYPE_FLOAT32);
  EXPECT_EQ (dims_of (tm, 0), (std::vector<gsize>{1, 4}));
  EXPECT_EQ (buffer_floats (gst_dla_tensor_meta_get_data (tm, 0)),
             (std::vector<float>{-1.f, -0.5f, 0.f, 0.5f}));
  EXPECT_STREQ (gst_dla_tensor_meta_get_id (tm, 1), "features");
  EXPECT_EQ (dims_of (tm, 1), (std::vector<gsize>{1, 2, 3, 5}));
  EXPECT_EQ (buffer_floats (gst_dla_tensor_meta_get_data (tm, 1)), map_expected);
#endif
  gst_buffer_unref (buf);
}

/* Two dlainfer elements on one buffer: the second's tensors do not replace the first's. */
TEST (TensorOutput, SecondElementKeepsTheFirstsTensors)
{
  HostOutputs h;
  dlainfer::Settings s;
  s.output_scale = 0.5f;
  s.tensor_meta = true;
  dlainfer::TensorOutput first, second;
  first.prepare ({h.scores}, s, 4, g_quark_from_string ("first"));
  second.prepare ({h.map}, s, 0, g_quark_from_string ("second"));
  GstBuffer *buf = gst_buffer_new ();
  first.attach_host (buf, {h.a.data ()});
  second.attach_host (buf, {h.b.data ()});
#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 26, 0)
  GstTensorMeta *tm = gst_buffer_get_tensor_meta (buf);
  ASSERT_NE (tm, nullptr);
  ASSERT_EQ (tm->num_tensors, 2u);
  EXPECT_STREQ (g_quark_to_string (tm->tensors[0]->id), "classification-generic-out");
  EXPECT_STREQ (g_quark_to_string (tm->tensors[1]->id), "features");
#else
  guint metas = 0;
  gpointer state = nullptr;
  while (gst_buffer_iterate_meta_filtered (buf, &state, GST_DLA_TENSOR_META_API_TYPE))
    ++metas;
  EXPECT_EQ (metas, 2u) << "one GstDlaTensorMeta per element";
#endif
  gst_buffer_unref (buf);
}

/* layout.txt: every tensor with what an offline reader needs to find element (n, c, h, w). */
TEST (Dump, DescriptionNamesEveryTensorAndTheFormula)
{
  dla::TensorInfo in = output ("image", tensor::Layout::kChw32, tensor::ElemType::kInt8, 3, 64, 64);
  const auto map = output ("features", tensor::Layout::kDlaLinear, tensor::ElemType::kInt8, 20, 16, 16);
  dlainfer::Settings s;
  s.output_scale = 0.0625f;
  const std::string d = dlainfer::dump_description ({in}, 0.5f, dlainfer::plan_tensors ({map}, s, 0));
  EXPECT_NE (d.find ("n*batch-stride + (c/lanes)*plane-stride + h*row-stride + w*lanes*elem-size"),
             std::string::npos)
      << d;
  EXPECT_NE (d.find ("input image: layout=chw32 type=int8 n=1 c=3 h=64 w=64 lanes=32 elem-size=1 "
                     "row-stride=2048 plane-stride=131072 batch-stride=131072 size=131072 scale=0.5\n"),
             std::string::npos)
      << d;
  EXPECT_NE (d.find ("output features: layout=dla_linear type=int8 n=1 c=20 h=16 w=16 lanes=1 elem-size=1 "
                     "row-stride=64 plane-stride=1024 batch-stride=20480 size=20480 scale=0.0625\n"),
             std::string::npos)
      << d;
  EXPECT_NE (d.find ("NNNNNN-output-<tensor>.f32"), std::string::npos) << d;
}

TEST (Dump, ArmedByCountAndFolder)
{
  dlainfer::Dump dump;
  EXPECT_EQ (dump.count (), 0u);
  dump.set_dir ("/tmp/x");
  dump.set_count (3);
  EXPECT_EQ (dump.dir (), "/tmp/x");
  EXPECT_EQ (dump.count (), 3u);
}

}  // namespace
