/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla's use of the independent layout oracle (tests/oracle): every model's I/O views checked
 * at load, and (SWDLA_CHECK_LAYOUT=1, read in settings.h) each task's input bytes checked for
 * non-zero padding. */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "model.h"

namespace swdla {

/* "" when every I/O tensor's view (tensor_layout.h) agrees with the oracle; else which and where. */
std::string layout_disagreement (const Model &model);

/* "" when the bytes of input `spec` hold zeros wherever the oracle says padding. */
std::string input_padding_problem (const TensorSpec &spec, const uint8_t *bytes, size_t size);

}  // namespace swdla
