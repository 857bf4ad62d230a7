/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla's model file (tests/swdla/model.h, FORMAT.md; version 2, graphs): any bytes parse or are
 * refused with one line; a model that parses writes back to bytes that parse to the same bytes. */
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "model.h"

extern "C" int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  swdla::Model m;
  std::string why;
  if (!swdla::parse_model (data, size, &m, &why)) {
    fuzz::check_one_line_error (why, "swdla::parse_model");
    return 0;
  }
  const std::vector<uint8_t> bytes = swdla::serialize_model (m);
  swdla::Model again;
  fuzz::check (swdla::parse_model (bytes.data (), bytes.size (), &again, &why),
               "a written model parses again");
  fuzz::check (swdla::serialize_model (again) == bytes, "a written model reads back the same");
  return 0;
}
