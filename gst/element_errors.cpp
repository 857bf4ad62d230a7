/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: how the element reports a dla::Status on the bus (gstdlabaseinfer-private.h). */
#include "gst/gstdlabaseinfer-private.h"

#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace {

/* The GStreamer error domain and code a dla::Code stands for. */
void domain_of (dla::Code c, GQuark *domain, gint *code)
{
  *domain = GST_STREAM_ERROR;
  *code = GST_STREAM_ERROR_FAILED;
  switch (c) {
    case dla::Code::kOk:
    case dla::Code::kRuntime:
    case dla::Code::kTimeout:
    case dla::Code::kFatal:
      break;
    case dla::Code::kNotFound:
      *domain = GST_RESOURCE_ERROR;
      *code = GST_RESOURCE_ERROR_NOT_FOUND;
      break;
    case dla::Code::kSettings:
    case dla::Code::kModel:
      *domain = GST_RESOURCE_ERROR;
      *code = GST_RESOURCE_ERROR_SETTINGS;
      break;
    case dla::Code::kInit:
      *domain = GST_LIBRARY_ERROR;
      *code = GST_LIBRARY_ERROR_INIT;
      break;
  }
}

}  // namespace

const char *const gst_dla_base_infer_restart_message =
    "The DLA reported a fatal error (cudaErrorExternalDevice): CUDA is unusable in this process; "
    "restart the process";

void gst_dla_base_infer_post_status_at (GstDlaBaseInfer *self, const dla::Status &st,
                                        const std::string &debug, const char *file, const char *function,
                                        int line)
{
  if (st.ok ())
    return;
  GQuark domain;
  gint code;
  domain_of (st.code, &domain, &code);
  GST_WARNING_OBJECT (self, "error: %s", st.message.c_str ());
  GST_WARNING_OBJECT (self, "error: %s", debug.c_str ());
  gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR, domain, code,
                            g_strdup (st.message.c_str ()), g_strdup (debug.c_str ()), file, function, line);
}

GstFlowReturn gst_dla_base_infer_frame_failed_at (GstDlaBaseInfer *self, const dla::Status &st,
                                                  const char *step, const char *file, const char *function,
                                                  int line)
{
  self->priv->stats.failed ();
  /* Both threads may meet the same failure (a 911 poisons every call): the first one posts. */
  if (self->priv->stream_failed.exchange (true)) {
    GST_WARNING_OBJECT (self, "%s: %s (after the error already posted)", step, st.message.c_str ());
    return GST_FLOW_ERROR;
  }
  if (st.code == dla::Code::kFatal)
    gst_dla_base_infer_post_status_at (
        self, dla::Status::Error (dla::Code::kFatal, gst_dla_base_infer_restart_message),
        std::string (step) + ": " + st.message, file, function, line);
  else
    gst_dla_base_infer_post_status_at (self, st, step, file, function, line);
  return GST_FLOW_ERROR;
}
