/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/labels.h"

#include <cstdint>
#include <cstring>

#include "host/file_read.h"

namespace labels {
namespace {

void trim_right (std::string *s)
{
  while (!s->empty () && (s->back () == ' ' || s->back () == '\t' || s->back () == '\r'))
    s->pop_back ();
}

/* Well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF). */
bool valid_utf8 (const std::string &s)
{
  size_t i = 0;
  while (i < s.size ()) {
    const auto b = static_cast<unsigned char> (s[i]);
    size_t len;
    uint32_t cp;
    if (b < 0x80) {
      ++i;
      continue;
    } else if ((b & 0xE0) == 0xC0) {
      len = 2;
      cp = b & 0x1F;
    } else if ((b & 0xF0) == 0xE0) {
      len = 3;
      cp = b & 0x0F;
    } else if ((b & 0xF8) == 0xF0) {
      len = 4;
      cp = b & 0x07;
    } else {
      return false;
    }
    if (i + len > s.size ())
      return false;
    for (size_t k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char> (s[i + k]);
      if ((c & 0xC0) != 0x80)
        return false;
      cp = cp << 6 | (c & 0x3F);
    }
    static const uint32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for_len[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += len;
  }
  return true;
}

}  // namespace

bool parse (const std::string &text, std::vector<std::string> *out, std::string *error)
{
  std::vector<std::string> result;
  size_t start = 0;
  if (text.compare (0, 3, "\xEF\xBB\xBF") == 0)
    start = 3; /* UTF-8 BOM, as Windows editors write it */
  while (start < text.size ()) {
    size_t end = text.find ('\n', start);
    if (end == std::string::npos)
      end = text.size ();
    std::string line = text.substr (start, end - start);
    trim_right (&line);
    result.push_back (std::move (line));
    start = end + 1;
  }
  /* Blank lines at the end are not classes. */
  while (!result.empty () && result.back ().empty ())
    result.pop_back ();
  if (result.empty ()) {
    *error = "the labels file holds no labels (one label per line expected)";
    return false;
  }
  /* Labels become GQuarks and message strings, which must be UTF-8. An empty line inside the list
   * stays a class (the indices after it must not shift) and gets its index name, not "". */
  for (size_t i = 0; i < result.size (); ++i) {
    if (result[i].empty ())
      result[i] = "class_" + std::to_string (i);
    if (result[i].find ('\0') != std::string::npos) {
      *error =
          "line " + std::to_string (i + 1) + " holds a NUL byte: save the labels file as plain UTF-8 text";
      return false;
    }
    if (!valid_utf8 (result[i])) {
      *error = "line " + std::to_string (i + 1) +
               " is not valid UTF-8: save the labels file as UTF-8 (e.g. iconv -f "
               "latin1 -t utf-8 old.txt > new.txt)";
      return false;
    }
  }
  /* DeepStream writes all labels on one line separated by ';': recognise and explain. */
  if (result.size () == 1 && result[0].find (';') != std::string::npos) {
    *error =
        "the labels file holds one line of ';'-separated labels (DeepStream style); dlainfer wants one label "
        "per line: convert it with  tr ';' '\\n' < old.txt > new.txt";
    return false;
  }
  *out = std::move (result);
  return true;
}

bool load (const std::string &path, std::vector<std::string> *out, std::string *error, bool *not_found)
{
  /* 16 MiB is far more than any label list; a bigger "labels file" is the wrong file. */
  constexpr size_t kMaxLabelsBytes = size_t (16) << 20;
  std::string text;
  const host::Status st = host::read_whole_file (path, kMaxLabelsBytes, "labels file", &text);
  if (!st.ok ()) {
    *not_found = st.code == host::Code::kNotFound;
    *error = st.message;
    return false;
  }
  *not_found = false;
  if (!parse (text, out, error)) {
    *error = "labels file '" + path + "': " + *error;
    return false;
  }
  return true;
}

std::string name_for (const std::vector<std::string> &labels, int class_id)
{
  if (class_id >= 0 && size_t (class_id) < labels.size ())
    return labels[size_t (class_id)];
  return "class_" + std::to_string (class_id);
}

}  // namespace labels
