/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlainfer-example: an application that builds its pipeline in code and prints each frame's
 * classification as one JSON line, read in a pad probe with the public meta API
 * (gstdlameta.h; pkg-config gstreamer-dlainfer-1.0).
 *
 *   SOURCE ! cudaupload ! video/x-raw(memory:CUDAMemory) ! dlainfer ! fakesink
 *
 * SOURCE is what a gst-launch-1.0 line would have before "! cudaupload": elements ending in raw
 * video in system or CUDA memory, caps included (default: 100 frames of videotestsrc in NV12), e.g.
 *   --source "videotestsrc num-buffers=300 ! video/x-raw,format=NV12,width=1280,height=720"
 *   --source "filesrc location=clip.mp4 ! qtdemux ! h264parse ! nvh264dec"
 * A decoder that writes CUDA memory (nvh264dec) hands its frames to dlainfer in place: cudaupload
 * passes CUDA memory through, and copies only frames in system memory.
 *
 *   dlainfer-example --model M [--labels L] [--source DESC] [--frames N]
 *
 * One line per frame on stdout:
 *   {"frame":0,"pts":0,"element":"infer","backend":"dla","carried":false,"age":0,
 *    "results":[{"class_id":2,"label":"red","confidence":0.9981}]}
 * Errors go to stderr; exit 0 at end of stream, 1 on a pipeline error, 2 on bad usage. */
#include <gst/dlainfer/gstdlameta.h>
#include <gst/gst.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

std::string json_string (const char *s)
{
  std::string out = "\"";
  for (const char *p = s ? s : ""; *p; ++p) {
    const unsigned char c = static_cast<unsigned char> (*p);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char (c);
    } else if (c < 0x20) {
      char esc[8];
      std::snprintf (esc, sizeof esc, "\\u%04x", c);
      out += esc;
    } else {
      out += char (c);
    }
  }
  return out + "\"";
}

/* Runs in the streaming thread for every buffer leaving dlainfer. */
GstPadProbeReturn print_result (GstPad *, GstPadProbeInfo *info, gpointer user_data)
{
  auto *frame = static_cast<guint64 *> (user_data);
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  std::string line = "{\"frame\":" + std::to_string ((*frame)++) + ",\"pts\":";
  line += GST_BUFFER_PTS_IS_VALID (buf) ? std::to_string (GST_BUFFER_PTS (buf)) : "null";

  const GstDlaClassificationMeta *meta = gst_buffer_get_dla_classification_meta (buf);
  if (!meta) {
    std::printf ("%s,\"results\":null}\n", line.c_str ());
    return GST_PAD_PROBE_OK;
  }
  line += ",\"element\":" + json_string (gst_dla_classification_meta_get_element_name (meta));
  line += ",\"backend\":" + json_string (gst_dla_classification_meta_get_backend (meta));
  line += std::string (",\"carried\":") + (gst_dla_classification_meta_get_carried (meta) ? "true" : "false");
  line += ",\"age\":" + std::to_string (gst_dla_classification_meta_get_age (meta)) + ",\"results\":[";
  gint class_id = 0;
  const gchar *label = nullptr;
  gfloat confidence = 0.f;
  for (guint i = 0; gst_dla_classification_meta_get_result (meta, i, &class_id, &label, &confidence); ++i) {
    char conf[32];
    std::snprintf (conf, sizeof conf, "%.4f", confidence);
    line += std::string (i ? "," : "") + "{\"class_id\":" + std::to_string (class_id) +
            ",\"label\":" + json_string (label) + ",\"confidence\":" + conf + "}";
  }
  std::printf ("%s]}\n", line.c_str ());
  std::fflush (stdout);
  return GST_PAD_PROBE_OK;
}

GstElement *make (const char *factory, const char *name)
{
  GstElement *e = gst_element_factory_make (factory, name);
  if (!e)
    std::fprintf (stderr, "dlainfer-example: element %s is missing\n", factory);
  return e;
}

/* Why cudaupload (GStreamer's nvcodec plugin) is not there, and which package has it. */
std::string missing_cudaupload ()
{
  GstPlugin *nvcodec = gst_registry_find_plugin (gst_registry_get (), "nvcodec");
  if (nvcodec) {
    gst_object_unref (nvcodec);
    return "the cudaupload element is missing: the nvcodec plugin (gstreamer1.0-plugins-bad) is installed "
           "but "
           "registers it only where a CUDA GPU and the NVIDIA driver are (GST_DEBUG=nvcodec:5 "
           "gst-inspect-1.0 "
           "nvcodec says why)";
  }
  return "the cudaupload element is missing: it is in the nvcodec plugin of gstreamer1.0-plugins-bad "
         "(apt-get "
         "install gstreamer1.0-plugins-bad; GStreamer 1.24 on a Jetson: build gst-plugins-bad with "
         "-Dnvcodec=enabled)";
}

}  // namespace

int main (int argc, char **argv)
{
  gchar *model = nullptr, *labels = nullptr, *source = nullptr;
  gint frames = 100;
  const GOptionEntry entries[] = {
      {"model", 'm', 0, G_OPTION_ARG_FILENAME, &model, "cuDLA loadable (required)", "FILE"},
      {"labels", 'l', 0, G_OPTION_ARG_FILENAME, &labels, "labels file, one per line", "FILE"},
      {"source", 's', 0, G_OPTION_ARG_STRING, &source, "gst-launch fragment producing raw video", "DESC"},
      {"frames", 'n', 0, G_OPTION_ARG_INT, &frames, "frames of the default source (100)", "N"},
      {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr}};
  GOptionContext *ctx = g_option_context_new ("- print dlainfer results as JSON lines");
  g_option_context_add_main_entries (ctx, entries, nullptr);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  GError *err = nullptr;
  const bool parsed = g_option_context_parse (ctx, &argc, &argv, &err);
  g_option_context_free (ctx);
  if (!parsed || !model) {
    std::fprintf (stderr, "dlainfer-example: %s\n", err ? err->message : "--model FILE is required");
    g_clear_error (&err);
    return 2;
  }

  /* The source and cudaupload, parsed as gst-launch-1.0 parses "SOURCE ! cudaupload ! ...", into a
   * bin with a ghost src pad: caps at the end of SOURCE ("! video/x-raw,format=NV12") then filter the
   * link to cudaupload, as on a gst-launch-1.0 line (parsed alone, such caps would be read as an
   * element named "video"). */
  const std::string src_desc = (source ? std::string (source)
                                       : "videotestsrc num-buffers=" + std::to_string (frames) +
                                             " ! video/x-raw,format=NV12,width=1280,height=720") +
                               " ! cudaupload name=upload";
  GstElement *src = gst_parse_bin_from_description (src_desc.c_str (), TRUE, &err);
  if (!src) {
    /* The element we add, not the user's --source, is what is missing: say which package has it. */
    const bool no_upload = err && g_error_matches (err, GST_PARSE_ERROR, GST_PARSE_ERROR_NO_SUCH_ELEMENT) &&
                           std::strstr (err->message, "\"cudaupload\"");
    if (no_upload || !source)
      std::fprintf (stderr, "dlainfer-example: %s\n",
                    no_upload ? missing_cudaupload ().c_str () : (err ? err->message : "?"));
    else
      std::fprintf (stderr, "dlainfer-example: bad --source: \"%s\": %s\n", src_desc.c_str (),
                    err ? err->message : "?");
    g_clear_error (&err);
    return no_upload || !source ? 1 : 2;
  }

  GstElement *pipeline = gst_pipeline_new ("example");
  GstElement *filter = make ("capsfilter", "cuda-caps");
  GstElement *infer = make ("dlainfer", "infer");
  GstElement *sink = make ("fakesink", "sink");
  if (!filter || !infer || !sink)
    return 1;
  GstCaps *caps = gst_caps_from_string ("video/x-raw(memory:CUDAMemory)");
  g_object_set (filter, "caps", caps, nullptr);
  gst_caps_unref (caps);
  g_object_set (infer, "model", model, nullptr);
  if (labels)
    g_object_set (infer, "labels", labels, nullptr);
  gst_bin_add_many (GST_BIN (pipeline), src, filter, infer, sink, nullptr);
  if (!gst_element_link_many (src, filter, infer, sink, nullptr)) {
    std::fprintf (stderr, "dlainfer-example: could not link the pipeline\n");
    gst_object_unref (pipeline);
    return 1;
  }

  /* The results: a buffer probe on dlainfer's src pad sees each frame with its meta. */
  guint64 frame = 0;
  GstPad *pad = gst_element_get_static_pad (infer, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, print_result, &frame, nullptr);
  gst_object_unref (pad);

  int rc = 0;
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
                                                GstMessageType (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *dbg = nullptr;
    gst_message_parse_error (msg, &err, &dbg);
    std::fprintf (stderr, "dlainfer-example: error from %s: %s\n%s\n",
                  GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message, dbg ? dbg : "");
    g_clear_error (&err);
    g_free (dbg);
    rc = 1;
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  g_free (model);
  g_free (labels);
  g_free (source);
  return rc;
}
