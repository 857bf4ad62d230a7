/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/modelinfo/modelinfo.h"

#include <glib.h>

#include <cstdlib>
#include <memory>

namespace dlainfer {
namespace {

constexpr const char *kSection = "modelinfo";
constexpr const char *kFix =
    "upstream's modelinfo-generator.py or pipelines/write-modelinfo.py write a valid one";

struct KeyFileFree {
  void operator() (GKeyFile *kf) const { g_key_file_free (kf); }
};
using KeyFile = std::unique_ptr<GKeyFile, KeyFileFree>;

/* Values are quoted in messages as written: a control byte (GKeyFile turns "\n" into a newline)
 * is shown escaped, so that every message stays one line. */
std::string printable (const std::string &text)
{
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c != 0x7f) {
      out += char (c);
    } else {
      char hex[8];
      g_snprintf (hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

/* A string value, "" when absent; a PLACEHOLDER value warns (as upstream) and reads as absent. */
std::string value (GKeyFile *kf, const char *group, const char *key, ModelInfo *mi)
{
  gchar *v = g_key_file_get_string (kf, group, key, nullptr);
  std::string out = v ? v : "";
  g_free (v);
  if (g_str_has_prefix (out.c_str (), "PLACEHOLDER")) {
    mi->warnings.push_back (printable ("'" + mi->path + "': [" + group + "] " + key + " is '" + out +
                                       "', a placeholder: ignored; give the real value"));
    return "";
  }
  return out;
}

bool fail (std::string *error, const ModelInfo &mi, const std::string &what)
{
  *error = printable ("The model info file '" + mi.path + "' " + what);
  return false;
}

bool parse_version (GKeyFile *kf, ModelInfo *mi, std::string *error)
{
  if (!g_key_file_has_group (kf, kSection))
    return fail (error, *mi,
                 "has no [modelinfo] section: format 1.0 starts with [modelinfo] and version=1.0 (" +
                     std::string (kFix) + ")");
  mi->version = value (kf, kSection, "version", mi);
  if (mi->version.empty ())
    return fail (error, *mi, "has no version in [modelinfo]: add version=1.0");
  char *end = nullptr;
  const long major = std::strtol (mi->version.c_str (), &end, 10);
  char *minor_end = nullptr;
  const long minor = *end == '.' ? std::strtol (end + 1, &minor_end, 10) : -1;
  if (end == mi->version.c_str () || minor < 0 || minor_end == end + 1 || *minor_end != '\0')
    return fail (error, *mi, "has version '" + mi->version + "', not Major.Minor: write version=1.0");
  if (major != 1)
    return fail (error, *mi,
                 "has version " + mi->version + "; dlainfer reads format 1.x: regenerate it as version 1.0");
  if (minor > 0)
    mi->warnings.push_back ("'" + mi->path + "': version " + mi->version +
                            " is newer than 1.0: keys of later versions are ignored");
  mi->group_id = value (kf, kSection, "group-id", mi);
  return true;
}

bool one_of (const std::string &v, std::initializer_list<const char *> names)
{
  for (const char *n : names)
    if (v == n)
      return true;
  return false;
}

/* The section's keys as written; placeholders left out (value () warns of those it reads). */
void keep_keys (GKeyFile *kf, ModelInfo *mi)
{
  gchar **keys = g_key_file_get_keys (kf, kSection, nullptr, nullptr);
  for (gchar **k = keys; k && *k; ++k) {
    gchar *v = g_key_file_get_string (kf, kSection, *k, nullptr);
    if (v && !g_str_has_prefix (v, "PLACEHOLDER"))
      mi->keys[*k] = v;
    g_free (v);
  }
  g_strfreev (keys);
}

bool parse_our_keys (GKeyFile *kf, ModelInfo *mi, std::string *error)
{
  keep_keys (kf, mi);
  mi->channel_order = value (kf, kSection, "dlainfer-channel-order", mi);
  if (!mi->channel_order.empty () && !one_of (mi->channel_order, {"rgb", "bgr"}))
    return fail (error, *mi, "has dlainfer-channel-order=" + mi->channel_order + ": write rgb or bgr");
  mi->resize_mode = value (kf, kSection, "dlainfer-resize-mode", mi);
  if (!mi->resize_mode.empty () && !one_of (mi->resize_mode, {"stretch", "letterbox", "center-crop"}))
    return fail (error, *mi,
                 "has dlainfer-resize-mode=" + mi->resize_mode + ": write stretch, letterbox or center-crop");
  mi->labels = value (kf, kSection, "dlainfer-labels", mi);
  if (!mi->labels.empty () && !g_path_is_absolute (mi->labels.c_str ())) {
    gchar *dir = g_path_get_dirname (mi->path.c_str ());
    gchar *full = g_build_filename (dir, mi->labels.c_str (), nullptr);
    mi->labels = full;
    g_free (full);
    g_free (dir);
  }
  return true;
}

bool parse_dims (GKeyFile *kf, const char *group, ModelInfoTensor *t, ModelInfo *mi, std::string *error)
{
  if (!g_key_file_has_key (kf, group, "dims", nullptr))
    return true;
  gsize n = 0;
  GError *err = nullptr;
  gint *dims = g_key_file_get_integer_list (kf, group, "dims", &n, &err);
  if (!dims) {
    const std::string why = err ? err->message : "empty";
    g_clear_error (&err);
    return fail (error, *mi,
                 "has dims in [" + std::string (group) + "] that are not a comma-separated list of " +
                     "integers (" + why + "): write e.g. dims=1,3,224,224 (-1: any)");
  }
  t->dims.assign (dims, dims + n);
  g_free (dims);
  return true;
}

bool parse_ranges (const std::string &text, ModelInfoTensor *t, const ModelInfo &mi, std::string *error)
{
  gchar **pairs = g_strsplit (text.c_str (), ";", -1);
  bool ok = true;
  for (gchar **p = pairs; ok && *p; ++p) {
    char *end = nullptr;
    const double lo = g_ascii_strtod (*p, &end);
    ok = end != *p && *end == ',';
    char *end2 = nullptr;
    const double hi = ok ? g_ascii_strtod (end + 1, &end2) : 0.0;
    ok = ok && end2 != end + 1 && *end2 == '\0' && lo < hi;
    t->ranges.emplace_back (lo, hi);
  }
  g_strfreev (pairs);
  if (!ok)
    return fail (error, mi,
                 "has ranges=" + text + " in [" + t->name +
                     "]: write one min,max pair (min < max) per channel, separated by ';', e.g. "
                     "ranges=0.0,1.0;0.0,1.0;0.0,1.0");
  return true;
}

constexpr std::initializer_list<const char *> kTypes = {"int4",    "int8",    "int16",   "int32",   "int64",
                                                        "uint4",   "uint8",   "uint16",  "uint32",  "uint64",
                                                        "float16", "float32", "float64", "bfloat16"};

bool parse_tensor (GKeyFile *kf, const char *group, ModelInfo *mi, std::string *error)
{
  ModelInfoTensor t;
  t.name = group;
  const std::string where = " in [" + t.name + "]";
  t.dir = value (kf, group, "dir", mi);
  if (!t.dir.empty () && !one_of (t.dir, {"input", "output"}))
    return fail (error, *mi, "has dir=" + t.dir + where + ": write input or output");
  t.type = value (kf, group, "type", mi);
  if (!t.type.empty () && !one_of (t.type, kTypes))
    return fail (error, *mi, "has type=" + t.type + where + ": write one of upstream's names (float32, ...)");
  t.id = value (kf, group, "id", mi);
  const std::string order = value (kf, group, "dims-order", mi);
  if (!order.empty () && !one_of (order, {"row-major", "col-major"}))
    return fail (error, *mi, "has dims-order=" + order + where + ": write row-major or col-major");
  t.col_major = order == "col-major";
  const std::string ranges = value (kf, group, "ranges", mi);
  if (!parse_dims (kf, group, &t, mi, error) || (!ranges.empty () && !parse_ranges (ranges, &t, *mi, error)))
    return false;
  mi->tensors.push_back (std::move (t));
  return true;
}

}  // namespace

const ModelInfoTensor *ModelInfo::find (const std::string &name) const
{
  for (const ModelInfoTensor &t : tensors)
    if (t.name == name)
      return &t;
  return nullptr;
}

std::string find_modelinfo (const std::string &model_path)
{
  if (model_path.empty ())
    return "";
  std::string candidate = model_path + ".modelinfo";
  if (g_file_test (candidate.c_str (), G_FILE_TEST_EXISTS))
    return candidate;
  const size_t slash = model_path.rfind ('/');
  const size_t dot = model_path.rfind ('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return "";
  candidate = model_path.substr (0, dot) + ".modelinfo";
  return g_file_test (candidate.c_str (), G_FILE_TEST_EXISTS) ? candidate : "";
}

bool parse_modelinfo (const std::string &text, const std::string &path, ModelInfo *out, std::string *error)
{
  ModelInfo mi;
  mi.path = path;
  KeyFile kf (g_key_file_new ());
  g_key_file_set_list_separator (kf.get (), ',');
  GError *err = nullptr;
  if (!g_key_file_load_from_data (kf.get (), text.data (), text.size (), G_KEY_FILE_NONE, &err)) {
    const std::string why = err->message;
    g_clear_error (&err);
    return fail (error, mi, "is not an INI file (" + why + "): fix the line named, or remove the file");
  }
  if (!parse_version (kf.get (), &mi, error) || !parse_our_keys (kf.get (), &mi, error))
    return false;
  gchar **groups = g_key_file_get_groups (kf.get (), nullptr);
  bool ok = true;
  for (gchar **g = groups; ok && *g; ++g)
    ok = g_strcmp0 (*g, kSection) == 0 || parse_tensor (kf.get (), *g, &mi, error);
  g_strfreev (groups);
  if (ok)
    *out = std::move (mi);
  return ok;
}

bool load_modelinfo (const std::string &path, ModelInfo *out, std::string *error)
{
  gchar *text = nullptr;
  gsize len = 0;
  GError *err = nullptr;
  if (!g_file_get_contents (path.c_str (), &text, &len, &err)) {
    *error = "Cannot read the model info file '" + path + "': " + err->message +
             ": make it readable, or remove it";
    g_clear_error (&err);
    return false;
  }
  const bool ok = parse_modelinfo (std::string (text, len), path, out, error);
  g_free (text);
  return ok;
}

std::map<std::string, std::string> decoder_keys (const ModelInfo &mi)
{
  std::map<std::string, std::string> keys = mi.keys;
  std::string ids;
  for (const ModelInfoTensor &t : mi.tensors)
    if (t.dir != "input" && !t.id.empty ())
      ids += (ids.empty () ? "" : ",") + t.id;
  if (!ids.empty ())
    keys["tensor-ids"] = ids;
  return keys;
}

}  // namespace dlainfer
