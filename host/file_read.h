/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: reading a model or labels file whole, with the checks a path from a property needs:
 * it exists, it is a regular file (not a directory, FIFO or device, which would block or never
 * end), and it is not absurdly large for what it is. */
#pragma once

#include <cstddef>
#include <string>

#include "host/status.h"

namespace host {

/* Reads `path` into `out`. `what` names the file in messages ("model file", "labels file"). Missing,
 * a directory or unreadable -> kNotFound; not a regular file or larger than `max_bytes` -> kSettings. */
Status read_whole_file (const std::string &path, size_t max_bytes, const char *what, std::string *out);

}  // namespace host
