/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the dladetect element, detection on GstDlaBaseInfer (see gstdladetect.cpp for its
 * documentation; docs/detection.md for the decoders). */
#pragma once

#include "gst/gstdlabaseinfer.h"

G_BEGIN_DECLS

#define GST_TYPE_DLA_DETECT (gst_dla_detect_get_type ())
G_DECLARE_FINAL_TYPE (GstDlaDetect, gst_dla_detect, GST, DLA_DETECT, GstDlaBaseInfer)

GST_ELEMENT_REGISTER_DECLARE (dla_detect);

#define GST_TYPE_DLA_DETECT_DECODER (gst_dla_detect_decoder_get_type ())
GType gst_dla_detect_decoder_get_type (void);

G_END_DECLS
