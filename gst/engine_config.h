/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the engine an element's settings ask for (gst/open_model.cpp opens it). Apart so
 * that what reaches the engine (dla-core above all) is tested without a DLA. No GStreamer. */
#pragma once

#include <string>

#include "dla/loaded_model.h"
#include "gst/settings.h"

namespace dlainfer {

/* The engine's configuration for settings `s`, its user named `user` in messages. */
dla::EngineConfig engine_config (const Settings &s, const std::string &user);

}  // namespace dlainfer
