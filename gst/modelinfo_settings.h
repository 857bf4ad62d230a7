/* gst-dlainfer: the settings a start uses: the properties the user set, then what the model's
 * .modelinfo gives (input ranges as mean/std, our dlainfer-* keys), then the defaults; and where
 * each came from (docs/modelinfo.md). */
#pragma once

#include <gst/gst.h>

#include <memory>

#include "gst/modelinfo.h"
#include "gst/settings.h"
#include "host/status.h"

namespace dlainfer {

/* `user` with the file's values (mi may be null) for what the user did not set, defaults for the
 * rest; out->origin names the source of each. */
Settings apply_modelinfo (const Settings &user, std::shared_ptr<const ModelInfo> mi);

/* Copies into `shared` (the element's settings, object lock held) the values `effective` took from
 * a file or the defaults, so that frames and get_property see what runs. */
void adopt_settings (Settings *shared, const Settings &effective);

/* start: reads the model's .modelinfo (when there is one), posts its warnings on the bus, and
 * returns the settings to start with. A file that cannot be read or parsed: *st says why. */
Settings settings_at_start (GstElement *element, Settings *shared, host::Status *st);

}  // namespace dlainfer
