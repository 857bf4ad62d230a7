/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the dlainfer element, classification on GstDlaBaseInfer (see gstdlainfer.cpp for
 * its documentation). */
#pragma once

#include <vector>

#include "gst/gstdlabaseinfer.h"

G_BEGIN_DECLS

#define GST_TYPE_DLA_INFER (gst_dla_infer_get_type ())
G_DECLARE_FINAL_TYPE (GstDlaInfer, gst_dla_infer, GST, DLA_INFER, GstDlaBaseInfer)

GST_ELEMENT_REGISTER_DECLARE (dla_infer);

#define GST_TYPE_DLA_INFER_ACTIVATION (gst_dla_infer_activation_get_type ())
GType gst_dla_infer_activation_get_type (void);
#define GST_TYPE_DLA_INFER_INFERENCE_REGION (gst_dla_infer_inference_region_get_type ())
GType gst_dla_infer_inference_region_get_type (void);

G_END_DECLS

/* dlainfer's own properties (gstdlainferprops.cpp): post-processing, messages, roi-list. */
std::vector<dlainfer::Property> gst_dla_infer_properties ();
