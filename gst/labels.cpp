#include "labels.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace labels {
namespace {

void trim_right (std::string *s)
{
  while (!s->empty () && (s->back () == ' ' || s->back () == '\t' || s->back () == '\r'))
    s->pop_back ();
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
  /* DeepStream writes all labels on one line separated by ';': recognise and explain. */
  if (result.size () == 1 && result[0].find (';') != std::string::npos) {
    *error = "the labels file holds one line of ';'-separated labels (DeepStream style); dlainfer wants one label "
             "per line: convert it with  tr ';' '\\n' < old.txt > new.txt";
    return false;
  }
  *out = std::move (result);
  return true;
}

bool load (const std::string &path, std::vector<std::string> *out, std::string *error, bool *not_found)
{
  *not_found = false;
  std::ifstream in (path, std::ios::binary);
  if (!in) {
    const int err = errno;
    *not_found = err == ENOENT;
    *error = "cannot open labels file '" + path + "': " + std::strerror (err);
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf ();
  if (in.bad ()) {
    *error = "cannot read labels file '" + path + "'";
    return false;
  }
  if (!parse (text.str (), out, error)) {
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
