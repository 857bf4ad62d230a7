/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "demo_support.h"

#include <cstdio>
#include <cstring>

#include "dla/primary_context.h"

namespace demo {

bool parse_options (int *argc, char ***argv, const GOptionEntry *entries, const char *summary, GError **err)
{
  GOptionContext *opts = g_option_context_new (summary);
  g_option_context_add_main_entries (opts, entries, nullptr);
  g_option_context_add_group (opts, gst_init_get_option_group ());
  const bool parsed = g_option_context_parse (opts, argc, argv, err);
  g_option_context_free (opts);
  return parsed;
}

bool have (const char *factory)
{
  GstElementFactory *f = gst_element_factory_find (factory);
  if (f)
    gst_object_unref (f);
  return f != nullptr;
}

void add_probe (GstElement *pipeline, const char *element, const char *pad, GstPadProbeCallback cb,
                gpointer data)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), element);
  GstPad *p = gst_element_get_static_pad (e, pad);
  gst_pad_add_probe (p, GST_PAD_PROBE_TYPE_BUFFER, cb, data, nullptr);
  gst_object_unref (p);
  gst_object_unref (e);
}

void set_properties (GstElement *element, gchar **sets)
{
  for (gchar **s = sets; s && *s; ++s) {
    gchar **kv = g_strsplit (*s, "=", 2);
    if (kv[0] && kv[1])
      gst_util_set_object_arg (G_OBJECT (element), kv[0], kv[1]);
    g_strfreev (kv);
  }
}

int run_to_end (GstElement *pipeline, const char *program)
{
  int rc = 0;
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
                                                GstMessageType (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = nullptr;
    gchar *dbg = nullptr;
    gst_message_parse_error (msg, &err, &dbg);
    std::printf ("%s: error from %s: %s (%s)\n", program, GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
                 err->message, dbg ? dbg : "");
    g_clear_error (&err);
    g_free (dbg);
    rc = 1;
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  return rc;
}

bool png_output (const char *program, const char *png_dir)
{
  if (!png_dir)
    return false;
  if (!have ("textoverlay") || !have ("pngenc") || !have ("multifilesink")) {
    std::printf (
        "%s: no PNG frames: textoverlay, pngenc or multifilesink is missing (gstreamer1.0-x, "
        "gstreamer1.0-plugins-good)\n",
        program);
    return false;
  }
  g_mkdir_with_parents (png_dir, 0755);
  return true;
}

void finish_summary (const std::string &backend, int pngs, const std::string &png_dir)
{
  std::printf (", backend %s", backend.empty () ? "none" : backend.c_str ());
  if (!png_dir.empty ())
    std::printf (", %d PNG frames in %s", pngs, png_dir.c_str ());
  std::printf ("\n");
  if (backend == "swdla")
    std::printf (
        "note: swdla is a software DLA for tests: these results come from the GPU, not from a DLA\n");
}

void print_parse_error (const char *program, const GError *err, const char *desc)
{
  if (err && g_error_matches (err, GST_PARSE_ERROR, GST_PARSE_ERROR_NO_SUCH_ELEMENT) &&
      std::strstr (err->message, "\"cudaupload\"")) {
    GstPlugin *nvcodec = gst_registry_find_plugin (gst_registry_get (), "nvcodec");
    if (nvcodec)
      gst_object_unref (nvcodec);
    std::fprintf (stderr, "%s: the cudaupload element is missing: %s\n", program,
                  nvcodec
                      ? "the nvcodec plugin (gstreamer1.0-plugins-bad) is installed but registers it only "
                        "where a CUDA GPU and the NVIDIA driver are (GST_DEBUG=nvcodec:5 gst-inspect-1.0 "
                        "nvcodec says why)"
                      : "it is in the nvcodec plugin of gstreamer1.0-plugins-bad (apt-get install "
                        "gstreamer1.0-plugins-bad; GStreamer 1.24 on a Jetson: build gst-plugins-bad with "
                        "-Dnvcodec=enabled)");
    return;
  }
  std::fprintf (stderr, "%s: cannot build the pipeline: %s\n  %s\n", program, err ? err->message : "?", desc);
}

bool cuda_device_present (const char *program)
{
  std::string why;
  if (dla::cuda_device_count (&why) > 0)
    return true;
  std::printf ("%s: needs a CUDA device, and this machine has none (%s)\n", program, why.c_str ());
  return false;
}

}  // namespace demo
