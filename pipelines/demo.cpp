/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlainfer-demo: the program behind pipelines/demo.sh (the README's first command).
 *
 *   videotestsrc (solid colours, cycling) ! NV12 ! cudaupload ! video/x-raw(memory:CUDAMemory)
 *     ! dlainfer ! cudadownload ! textoverlay ! videoconvert ! pngenc ! multifilesink
 *
 * Prints one line per frame (label, confidence, backend) read from the GstDlaClassificationMeta on
 * dlainfer's output, writes the label onto the picture with textoverlay (its "text" property is set
 * from the result of the very frame it draws on: everything runs in one streaming thread) and keeps
 * the first frame of each colour as a PNG. With --expect-colours (the colours model) each label is
 * checked against the colour that was painted, and the exit status says whether all matched.
 *
 * Exit: 0 all frames classified (and as expected), 1 a mismatch or a pipeline error, 2 bad usage,
 * 3 no CUDA device (one line). */
#include <gst/gst.h>

#include <cstdio>
#include <string>

#include "demo_support.h"
#include "gst/meta/gstdlameta.h"

namespace {

struct Colour {
  const char *name;
  guint32 argb;
};
constexpr Colour kColours[] = {{"black", 0xff000000}, {"white", 0xffffffff},  {"red", 0xffff0000},
                               {"green", 0xff00ff00}, {"blue", 0xff0000ff},   {"yellow", 0xffffff00},
                               {"cyan", 0xff00ffff},  {"magenta", 0xffff00ff}};
constexpr int kNumColours = 8;

struct Demo {
  GstElement *src = nullptr;
  GstElement *overlay = nullptr; /* nullptr without PNG output */
  int per_colour = 4;
  bool expect = false;
  std::string png_dir;
  guint64 painted = 0;    /* frames that left videotestsrc */
  guint64 classified = 0; /* frames seen after dlainfer */
  guint64 as_expected = 0, without_meta = 0;
  bool keep_current = false;
  int pngs = 0;
  std::string backend;
};

const Colour &colour_of (const Demo &d, guint64 frame)
{
  return kColours[(frame / d.per_colour) % kNumColours];
}

/* videotestsrc's src pad: buffer n has just been painted; paint n + 1 in its colour. The source's
 * loop creates the next frame only after this returns, in this thread, so there is no race. */
GstPadProbeReturn on_painted (GstPad *, GstPadProbeInfo *, gpointer data)
{
  auto *d = static_cast<Demo *> (data);
  ++d->painted;
  g_object_set (d->src, "foreground-color", colour_of (*d, d->painted).argb, nullptr);
  return GST_PAD_PROBE_OK;
}

/* dlainfer's src pad: the result of this frame. */
GstPadProbeReturn on_classified (GstPad *, GstPadProbeInfo *info, gpointer data)
{
  auto *d = static_cast<Demo *> (data);
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  const guint64 n = d->classified++;
  const Colour &painted = colour_of (*d, n);
  const GstDlaClassificationMeta *m = gst_buffer_get_dla_classification_meta (buf);
  std::string label = "(none)";
  float confidence = 0.f;
  const gchar *best = nullptr;
  if (m && gst_dla_classification_meta_get_result (m, 0, nullptr, &best, &confidence)) {
    label = best;
    const gchar *backend = gst_dla_classification_meta_get_backend (m);
    d->backend = backend ? backend : "?";
  } else {
    ++d->without_meta;
  }
  std::printf ("frame %4" G_GUINT64_FORMAT "  %-10s %.3f", n, label.c_str (), confidence);
  if (d->expect) {
    const bool ok = label == painted.name;
    d->as_expected += ok;
    std::printf ("  painted %-8s %s", painted.name, ok ? "ok" : "MISMATCH");
  }
  std::printf ("  [%s]\n", m ? d->backend.c_str () : "no result");
  std::fflush (stdout);

  d->keep_current = d->overlay && n % d->per_colour == 0 && n / d->per_colour < kNumColours;
  if (d->keep_current) {
    gchar *text = g_strdup_printf ("%s  %.2f  (%s)", label.c_str (), confidence, d->backend.c_str ());
    g_object_set (d->overlay, "text", text, nullptr);
    std::printf ("png   %s/frame-%02d.png: \"%s\"\n", d->png_dir.c_str (), d->pngs, text);
    g_free (text);
    ++d->pngs;
  }
  return GST_PAD_PROBE_OK;
}

/* textoverlay's sink pad: only the frames chosen above go on to the PNG encoder. */
GstPadProbeReturn on_overlay_input (GstPad *, GstPadProbeInfo *, gpointer data)
{
  return static_cast<Demo *> (data)->keep_current ? GST_PAD_PROBE_OK : GST_PAD_PROBE_DROP;
}

}  // namespace

int main (int argc, char **argv)
{
  gchar *model = nullptr, *labels = nullptr, *png_dir = nullptr;
  gchar **sets = nullptr;
  gint frames = 32, per_colour = 4, width = 640, height = 360;
  gboolean expect = FALSE;
  const GOptionEntry entries[] = {
      {"model", 'm', 0, G_OPTION_ARG_FILENAME, &model, "cuDLA loadable (or swdla model)", "FILE"},
      {"labels", 'l', 0, G_OPTION_ARG_FILENAME, &labels, "labels file", "FILE"},
      {"frames", 'n', 0, G_OPTION_ARG_INT, &frames, "frames to run (default 32)", "N"},
      {"per-colour", 0, 0, G_OPTION_ARG_INT, &per_colour, "frames per colour (default 4)", "N"},
      {"size", 0, 0, G_OPTION_ARG_INT, &width, "frame width (height = width * 9 / 16; default 640)", "W"},
      {"png-dir", 0, 0, G_OPTION_ARG_FILENAME, &png_dir, "write the first frame of each colour as a PNG here",
       "DIR"},
      {"expect-colours", 0, 0, G_OPTION_ARG_NONE, &expect, "check each label against the painted colour",
       nullptr},
      {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, "another dlainfer property (repeatable)", "PROP=VALUE"},
      {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr}};
  GError *err = nullptr;
  const bool parsed =
      demo::parse_options (&argc, &argv, entries, "- classify cycling solid colours with dlainfer", &err);
  if (!parsed || !model || frames < 1 || per_colour < 1 || width < 16) {
    std::fprintf (stderr, "dlainfer-demo: %s\n",
                  err ? err->message : "--model FILE is required (see --help)");
    g_clear_error (&err);
    return 2;
  }
  height = width * 9 / 16 / 2 * 2;

  /* Without a CUDA device nothing below can work: say so in one line. */
  if (!demo::cuda_device_present ("dlainfer-demo"))
    return 3;
  gst_init (&argc, &argv);

  Demo d;
  d.per_colour = per_colour;
  d.expect = expect;
  const bool png = demo::png_output ("dlainfer-demo", png_dir);
  std::string tail = "fakesink";
  if (png) {
    d.png_dir = png_dir;
    gchar *loc = g_build_filename (png_dir, "frame-%02d.png", nullptr);
    tail = std::string (
               "cudadownload ! textoverlay name=overlay font-desc=\"Sans Bold 28\" valignment=top "
               "halignment=left shaded-background=true ! videoconvert ! pngenc ! multifilesink location=\"") +
           loc + "\"";
    g_free (loc);
  }
  gchar *desc = g_strdup_printf (
      "videotestsrc name=src pattern=solid-color num-buffers=%d foreground-color=%u "
      "! video/x-raw,format=NV12,width=%d,height=%d,framerate=30/1 "
      "! cudaupload ! video/x-raw(memory:CUDAMemory) "
      "! dlainfer name=infer model=\"%s\" %s%s%s ! %s",
      frames, kColours[0].argb, width, height, model, labels ? "labels=\"" : "", labels ? labels : "",
      labels ? "\"" : "", tail.c_str ());
  GstElement *pipeline = gst_parse_launch (desc, &err);
  if (!pipeline || err) {
    demo::print_parse_error ("dlainfer-demo", err, desc);
    return 1;
  }
  g_free (desc);
  d.src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  if (png)
    d.overlay = gst_bin_get_by_name (GST_BIN (pipeline), "overlay");
  GstElement *infer = gst_bin_get_by_name (GST_BIN (pipeline), "infer");
  demo::set_properties (infer, sets);
  gst_object_unref (infer);
  demo::add_probe (pipeline, "src", "src", on_painted, &d);
  demo::add_probe (pipeline, "infer", "src", on_classified, &d);
  if (png)
    demo::add_probe (pipeline, "overlay", "video_sink", on_overlay_input, &d);

  int rc = demo::run_to_end (pipeline, "dlainfer-demo");

  std::printf ("summary: %" G_GUINT64_FORMAT " of %d frames classified", d.classified, frames);
  if (expect)
    std::printf (", %" G_GUINT64_FORMAT " labelled as painted", d.as_expected);
  demo::finish_summary (d.backend, d.pngs, d.png_dir);
  if (d.classified != guint64 (frames) || d.without_meta > 0 || (expect && d.as_expected != d.classified))
    rc = rc ? rc : 1;

  gst_object_unref (d.src);
  if (d.overlay)
    gst_object_unref (d.overlay);
  gst_object_unref (pipeline);
  g_free (model);
  g_free (labels);
  g_free (png_dir);
  g_strfreev (sets);
  return rc;
}
