/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the dlatrack element, an IoU tracker on the host (gstdlatrack.cpp says more). */
#pragma once

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_DLA_TRACK (gst_dla_track_get_type ())
G_DECLARE_FINAL_TYPE (GstDlaTrack, gst_dla_track, GST, DLA_TRACK, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (dla_track);

G_END_DECLS
