/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlainfer-inspect --run: the model on every handle asked for, concurrently, and the report. */
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dla/loader.h"
#include "tools/inspect/options.h"

namespace inspect {

int run (const Options &o, const std::shared_ptr<const dla::Library> &lib, const std::vector<uint8_t> &bytes);

}  // namespace inspect
