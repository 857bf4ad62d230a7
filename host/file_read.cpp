/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/file_read.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace host {

Status read_whole_file (const std::string &path, size_t max_bytes, const char *what, std::string *out)
{
  const std::string name = std::string (what) + " '" + path + "'";
  struct stat st;
  if (stat (path.c_str (), &st) != 0) {
    const int err = errno;
    return Status::Error (Code::kNotFound,
                          name + (err == ENOENT ? std::string (" does not exist")
                                                : std::string (" cannot be read: ") + std::strerror (err)));
  }
  if (S_ISDIR (st.st_mode))
    return Status::Error (Code::kNotFound, name + " is a directory, not a file");
  if (!S_ISREG (st.st_mode))
    return Status::Error (Code::kSettings,
                          name + " is not a regular file (a device, FIFO or socket): give a file");
  if (size_t (st.st_size) > max_bytes)
    return Status::Error (Code::kSettings, name + " is " + std::to_string (st.st_size) +
                                               " bytes, more than the " + std::to_string (max_bytes) +
                                               " such a file can be: is it the right file?");
  std::ifstream in (path, std::ios::binary);
  if (!in) {
    const int err = errno;
    return Status::Error (Code::kNotFound, name + " cannot be read: " + std::strerror (err));
  }
  std::string bytes (size_t (st.st_size), '\0');
  in.read (&bytes[0], std::streamsize (bytes.size ()));
  if (size_t (in.gcount ()) != bytes.size ())
    return Status::Error (Code::kSettings, name + " cannot be read: it ended after " +
                                               std::to_string (in.gcount ()) + " of " +
                                               std::to_string (bytes.size ()) + " bytes");
  *out = std::move (bytes);
  return Status::Ok ();
}

}  // namespace host
