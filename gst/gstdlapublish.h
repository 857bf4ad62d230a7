/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the dlapublish element, results to a file or an MQTT broker (gstdlapublish.cpp). */
#pragma once

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_DLA_PUBLISH (gst_dla_publish_get_type ())
G_DECLARE_FINAL_TYPE (GstDlaPublish, gst_dla_publish, GST, DLA_PUBLISH, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (dla_publish);

G_END_DECLS
