/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: GValues of fundamental types made without GObject's type machinery, for the
 * structures written per object (object_output.cpp). g_value_init + g_value_set_int amount to a
 * type and a number in the value's public fields (GValue's layout is GLib's stable ABI), but each
 * call looks the type up and checks it: with 26 values per object that was a quarter of the result
 * structure's cost. Each value here is byte for byte what the two calls leave (test
 * PlainValues.SameBytesAsGObject checks it on every build). The value is then handed over with
 * gst_structure_id_take_value or gst_value_array_append_and_take_value, which own it from then on
 * and free it through the usual g_value_unset. */
#pragma once

#include <glib-object.h>

#include <type_traits>
#include <utility>

namespace dlainfer {
namespace objects {
namespace plain_values {

/* The type of a value's data words (GValue's anonymous union). */
using Data = std::remove_reference_t<decltype (std::declval<GValue &> ().data[0])>;

/* A value of `type` whose first data word holds `v` in `member`, the rest zero. */
template <typename T>
GValue with (GType type, T Data::*member, T v)
{
  GValue g = G_VALUE_INIT;
  g.g_type = type;
  g.data[0].*member = v;
  return g;
}

inline GValue int_value (gint v)
{
  return with (G_TYPE_INT, &Data::v_int, v);
}

inline GValue uint_value (guint v)
{
  return with (G_TYPE_UINT, &Data::v_uint, v);
}

inline GValue uint64_value (guint64 v)
{
  return with (G_TYPE_UINT64, &Data::v_uint64, v);
}

inline GValue boolean_value (bool v)
{
  return with (G_TYPE_BOOLEAN, &Data::v_int, gint (v ? TRUE : FALSE));
}

inline GValue double_value (double v)
{
  return with (G_TYPE_DOUBLE, &Data::v_double, v);
}

inline GValue float_value (float v)
{
  return with (G_TYPE_FLOAT, &Data::v_float, v);
}

/* `s` must live for ever (interned, a quark's string, a literal): the value shares it, never frees it,
 * and its copies share it too (g_value_set_interned_string's flags). */
inline GValue interned_string_value (const char *s)
{
  GValue g = with (G_TYPE_STRING, &Data::v_pointer, static_cast<gpointer> (const_cast<char *> (s)));
  g.data[1].v_uint = G_VALUE_NOCOPY_CONTENTS | G_VALUE_INTERNED_STRING;
  return g;
}

}  // namespace plain_values
}  // namespace objects
}  // namespace dlainfer
