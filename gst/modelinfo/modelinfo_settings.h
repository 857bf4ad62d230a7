/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the settings a start uses: the properties the user set, then what the model's
 * .modelinfo gives (input ranges as mean/std, our dlainfer-* keys), then the defaults; and where
 * each came from (docs/modelinfo.md). */
#pragma once

#include <gst/gst.h>

#include <memory>

#include "gst/modelinfo/modelinfo.h"
#include "gst/settings.h"
#include "host/status.h"

namespace dlainfer {

/* What a later element of a model-instance-id that left `model` unset takes from the instance
 * (docs/architecture.md 8): its model, whose .modelinfo it reads as the definer did, and the
 * definer's labels file for when neither its own property nor that file names one. Empty: none
 * (the element sets `model`, or shares nothing). */
struct InstanceDefaults {
  std::string model;
  std::string labels;
};

/* When an element opens its model. At start, but for an element of a model-instance-id that left
 * `model` unset while no instance of that id exists yet: GStreamer starts a parsed pipeline's
 * branches last-first, so the element that sets `model` may start after it. It opens at its first
 * caps (or frame, or LATENCY query) instead: every element of the pipeline has started by then. */
enum class OpenAt { kStart, kFirstData };
OpenAt open_at (const Settings &user, bool instance_known);

/* `user` with the file's values (mi may be null) for what the user did not set, defaults for the
 * rest; out->origin names the source of each. */
Settings apply_modelinfo (const Settings &user, std::shared_ptr<const ModelInfo> mi);

/* `effective` (after apply_modelinfo) with the instance's labels for labels it left at the default;
 * origin "model-instance-id" then. */
Settings apply_instance (const Settings &effective, const InstanceDefaults &instance);

/* Copies into `shared` (the element's settings, object lock held) the values `effective` took from
 * a file or the defaults, so that frames and get_property see what runs. */
void adopt_settings (Settings *shared, const Settings &effective);

/* start: reads the model's .modelinfo (when there is one; the instance's model for an element that
 * left `model` unset), posts its warnings on the bus, and returns the settings to start with. A
 * file that cannot be read or parsed: *st says why. */
Settings settings_at_start (GstElement *element, Settings *shared, host::Status *st,
                            const InstanceDefaults &instance = {});

}  // namespace dlainfer
