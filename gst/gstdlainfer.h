/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the dlainfer element (see gstdlainfer.cpp for its documentation). */
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_DLA_INFER (gst_dla_infer_get_type ())
G_DECLARE_FINAL_TYPE (GstDlaInfer, gst_dla_infer, GST, DLA_INFER, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (dla_infer);

G_END_DECLS
