/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla: cuDLA tensor descriptors filled as a real Orin loadable fills them (as far as the
 * reference knows, section 5.4), or in one of the other plausible readings (README.md). */
#pragma once

#include <cstdint>
#include <string>

#include "dla/abi/cudla_abi.h"
#include "model.h"

namespace swdla {

/* Alternative readings, combinable ("c-padded,strides-zero"); 0 is the default "orin" reading. */
enum Reading : uint32_t {
  kReadingOrin = 0,
  kReadingCPadded = 1u << 0,     /* c = padded channel count (chw16 16, chw32 32, hwc4 4) */
  kReadingCReal = 1u << 1,       /* c = real channel count everywhere (hwc4 too: 3) */
  kReadingStridesZero = 1u << 2, /* stride[] all zero */
  kReadingStridesWhcn = 1u << 3, /* stride[] = pixel vector, row, plane, batch bytes */
  kReadingCodesNchw = 1u << 4,   /* chw16/chw32 say NCHW; FP16 dla_linear says pixel format R8 */
  kReadingCodesUnknown = 1u << 5 /* format, category, pixel format unknown */
};

/* Parses SWDLA_DESCRIPTOR_READING's value (NULL or "" or "orin" = default). */
bool parse_reading (const char *text, uint32_t *flags, std::string *why);

/* The names parse_reading knows, for messages. */
const char *reading_names ();

void fill_descriptor (const TensorSpec &t, uint32_t reading, cudlaModuleTensorDescriptor *d);

}  // namespace swdla
