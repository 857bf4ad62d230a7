/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: class labels, one per line (UTF-8; BOM, CRLF and trailing blanks tolerated).
 * Without a labels file, classes are named by index ("class_3"). No GStreamer. */
#pragma once

#include <string>
#include <vector>

namespace labels {

/* Reads `path`. On failure returns false with *error saying why; `*not_found` tells a missing
 * file (RESOURCE/NOT_FOUND) from an unusable one (RESOURCE/SETTINGS). */
bool load (const std::string &path, std::vector<std::string> *out, std::string *error, bool *not_found);

/* Parses the text of a labels file (see load). */
bool parse (const std::string &text, std::vector<std::string> *out, std::string *error);

/* The name shown for a class: its label, or "class_<id>" when there is none. */
std::string name_for (const std::vector<std::string> &labels, int class_id);

}  // namespace labels
