/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A labels file (host/labels.h): any text gives labels or one line naming the cause. */
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "host/labels.h"

extern "C" int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const std::string text (reinterpret_cast<const char *> (data), size);
  std::vector<std::string> labels;
  std::string why;
  if (!labels::parse (text, &labels, &why)) {
    fuzz::check_one_line_error (why, "labels::parse");
    return 0;
  }
  fuzz::check (!labels.empty (), "a labels file that parses has a label");
  for (int id : {-1, 0, int (labels.size ()), 1 << 30})
    (void)labels::name_for (labels, id);
  return 0;
}
