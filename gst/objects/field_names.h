/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: names of the fields of the structures written and read per object, made
 * once in the form this GStreamer keys fields by: a GQuark before 1.26, a GstIdStr from 1.26 on,
 * where the quark calls are deprecated wrappers that turn the quark into a GstIdStr on every call
 * (a string lookup and a length per field, per object). The strings named must live for ever
 * (literals, interned strings): neither form copies them. */
#pragma once

#include <gst/gst.h>

namespace dlainfer {
namespace objects {
namespace field_names {

#if GST_CHECK_VERSION(1, 26, 0)
/* Static strings only: it owns no memory, so a copy is a plain copy. */
using Name = GstIdStr;

inline Name name (const char *s)
{
  Name n = GST_ID_STR_INIT;
  gst_id_str_set_static_str (&n, s);
  return n;
}

inline GstStructure *new_structure (const Name &n)
{
  return gst_structure_new_id_str_empty (&n);
}

inline void take (GstStructure *s, const Name &field, GValue *v)
{
  gst_structure_id_str_take_value (s, &field, v);
}

inline const GValue *value (const GstStructure *s, const Name &field)
{
  return gst_structure_id_str_get_value (s, &field);
}

inline bool has_name (const GstStructure *s, const Name &n)
{
  return gst_id_str_is_equal (gst_structure_get_name_id_str (s), &n);
}
#else
using Name = GQuark;

inline Name name (const char *s)
{
  return g_quark_from_static_string (s);
}

inline GstStructure *new_structure (Name n)
{
  return gst_structure_new_id_empty (n);
}

inline void take (GstStructure *s, Name field, GValue *v)
{
  gst_structure_id_take_value (s, field, v);
}

inline const GValue *value (const GstStructure *s, Name field)
{
  return gst_structure_id_get_value (s, field);
}

inline bool has_name (const GstStructure *s, Name n)
{
  return gst_structure_get_name_id (s) == n;
}
#endif

}  // namespace field_names
}  // namespace objects
}  // namespace dlainfer
