/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the plugin. It registers its elements on any machine: a missing cuDLA library,
 * DLA or CUDA device is reported when an element starts, never as a failed plugin load. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "gst/gstdladetect.h"
#include "gst/gstdlainfer.h"
#include "gst/gstdlapublish.h"
#include "gst/gstdlatrack.h"

static gboolean plugin_init (GstPlugin *plugin)
{
  gboolean ok = GST_ELEMENT_REGISTER (dla_infer, plugin);
  ok &= GST_ELEMENT_REGISTER (dla_detect, plugin);
  ok &= GST_ELEMENT_REGISTER (dla_track, plugin);
  ok &= GST_ELEMENT_REGISTER (dla_publish, plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, dlainfer,
                   "Video classification and detection on the NVIDIA DLA through cuDLA", plugin_init, VERSION,
                   "LGPL", GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
