/* The result meta: added with its results, read back, and carried through buffer copies. */
#include <gst/gst.h>
#include <gtest/gtest.h>

#include "gstdlameta.h"

namespace {

TEST (Meta, AddReadCopy)
{
  GstBuffer *buf = gst_buffer_new ();
  const GstDlaClassification r[2] = {{3, g_quark_from_string ("red"), 0.9f}, {1, g_quark_from_string ("white"), 0.05f}};
  GstDlaClassificationMeta *m = gst_buffer_add_dla_classification_meta (buf, r, 2, g_quark_from_string ("infer0"),
      g_quark_from_string ("swdla"));
  ASSERT_NE (m, nullptr);
  EXPECT_NE (m->results, r) << "the meta holds its own copy";

  GstBuffer *copy = gst_buffer_copy (buf);
  gst_buffer_unref (buf);
  GstDlaClassificationMeta *c = gst_buffer_get_dla_classification_meta (copy);
  ASSERT_NE (c, nullptr) << "the meta must survive gst_buffer_copy";
  ASSERT_EQ (c->n_results, 2u);
  EXPECT_EQ (c->results[0].class_id, 3);
  EXPECT_STREQ (g_quark_to_string (c->results[0].label), "red");
  EXPECT_FLOAT_EQ (c->results[0].confidence, 0.9f);
  EXPECT_STREQ (g_quark_to_string (c->results[1].label), "white");
  EXPECT_STREQ (g_quark_to_string (c->element), "infer0");
  EXPECT_STREQ (g_quark_to_string (c->backend), "swdla");
  EXPECT_FALSE (c->carried);
  EXPECT_EQ (c->age, 0u);
  gst_buffer_unref (copy);
}

TEST (Meta, EmptyResults)
{
  GstBuffer *buf = gst_buffer_new ();
  GstDlaClassificationMeta *m = gst_buffer_add_dla_classification_meta (buf, nullptr, 0, 0, 0);
  ASSERT_NE (m, nullptr);
  EXPECT_EQ (m->n_results, 0u);
  gst_buffer_unref (buf);
}

}  // namespace
