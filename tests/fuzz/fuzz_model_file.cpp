/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The model file's first reading (dla/model_file.h): its kind from the magic, and the check of a
 * kind against each backend, on any bytes. */
#include <cstdint>

#include "dla/model_file.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const dla::ModelKind kind = dla::model_kind (data, size);
  fuzz::check (dla::model_kind_name (kind) != nullptr, "every kind has a name");
  for (const char *backend : {"dla", "swdla"}) {
    const dla::Status st = dla::check_model_for_backend (data, size, backend, "fuzz.bin");
    if (!st.ok ())
      fuzz::check (!st.message.empty (), "a refusal names its cause");
  }
  return 0;
}
