/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cuDLA's tensor descriptors as the loadable gives them (dla/descriptor_map.h): any bytes of a
 * descriptor, read as input and as output. A mapped tensor's view must lie within its size. */
#include <cstdint>
#include <cstring>

#include "dla/descriptor_map.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  cudlaModuleTensorDescriptor d;
  std::memset (&d, 0, sizeof d);
  std::memcpy (&d, data, size < sizeof d ? size : sizeof d);
  for (dla::Direction dir : {dla::Direction::kInput, dla::Direction::kOutput}) {
    dla::TensorInfo t;
    const dla::Status st = dla::map_descriptor (d, dir, &t);
    if (!st.ok ()) {
      fuzz::check (!st.message.empty (), "a refusal names its cause");
      continue;
    }
    fuzz::check (t.view.size > 0 && uint64_t (t.view.size) <= d.size, "a mapped view lies within the size");
    fuzz::check (t.view.offset (t.view.n - 1, t.view.c - 1, t.view.h - 1, t.view.w - 1) < t.view.size,
                 "the last element lies within the view");
  }
  (void)dla::describe_raw (d);
  (void)dla::descriptor_name (d);
  return 0;
}
