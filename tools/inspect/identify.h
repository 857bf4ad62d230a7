/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlainfer-inspect: what a file is, from its bytes alone (no cuDLA library, no GPU). */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace inspect {

/* Prints the file's kind; returns the exit code for a file that cannot load (kOk otherwise). */
int identify (const std::string &path, const std::vector<uint8_t> &bytes);

}  // namespace inspect
