/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: one frame's results as one JSON object, on dlapublish's publishing thread. The
 * fields (DL Streamer's gvametaconvert names where it has them) and their JSON Schema:
 * docs/publish.md, docs/publish.schema.json. One line: no newline inside, none at the end. */
#pragma once

#include <string>

#include "gst/publish/frame_record.h"

namespace dlainfer {
namespace publish {

/* Appends the record's JSON to *out (cleared first); `source` names the stream. */
void frame_json (const FrameRecord &record, const std::string &source, std::string *out);

}  // namespace publish
}  // namespace dlainfer
