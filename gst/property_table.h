/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a class's properties as a table (gstdlabaseinfer.h), so that one set_property
 * serves the base and every subclass: it refuses a GST_PARAM_MUTABLE_READY property above READY,
 * marks what the user set, and says on the bus what a setter found wrong. A row is a spec and two
 * functions; `field<&Settings::x>` makes the row of a property that is one field. */
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "gst/gstdlabaseinfer.h"
#include "gst/settings.h"

namespace dlainfer {

/* Model-defining (read at start), per-frame, read-only. */
constexpr auto kReadyFlags =
    GParamFlags (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
constexpr auto kPlayingFlags =
    GParamFlags (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
constexpr auto kReadOnlyFlags = GParamFlags (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

/* The enum type `name` of `values`, registered once (`type`: the get_type function's static). */
inline GType enum_type (GType *type, const char *name, const GEnumValue *values)
{
  if (g_once_init_enter (type))
    g_once_init_leave (type, g_enum_register_static (name, values));
  return *type;
}

/* What a setter tells set_property, which says it once the object lock is released. */
struct SetNote {
  std::string bad;       /* a value start () will refuse: a warning on the bus */
  const char *user_name; /* the setting the user set (mean-string sets mean) */
  bool unset = false;    /* back to the default: no longer the user's */
  bool warn = false;     /* `bad` also as a g_warning: a wrong type, as GObject warns for one */
};

/* One property. set and get run with the object lock held, get without it where `locked` is false
 * (it takes the lock it needs). */
struct Property {
  using Set = void (*) (GstDlaBaseInfer *self, Settings &s, const GValue *value, SetNote *note);
  using Get = void (*) (GstDlaBaseInfer *self, const Settings &s, GValue *value);
  GParamSpec *spec;
  Set set;
  Get get;
  bool locked = true;
};

namespace property_value {

inline void from (const GValue *v, int *out)
{
  *out = g_value_get_int (v);
}
inline void from (const GValue *v, uint32_t *out)
{
  *out = g_value_get_uint (v);
}
inline void from (const GValue *v, float *out)
{
  *out = g_value_get_float (v);
}
inline void from (const GValue *v, bool *out)
{
  *out = g_value_get_boolean (v);
}
inline void from (const GValue *v, std::string *out)
{
  const gchar *s = g_value_get_string (v);
  *out = s ? s : "";
}
template <typename E, std::enable_if_t<std::is_enum<E>::value, int> = 0>
void from (const GValue *v, E *out)
{
  *out = E (g_value_get_enum (v));
}

inline void to (int x, GValue *v)
{
  g_value_set_int (v, x);
}
inline void to (uint32_t x, GValue *v)
{
  g_value_set_uint (v, x);
}
inline void to (float x, GValue *v)
{
  g_value_set_float (v, x);
}
inline void to (bool x, GValue *v)
{
  g_value_set_boolean (v, x);
}
/* An empty string reads back as NULL (unset). */
inline void to (const std::string &x, GValue *v)
{
  g_value_set_string (v, x.empty () ? nullptr : x.c_str ());
}
template <typename E, std::enable_if_t<std::is_enum<E>::value, int> = 0>
void to (E x, GValue *v)
{
  g_value_set_enum (v, int (x));
}

}  // namespace property_value

/* The property whose value is Settings field `F`; `checked`: check () runs on every set, so that a
 * value start () will refuse is said at once. */
template <auto F, bool checked = false>
Property field (GParamSpec *spec)
{
  return {spec,
          [] (GstDlaBaseInfer *, Settings &s, const GValue *v, SetNote *note) {
            property_value::from (v, &(s.*F));
            if (checked)
              check (s, &note->bad);
          },
          [] (GstDlaBaseInfer *, const Settings &s, GValue *v) { property_value::to (s.*F, v); }};
}

}  // namespace dlainfer
