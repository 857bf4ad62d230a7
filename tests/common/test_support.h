/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer test support shared by every test program. */
#pragma once

#include <glib.h>

#include <cstdlib>
#include <string>

namespace dlainfer_test {

/* While alive, GLib/GStreamer warnings and criticals are recorded instead of failing the test. */
class ExpectLogs {
 public:
  ExpectLogs ();
  ~ExpectLogs ();
  int count () const;
  bool contains (const std::string &needle) const;
};

/* A file in the build's generated test data (tests/data), or in the source tree. */
inline std::string test_data (const std::string &name)
{
  const char *dir = g_getenv ("DLAINFER_TEST_DATA");
  return std::string (dir ? dir : ".") + "/" + name;
}

inline std::string source_path (const std::string &rel)
{
  const char *dir = g_getenv ("DLAINFER_SOURCE_ROOT");
  return std::string (dir ? dir : ".") + "/" + rel;
}

inline std::string build_path (const std::string &rel)
{
  const char *dir = g_getenv ("DLAINFER_BUILD_ROOT");
  return std::string (dir ? dir : ".") + "/" + rel;
}

}  // namespace dlainfer_test
