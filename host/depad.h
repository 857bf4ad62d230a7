/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the host reference of the de-pad (common/depad_types.h): an output tensor from its
 * DLA layout (through tensor::View::offset, the one definition of the layouts) into the dense form
 * applications read. No GStreamer, no CUDA. */
#pragma once

#include "common/depad_types.h"

namespace depad {

/* Writes the n x c x h x w values of the tensor at `data` (host memory, view.size bytes) into `out`
 * (dense_bytes (view, type) bytes): pad lanes and row tails skipped. */
void depad (const tensor::View &view, const void *data, float int8_scale, Type type, void *out);

}  // namespace depad
