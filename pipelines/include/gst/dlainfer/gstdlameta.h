/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Build tree only (pipelines/meson.build): the example application includes the meta header by its
 * installed name, <gst/dlainfer/gstdlameta.h>, as any application does; in the build tree that name
 * leads here, and from here to the meta library's own header (gstdlameta_dep's include directory).
 * Installed, the real header has this name and this file plays no part. */
#pragma once

#include "gst/meta/gstdlameta.h"
