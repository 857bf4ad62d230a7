/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlapublish's tests: frames with results on them, the element from its source, its bus. */
#pragma once

#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <string>
#include <vector>

#include "gst/gstdlapublish.h"
#include "gst/meta/gstdlameta.h"

namespace publish_test {

inline void register_dlapublish ()
{
  static const gboolean ok = GST_ELEMENT_REGISTER (dla_publish, nullptr);
  g_assert (ok);
}

/* Frame i: `objects` ROI metas (a "detection" parameter, a tracking id, a dlainfer result) and a
 * dlainfer whole-frame classification meta. */
inline GstBuffer *frame_with_results (int i, int objects = 3)
{
  GstBuffer *b = gst_buffer_new_allocate (nullptr, 16, nullptr);
  GST_BUFFER_PTS (b) = GST_SECOND * guint64 (i) / 30;
  GST_BUFFER_DURATION (b) = GST_SECOND / 30;
  for (int k = 0; k < objects; ++k) {
    GstVideoRegionOfInterestMeta *roi =
        gst_buffer_add_video_region_of_interest_meta (b, "face", guint (10 + 40 * k), 20, 32, 48);
    gst_video_region_of_interest_meta_add_param (
        roi, gst_structure_new ("detection", "label_id", G_TYPE_INT, 0, "confidence", G_TYPE_DOUBLE, 0.75,
                                nullptr));
    gst_video_region_of_interest_meta_add_param (
        roi, gst_structure_new ("object_id", "id", G_TYPE_INT, 100 + k, nullptr));
    gst_video_region_of_interest_meta_add_param (
        roi, gst_structure_new ("expression", "label", G_TYPE_STRING, k % 2 ? "happy" : "sad \"quoted\"",
                                "label_id", G_TYPE_INT, k % 2, "confidence", G_TYPE_DOUBLE, 0.5, "carried",
                                G_TYPE_BOOLEAN, gboolean (k == 2), "age", G_TYPE_UINT, guint (k), "backend",
                                G_TYPE_STRING, "swdla", nullptr));
  }
  const GstDlaClassification r[] = {{3, g_quark_from_static_string ("indoor"), 0.875f}};
  gst_buffer_add_dla_classification_meta_full (b, r, 1, g_quark_from_static_string ("scene"),
                                               g_quark_from_static_string ("dla"), 0, FALSE, 0);
  return b;
}

/* Every message of the element's bus, kept (text of errors, warnings, infos). */
struct BusLog {
  std::vector<std::string> errors, warnings, infos;
  void read (GstBus *bus)
  {
    while (GstMessage *m = gst_bus_pop (bus)) {
      GError *e = nullptr;
      gchar *dbg = nullptr;
      if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
        gst_message_parse_error (m, &e, &dbg);
      else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING)
        gst_message_parse_warning (m, &e, &dbg);
      else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_INFO)
        gst_message_parse_info (m, &e, &dbg);
      if (e) {
        auto &list = GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR     ? errors
                     : GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING ? warnings
                                                                   : infos;
        list.push_back (e->message);
        g_error_free (e);
      }
      g_free (dbg);
      gst_message_unref (m);
    }
  }
};

/* A dlapublish with properties set from text ("method=file file-path=/x"). */
inline GstElement *make_element (const std::string &properties)
{
  register_dlapublish ();
  GstElement *e = GST_ELEMENT (gst_object_ref_sink (gst_element_factory_make ("dlapublish", "pub")));
  gchar **pairs = g_strsplit (properties.c_str (), " ", -1);
  for (gchar **p = pairs; *p; ++p) {
    gchar **kv = g_strsplit (*p, "=", 2);
    if (kv[0] && kv[1])
      gst_util_set_object_arg (G_OBJECT (e), kv[0], kv[1]);
    g_strfreev (kv);
  }
  g_strfreev (pairs);
  return e;
}

/* The error a start of `properties` ends in ("" when it started). */
inline std::string start_error (const std::string &properties)
{
  GstElement *e = make_element (properties);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (e, bus);
  const GstStateChangeReturn r = gst_element_set_state (e, GST_STATE_PAUSED);
  BusLog log;
  log.read (bus);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (e);
  gst_object_unref (bus);
  if (r == GST_STATE_CHANGE_FAILURE)
    return log.errors.empty () ? "(failed without an error message)" : log.errors[0];
  return "";
}

/* The element in a harness (its own bus), properties set by text. */
class Publish {
 public:
  explicit Publish (const std::string &properties)
  {
    element_ = make_element (properties);
    bus_ = gst_bus_new ();
    gst_element_set_bus (element_, bus_);
    h_ = gst_harness_new_with_element (element_, "sink", "src");
  }
  ~Publish ()
  {
    gst_harness_teardown (h_);
    gst_bus_set_flushing (bus_, TRUE); /* its messages hold the element */
    gst_object_unref (element_);
    gst_object_unref (bus_);
  }
  /* Starts (caps 640x480); false when the element refused to start (log.errors says why). */
  bool start ()
  {
    gst_harness_set_src_caps_str (h_, "video/x-raw,format=GRAY8,width=640,height=480,framerate=30/1");
    log ();
    return log_.errors.empty ();
  }
  void push (GstBuffer *b)
  {
    GstBuffer *out = gst_harness_push_and_pull (h_, b);
    g_assert (out);
    gst_buffer_unref (out);
  }
  GstElement *element () { return element_; }
  void eos () { gst_harness_push_event (h_, gst_event_new_eos ()); }
  void stop () { gst_element_set_state (h_->element, GST_STATE_NULL); }
  guint64 stat (const char *name)
  {
    GstStructure *s = nullptr;
    g_object_get (element_, "stats", &s, nullptr);
    guint64 v = G_MAXUINT64;
    gst_structure_get_uint64 (s, name, &v);
    gst_structure_free (s);
    return v;
  }
  const BusLog &log ()
  {
    log_.read (bus_);
    return log_;
  }

 private:
  GstHarness *h_;
  GstElement *element_;
  GstBus *bus_;
  BusLog log_;
};

}  // namespace publish_test
