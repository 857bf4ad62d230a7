/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The first error a pipeline posts, as plain values, for the element's unit and GPU tests. */
#pragma once

#include <gst/gst.h>

#include <string>

namespace element_test {

struct BusError {
  bool posted = false;
  GQuark domain = 0;
  int code = 0;
  std::string message, debug, source;
};

/* Waits until an error or a message of type `until` (or the timeout); the error if one came.
 * Other messages are dropped, as gst_bus_timed_pop_filtered does. */
inline BusError wait_bus_error (GstElement *pipeline, GstClockTime timeout, GstMessageType until)
{
  BusError out;
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, timeout, GstMessageType (GST_MESSAGE_ERROR | until));
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = nullptr;
    gchar *dbg = nullptr;
    gst_message_parse_error (msg, &err, &dbg);
    out.posted = true;
    out.domain = err->domain;
    out.code = err->code;
    out.message = err->message;
    out.debug = dbg ? dbg : "";
    out.source = GST_OBJECT_NAME (GST_MESSAGE_SRC (msg));
    g_error_free (err);
    g_free (dbg);
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  return out;
}

}  // namespace element_test
