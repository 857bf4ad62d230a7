/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-object structures' GValues made without GObject's calls (gst/objects/plain_values.h)
 * are what g_value_init + g_value_set_* make, byte for byte, on this build's GLib; structures of
 * them copy, compare, serialize and free as usual. CPU only. */
#include "gst/objects/plain_values.h"

#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstring>

namespace {

using namespace dlainfer::objects::plain_values;

/* g_value_init + g_value_set_*, then `plain`: the same bytes, and both free alike. */
template <typename Set>
void expect_same (GValue plain, GType type, Set set, const char *what)
{
  GValue made = G_VALUE_INIT;
  g_value_init (&made, type);
  set (&made);
  EXPECT_EQ (std::memcmp (&plain, &made, sizeof (GValue)), 0) << what;
  g_value_unset (&made);
  g_value_unset (&plain);
}

TEST (PlainValues, SameBytesAsGObject)
{
  expect_same (
      int_value (-7), G_TYPE_INT, [] (GValue *v) { g_value_set_int (v, -7); }, "int");
  expect_same (
      uint_value (7u), G_TYPE_UINT, [] (GValue *v) { g_value_set_uint (v, 7u); }, "uint");
  expect_same (
      uint64_value (G_MAXUINT64 - 1), G_TYPE_UINT64,
      [] (GValue *v) { g_value_set_uint64 (v, G_MAXUINT64 - 1); }, "uint64");
  expect_same (
      boolean_value (true), G_TYPE_BOOLEAN, [] (GValue *v) { g_value_set_boolean (v, TRUE); }, "true");
  expect_same (
      boolean_value (false), G_TYPE_BOOLEAN, [] (GValue *v) { g_value_set_boolean (v, FALSE); }, "false");
  expect_same (
      double_value (0.25), G_TYPE_DOUBLE, [] (GValue *v) { g_value_set_double (v, 0.25); }, "double");
  expect_same (
      float_value (0.75f), G_TYPE_FLOAT, [] (GValue *v) { g_value_set_float (v, 0.75f); }, "float");
  const char *label = g_intern_string ("green");
  expect_same (
      interned_string_value (label), G_TYPE_STRING,
      [label] (GValue *v) { g_value_set_interned_string (v, label); }, "interned string");
}

/* A structure of plain values equals one set through GStreamer's API, and its copy shares the
 * interned string (a copy of an interned string value is not duplicated). */
TEST (PlainValues, StructureEqualsTheApiOne)
{
  const char *label = g_intern_string ("green");
  GstStructure *plain = gst_structure_new_empty ("result");
  const std::pair<const char *, GValue> fields[] = {{"label", interned_string_value (label)},
                                                    {"label_id", int_value (2)},
                                                    {"confidence", double_value (0.5)},
                                                    {"carried", boolean_value (true)},
                                                    {"age", uint_value (3)},
                                                    {"tracking-id", uint64_value (42)},
                                                    {"level", float_value (0.5f)}};
  for (auto [name, v] : fields)
    gst_structure_take_value (plain, name, &v);
  GstStructure *api =
      gst_structure_new ("result", "label", G_TYPE_STRING, "green", "label_id", G_TYPE_INT, 2, "confidence",
                         G_TYPE_DOUBLE, 0.5, "carried", G_TYPE_BOOLEAN, TRUE, "age", G_TYPE_UINT, 3u,
                         "tracking-id", G_TYPE_UINT64, guint64 (42), "level", G_TYPE_FLOAT, 0.5f, nullptr);
  EXPECT_TRUE (gst_structure_is_equal (plain, api));
  gchar *a = gst_structure_to_string (plain), *b = gst_structure_to_string (api);
  EXPECT_STREQ (a, b);
  g_free (a);
  g_free (b);
  GstStructure *copy = gst_structure_copy (plain);
  EXPECT_EQ (gst_structure_get_string (copy, "label"), label);
  gst_structure_free (copy);
  gst_structure_free (plain);
  gst_structure_free (api);
}

}  // namespace
