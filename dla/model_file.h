/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: reading a model file and telling what it is from its first bytes.
 * An NVIDIA DLA loadable has "NVDA" at bytes 4..7; swdla's own models start with "SWDLAMDL"; a
 * serialized TensorRT engine (trtexec --saveEngine without --buildDLAStandalone) starts with "ftrt"
 * (what torch-tensorrt's engine serializer tests for). */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dla/status.h"

namespace dla {

enum class ModelKind { kNvidiaLoadable, kSwdla, kTensorRtEngine, kUnknown };

constexpr const char kSwdlaMagic[8] = {'S', 'W', 'D', 'L', 'A', 'M', 'D', 'L'};
constexpr const char kTensorRtMagic[4] = {'f', 't', 'r', 't'};

/* The whole file; missing, unreadable and empty files each get their own message with the path. */
Status read_model_file (const std::string &path, std::vector<uint8_t> *out);

ModelKind model_kind (const uint8_t *bytes, size_t size);
const char *model_kind_name (ModelKind kind);

/* Whether a model of this kind can load on `backend` ("dla" or "swdla"); kModel with the reason
 * (and, for unknown bytes, what a loadable is and the trtexec line that makes one) otherwise. */
Status check_model_for_backend (const uint8_t *bytes, size_t size, const std::string &backend,
                                const std::string &origin);

/* The trtexec command that builds a DLA loadable the element can use. */
extern const char *const kTrtexecRecipe;

}  // namespace dla
