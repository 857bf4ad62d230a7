/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla: the text spec the model tool reads (FORMAT.md, "Spec files"), turned into models. */
#pragma once

#include <string>
#include <vector>

#include "model.h"

namespace swdla {

/* One file to write: a model (with optional labels), or deliberately broken bytes. */
struct SpecOutput {
  std::string name;                /* file stem: NAME.swdla (+ NAME.labels) */
  std::vector<uint8_t> bytes;      /* the file */
  std::vector<std::string> labels; /* empty: no labels file */
};

/* Parses a spec and builds every model in it; a reason naming the line on failure. */
bool build_spec (const std::string &text, std::vector<SpecOutput> *out, std::string *why);

}  // namespace swdla
