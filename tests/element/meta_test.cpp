/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The public meta library (libgstdlainfer-1.0): add, read through the accessors, copy, transform,
 * several producers on one buffer. Linked like an application links it. */
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstddef>

#include "gst/meta/gstdlameta.h"

namespace {

GstBuffer *buffer_with_result (const char *element = "infer0")
{
  GstBuffer *buf = gst_buffer_new_allocate (nullptr, 16, nullptr);
  const GstDlaClassification r[2] = {{3, g_quark_from_string ("red"), 0.9f},
                                     {1, g_quark_from_string ("white"), 0.05f}};
  GstDlaClassificationMeta *m = gst_buffer_add_dla_classification_meta (
      buf, r, 2, g_quark_from_string (element), g_quark_from_string ("swdla"));
  EXPECT_NE (m, nullptr);
  if (m) {
    EXPECT_NE (m->results, r) << "the meta holds its own copy";
  }
  return buf;
}

void expect_result (const GstDlaClassificationMeta *c, bool carried, guint age)
{
  ASSERT_NE (c, nullptr);
  ASSERT_EQ (c->n_results, 2u);
  EXPECT_EQ (c->results[0].class_id, 3);
  EXPECT_STREQ (g_quark_to_string (c->results[0].label), "red");
  EXPECT_FLOAT_EQ (c->results[0].confidence, 0.9f);
  EXPECT_EQ (c->results[1].class_id, 1);
  EXPECT_STREQ (gst_dla_classification_meta_get_label (c, 1), "white");
  EXPECT_FLOAT_EQ (c->results[1].confidence, 0.05f);
  EXPECT_STREQ (gst_dla_classification_meta_get_backend (c), "swdla");
  EXPECT_EQ (bool (c->carried), carried);
  EXPECT_EQ (c->age, age);
}

/* Added, read back through the accessors: results in their order, producer, backend; a fresh meta
 * is not carried and has age 0. */
TEST (Meta, AddAndRead)
{
  GstBuffer *buf = buffer_with_result ();
  GstDlaClassificationMeta *m = gst_buffer_get_dla_classification_meta (buf);
  expect_result (m, false, 0);
  EXPECT_STREQ (gst_dla_classification_meta_get_element_name (m), "infer0");
  EXPECT_STREQ (gst_dla_classification_meta_get_label (m, 0), "red");
  EXPECT_EQ (gst_dla_classification_meta_get_label (m, 2), nullptr) << "past n_results";
  EXPECT_EQ (gst_buffer_get_meta (buf, GST_DLA_CLASSIFICATION_META_API_TYPE), &m->meta);
  EXPECT_EQ (gst_dla_classification_meta_get_info ()->api, GST_DLA_CLASSIFICATION_META_API_TYPE);
  EXPECT_STREQ (g_type_name (GST_DLA_CLASSIFICATION_META_API_TYPE), "GstDlaClassificationMetaAPI");
  gst_buffer_unref (buf);
}

/* gst_buffer_copy and a copy into another buffer keep every field, carried and age included. */
TEST (Meta, SurvivesCopies)
{
  GstBuffer *buf = buffer_with_result ();
  GstDlaClassificationMeta *m = gst_buffer_get_dla_classification_meta (buf);
  m->carried = TRUE;
  m->age = 4;
  GstBuffer *copy = gst_buffer_copy (buf);
  gst_buffer_unref (buf);
  expect_result (gst_buffer_get_dla_classification_meta (copy), true, 4);

  GstBuffer *other = gst_buffer_new ();
  ASSERT_TRUE (gst_buffer_copy_into (other, copy, GST_BUFFER_COPY_METADATA, 0, -1));
  expect_result (gst_buffer_get_dla_classification_meta (other), true, 4);
  gst_buffer_unref (copy);
  gst_buffer_unref (other);
}

/* A non-copy transform (a scaler's) keeps the result too: it describes the picture, not pixels. */
TEST (Meta, SurvivesScaleTransform)
{
  GstBuffer *buf = buffer_with_result ();
  GstBuffer *dest = gst_buffer_new ();
  GstMeta *meta = gst_buffer_get_meta (buf, GST_DLA_CLASSIFICATION_META_API_TYPE);
  ASSERT_NE (meta, nullptr);
  GstVideoInfo in, out;
  gst_video_info_set_format (&in, GST_VIDEO_FORMAT_NV12, 640, 480);
  gst_video_info_set_format (&out, GST_VIDEO_FORMAT_NV12, 320, 240);
  GstVideoMetaTransform trans = {&in, &out};
  ASSERT_TRUE (
      meta->info->transform_func (dest, meta, buf, gst_video_meta_transform_scale_get_quark (), &trans));
  expect_result (gst_buffer_get_dla_classification_meta (dest), false, 0);
  const gchar *const *tags = gst_meta_api_type_get_tags (GST_DLA_CLASSIFICATION_META_API_TYPE);
  EXPECT_TRUE (!tags || !tags[0]) << "no tags, so GstBaseTransform subclasses copy it";
  gst_buffer_unref (buf);
  gst_buffer_unref (dest);
}

/* Two elements, two metas: each found by its producer's name. */
TEST (Meta, OnePerProducer)
{
  GstBuffer *buf = buffer_with_result ("first");
  const GstDlaClassification r = {7, g_quark_from_string ("seven"), 0.5f};
  ASSERT_NE (gst_buffer_add_dla_classification_meta (buf, &r, 1, g_quark_from_string ("second"),
                                                     g_quark_from_string ("dla")),
             nullptr);
  GstDlaClassificationMeta *a = gst_buffer_get_dla_classification_meta_for_element (buf, "first");
  GstDlaClassificationMeta *b = gst_buffer_get_dla_classification_meta_for_element (buf, "second");
  expect_result (a, false, 0);
  ASSERT_NE (b, nullptr);
  EXPECT_EQ (b->n_results, 1u);
  EXPECT_EQ (b->results[0].class_id, 7);
  EXPECT_STREQ (gst_dla_classification_meta_get_backend (b), "dla");
  EXPECT_EQ (gst_buffer_get_dla_classification_meta_for_element (buf, "never-named-element-xyz"), nullptr);
  EXPECT_EQ (gst_buffer_get_dla_classification_meta (buf), a) << "the first one added";
  gst_buffer_unref (buf);
}

TEST (Meta, EmptyResults)
{
  GstBuffer *buf = gst_buffer_new ();
  GstDlaClassificationMeta *m = gst_buffer_add_dla_classification_meta (buf, nullptr, 0, 0, 0);
  ASSERT_NE (m, nullptr);
  EXPECT_EQ (m->n_results, 0u);
  EXPECT_EQ (m->results, nullptr);
  EXPECT_EQ (gst_dla_classification_meta_get_label (m, 0), nullptr);
  GstBuffer *copy = gst_buffer_copy (buf);
  ASSERT_NE (gst_buffer_get_dla_classification_meta (copy), nullptr);
  EXPECT_EQ (gst_buffer_get_dla_classification_meta (copy)->n_results, 0u);
  gst_buffer_unref (copy);
  gst_buffer_unref (buf);
}

/* The add that takes everything the element sets, read back through the accessors only (what
 * GObject introspection and so Python see); a copy keeps all of it. */
TEST (Meta, FullAddReadThroughAccessors)
{
  GstBuffer *buf = gst_buffer_new ();
  const GstDlaClassification r[2] = {{4, g_quark_from_string ("green"), 0.7f},
                                     {0, g_quark_from_string ("black"), 0.2f}};
  ASSERT_NE (gst_buffer_add_dla_classification_meta_full (buf, r, 2, g_quark_from_string ("infer1"),
                                                          g_quark_from_string ("dla"), 1, TRUE, 3),
             nullptr);
  GstBuffer *copy = gst_buffer_copy (buf);
  gst_buffer_unref (buf);
  const GstDlaClassificationMeta *m = gst_buffer_get_dla_classification_meta (copy);
  ASSERT_NE (m, nullptr);
  EXPECT_EQ (gst_dla_classification_meta_get_n_results (m), 2u);
  EXPECT_TRUE (gst_dla_classification_meta_get_carried (m));
  EXPECT_EQ (gst_dla_classification_meta_get_age (m), 3u);
  EXPECT_EQ (gst_dla_classification_meta_get_dla_core (m), 1);
  EXPECT_STREQ (gst_dla_classification_meta_get_element_name (m), "infer1");
  EXPECT_STREQ (gst_dla_classification_meta_get_backend (m), "dla");
  gint id = -1;
  const gchar *label = nullptr;
  gfloat confidence = 0.f;
  ASSERT_TRUE (gst_dla_classification_meta_get_result (m, 1, &id, &label, &confidence));
  EXPECT_EQ (id, 0);
  EXPECT_STREQ (label, "black");
  EXPECT_FLOAT_EQ (confidence, 0.2f);
  EXPECT_TRUE (gst_dla_classification_meta_get_result (m, 0, nullptr, nullptr, nullptr))
      << "outs are optional";
  id = 42;
  EXPECT_FALSE (gst_dla_classification_meta_get_result (m, 2, &id, &label, &confidence));
  EXPECT_EQ (id, 42) << "nothing set past the results";
  gst_buffer_unref (copy);
}

/* The first version's add and fields still work for C users built against it: the core is
 * unknown (-1), and the fields keep what the accessors return. */
TEST (Meta, FirstVersionAddAndFields)
{
  GstBuffer *buf = buffer_with_result ();
  GstDlaClassificationMeta *m = gst_buffer_get_dla_classification_meta (buf);
  EXPECT_EQ (gst_dla_classification_meta_get_dla_core (m), -1);
  EXPECT_EQ (gst_dla_classification_meta_get_n_results (m), m->n_results);
  EXPECT_EQ (bool (gst_dla_classification_meta_get_carried (m)), bool (m->carried));
  EXPECT_EQ (offsetof (GstDlaClassificationMeta, n_results), sizeof (GstMeta))
      << "the first fields keep their place";
  gst_buffer_unref (buf);
}

TEST (Meta, NoMeta)
{
  GstBuffer *buf = gst_buffer_new ();
  EXPECT_EQ (gst_buffer_get_dla_classification_meta (buf), nullptr);
  EXPECT_EQ (gst_buffer_get_dla_classification_meta_for_element (buf, "infer0"), nullptr);
  gst_buffer_unref (buf);
}

}  // namespace
