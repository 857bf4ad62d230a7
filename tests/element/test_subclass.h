/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "testdlainfer": an element on GstDlaBaseInfer written by the tests alone, as a second element of
 * the family would be: its own stage (the whole-frame classification, counted) and its own
 * properties, nothing of the base copied (docs/architecture.md 8, "The element classes"). */
#pragma once

#include <gst/gst.h>

namespace element_test {

/* Registers "testdlainfer" in this process (once). Its properties: max-detections (READY only),
 * box-threshold (any state), frames-published (read-only: frames its stage published). Also
 * "testdlanostage", a subclass that sets no make_stage. */
bool register_test_subclass ();

}  // namespace element_test
