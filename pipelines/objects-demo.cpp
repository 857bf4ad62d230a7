/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlainfer-objects-demo: classifying the objects a detector found (`OBJECTS=1 pipelines/demo.sh`).
 *
 *   videotestsrc pattern=smpte ! NV12 ! cudaupload ! video/x-raw(memory:CUDAMemory)
 *     ! [example detector] dlainfer inference-region=roi-list ! cudadownload
 *     ! [boxes drawn] objectdetectionoverlay, or textoverlay (one per box) ! videoconvert ! pngenc
 *
 * The "detector" is an EXAMPLE, not a product feature: a probe on dlainfer's sink pad that boxes the
 * middle of each of the seven bars SMPTE's pattern paints in the top two thirds of the frame (75 %
 * white, yellow, cyan, green, magenta, red, blue) with a GstVideoRegionOfInterestMeta of type "bar"
 * and, on GStreamer >= 1.24, a GstAnalyticsODMtd of the same rectangle and type (one object: both
 * get the result, docs/objects.md). Each object's result is read with gst_dla_object_get_result on
 * dlainfer's output and printed; with --expect-colours (the colours model) it is checked against the
 * bar boxed. Every --png-every'th frame is written as a PNG with each box outlined and its label:
 * drawn by objectdetectionoverlay where GStreamer has it (gst-plugins-bad >= 1.26; 1.24's never
 * passes EOS on): it shows the first classification related to the detection ("LABEL
 * (c=CONFIDENCE)") in place of the detector's type, i.e. dlainfer's result; before, the demo outlines
 * the boxes and puts a textoverlay under each.
 *
 * Exit: 0 every object classified (and as expected), 1 a mismatch, an object without a result or a
 * pipeline error, 2 bad usage, 3 no CUDA device (one line). */
#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdio>
#include <string>
#include <vector>

#include "config.h"
#include "demo_support.h"
#include "gst/meta/gstdlaobject.h"
#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 24, 0)
#include <gst/analytics/analytics.h>
#define DEMO_ODMTD 1
#endif

namespace {

constexpr const char *kBars[] = {"white", "yellow", "cyan", "green", "magenta", "red", "blue"};
constexpr int kNumBars = 7;
constexpr int kOutline = 4; /* pixels, drawn outside the box */

struct Box {
  int x, y, w, h;
};

struct Demo {
  std::vector<Box> boxes;           /* box i is inside bar i */
  std::vector<GstElement *> labels; /* a textoverlay per box; empty with objectdetectionoverlay */
  bool od_overlay = false;          /* objectdetectionoverlay draws boxes and labels */
  int png_every = 8;
  bool expect = false;
  std::string png_dir;
  guint64 frames = 0, objects = 0, as_expected = 0, without_result = 0, miscounted_frames = 0;
  bool keep_current = false;
  int pngs = 0;
  std::string backend;
};

int even (int v)
{
  return v / 2 * 2;
}

/* The middle half of each bar's width, the middle of the bars' height (videotestsrc: bar i spans
 * x in [i * w / 7, (i + 1) * w / 7), y in [0, 2 * h / 3)); even pixels, for 4:2:0 chroma. */
std::vector<Box> bar_boxes (int width, int height)
{
  std::vector<Box> boxes;
  for (int i = 0; i < kNumBars; ++i)
    boxes.push_back (
        {even (i * width / 7 + width / 28), even (height / 6), even (width / 14), even (height / 3)});
  return boxes;
}

/* EXAMPLE detector (dlainfer's sink pad): one object per bar on every frame. */
GstPadProbeReturn on_detect (GstPad *, GstPadProbeInfo *info, gpointer data)
{
  auto *d = static_cast<Demo *> (data);
  GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_DATA (info) = buf;
#ifdef DEMO_ODMTD
  GstAnalyticsRelationMeta *rmeta = gst_buffer_add_analytics_relation_meta (buf);
#endif
  for (const Box &b : d->boxes) {
    gst_buffer_add_video_region_of_interest_meta (buf, "bar", b.x, b.y, b.w, b.h);
#ifdef DEMO_ODMTD
    GstAnalyticsODMtd od;
    gst_analytics_relation_meta_add_od_mtd (rmeta, g_quark_from_static_string ("bar"), b.x, b.y, b.w, b.h,
                                            1.f, &od);
#endif
  }
  return GST_PAD_PROBE_OK;
}

int box_index (const Demo &d, const GstVideoRegionOfInterestMeta *roi)
{
  for (size_t i = 0; i < d.boxes.size (); ++i)
    if (int (roi->x) == d.boxes[i].x && int (roi->y) == d.boxes[i].y)
      return int (i);
  return -1;
}

/* One object's line; returns its label drawn on the PNG. */
std::string report_object (Demo *d, guint64 frame, GstVideoRegionOfInterestMeta *roi)
{
  const int i = box_index (*d, roi);
  const gchar *label = nullptr;
  gfloat confidence = 0.f;
  const bool got = gst_dla_object_get_result (roi, nullptr, nullptr, &label, &confidence, nullptr, nullptr);
  const GstStructure *param = gst_video_region_of_interest_meta_get_param (roi, "infer");
  const gchar *backend = param ? gst_structure_get_string (param, "backend") : nullptr;
  if (got && backend)
    d->backend = backend;
  d->without_result += !got;
  std::printf ("frame %4" G_GUINT64_FORMAT "  object %d  %4u,%-4u %ux%u  %-10s %.3f", frame, i, roi->x,
               roi->y, roi->w, roi->h, got ? label : "(none)", confidence);
  if (d->expect) {
    const bool ok = got && i >= 0 && std::string (label) == kBars[i];
    d->as_expected += ok;
    std::printf ("  boxed %-8s %s", i >= 0 ? kBars[i] : "?", ok ? "ok" : "MISMATCH");
  }
  std::printf ("  [%s]\n", got ? d->backend.c_str () : "no result");
  if (!got)
    return "(none)";
  gchar *text = g_strdup_printf ("%s\n%.2f", label, confidence);
  std::string s = text;
  g_free (text);
  return s;
}

/* dlainfer's src pad: every object's result on this frame, and the labels of the PNG to write. */
GstPadProbeReturn on_classified (GstPad *, GstPadProbeInfo *info, gpointer data)
{
  auto *d = static_cast<Demo *> (data);
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  const guint64 n = d->frames++;
  d->keep_current = !d->png_dir.empty () && n % d->png_every == 0;
  gpointer state = nullptr;
  GstMeta *m;
  int objects = 0;
  while ((m = gst_buffer_iterate_meta_filtered (buf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    auto *roi = reinterpret_cast<GstVideoRegionOfInterestMeta *> (m);
    const std::string text = report_object (d, n, roi);
    const int i = box_index (*d, roi);
    if (d->keep_current && i >= 0 && !d->labels.empty ())
      g_object_set (d->labels[i], "text", text.c_str (), nullptr);
    ++objects;
  }
  d->objects += objects;
  d->miscounted_frames += objects != kNumBars;
  if (d->keep_current)
    std::printf ("png   %s/frame-%02d.png\n", d->png_dir.c_str (), d->pngs++);
  std::fflush (stdout);
  return GST_PAD_PROBE_OK;
}

/* An outline around `b` in an NV12 frame: black luma, neutral chroma. */
void draw_outline (GstVideoFrame *f, const Box &b)
{
  auto *luma = static_cast<guint8 *> (GST_VIDEO_FRAME_PLANE_DATA (f, 0));
  auto *chroma = static_cast<guint8 *> (GST_VIDEO_FRAME_PLANE_DATA (f, 1));
  const int ls = GST_VIDEO_FRAME_PLANE_STRIDE (f, 0), cs = GST_VIDEO_FRAME_PLANE_STRIDE (f, 1);
  const int width = GST_VIDEO_FRAME_WIDTH (f), height = GST_VIDEO_FRAME_HEIGHT (f);
  for (int r = MAX (b.y - kOutline, 0); r < MIN (b.y + b.h + kOutline, height); ++r)
    for (int c = MAX (b.x - kOutline, 0); c < MIN (b.x + b.w + kOutline, width); ++c) {
      if (r >= b.y && r < b.y + b.h && c >= b.x && c < b.x + b.w)
        continue;
      luma[r * ls + c] = 16;
      chroma[r / 2 * cs + c / 2 * 2] = chroma[r / 2 * cs + c / 2 * 2 + 1] = 128;
    }
}

/* The overlay's sink pad (system memory after cudadownload): the frames chosen above go on to the
 * PNG encoder (with their boxes outlined here when textoverlays label them); the others are
 * dropped. */
GstPadProbeReturn on_overlay_input (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  auto *d = static_cast<Demo *> (data);
  if (!d->keep_current)
    return GST_PAD_PROBE_DROP;
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstVideoInfo vi;
  const bool nv12 =
      caps && gst_video_info_from_caps (&vi, caps) && GST_VIDEO_INFO_FORMAT (&vi) == GST_VIDEO_FORMAT_NV12;
  if (caps)
    gst_caps_unref (caps);
  if (!nv12 || d->od_overlay)
    return GST_PAD_PROBE_OK;
  GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  GstVideoFrame frame;
  if (gst_video_frame_map (&frame, &vi, buf, GST_MAP_READWRITE)) {
    for (const Box &b : d->boxes)
      draw_outline (&frame, b);
    gst_video_frame_unmap (&frame);
  }
  return GST_PAD_PROBE_OK;
}

/* cudadownload ! objectdetectionoverlay, or a textoverlay under each box ! videoconvert ! pngenc !
 * multifilesink. */
std::string png_tail (const Demo &d)
{
  std::string tail = "cudadownload";
  if (d.od_overlay)
    tail +=
        " ! objectdetectionoverlay name=overlay draw-labels=true object-detection-outline-color=0xFF000000";
  for (size_t i = 0; !d.od_overlay && i < d.boxes.size (); ++i) {
    const Box &b = d.boxes[i];
    gchar *e = g_strdup_printf (
        " ! textoverlay name=label%zu font-desc=\"Sans Bold 11\" halignment=left valignment=top xpad=0 "
        "ypad=0 deltax=%d deltay=%d shaded-background=true",
        i, b.x, b.y + b.h + kOutline + 2);
    tail += e;
    g_free (e);
  }
  gchar *loc = g_build_filename (d.png_dir.c_str (), "frame-%02d.png", nullptr);
  tail += std::string (" ! videoconvert ! pngenc ! multifilesink location=\"") + loc + "\"";
  g_free (loc);
  return tail;
}

/* objectdetectionoverlay reads ODMtds, which this demo adds on >= 1.24 only; 1.24's keeps EOS to
 * itself (its sink_event handler swallows it, 1.24.2 seen), so a pipeline with it never ends: the demo
 * uses it from 1.26 on (docs/objects.md). */
bool objectdetectionoverlay_present ()
{
#ifdef DEMO_ODMTD
  guint major = 0, minor = 0, micro = 0, nano = 0;
  gst_version (&major, &minor, &micro, &nano);
  if (major == 1 && minor < 26)
    return false;
  GstElementFactory *f = gst_element_factory_find ("objectdetectionoverlay");
  if (f)
    gst_object_unref (f);
  return f != nullptr;
#else
  return false;
#endif
}

}  // namespace

int main (int argc, char **argv)
{
  gchar *model = nullptr, *labels = nullptr, *png_dir = nullptr;
  gchar **sets = nullptr;
  gint frames = 16, png_every = 8, width = 640;
  gboolean expect = FALSE;
  const GOptionEntry entries[] = {
      {"model", 'm', 0, G_OPTION_ARG_FILENAME, &model, "cuDLA loadable (or swdla model)", "FILE"},
      {"labels", 'l', 0, G_OPTION_ARG_FILENAME, &labels, "labels file", "FILE"},
      {"frames", 'n', 0, G_OPTION_ARG_INT, &frames, "frames to run (default 16)", "N"},
      {"size", 0, 0, G_OPTION_ARG_INT, &width, "frame width (height = width * 9 / 16; default 640)", "W"},
      {"png-dir", 0, 0, G_OPTION_ARG_FILENAME, &png_dir, "write frames with boxes and labels as PNGs here",
       "DIR"},
      {"png-every", 0, 0, G_OPTION_ARG_INT, &png_every, "write every N-th frame (default 8)", "N"},
      {"expect-colours", 0, 0, G_OPTION_ARG_NONE, &expect, "check each object's label against its bar",
       nullptr},
      {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, "another dlainfer property (repeatable)", "PROP=VALUE"},
      {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr}};
  GError *err = nullptr;
  const bool parsed = demo::parse_options (
      &argc, &argv, entries, "- classify the objects an example detector boxed, with dlainfer", &err);
  if (!parsed || !model || frames < 1 || png_every < 1 || width < 224) {
    std::fprintf (stderr, "dlainfer-objects-demo: %s\n",
                  err ? err->message
                  : !model
                      ? "--model FILE is required (see --help)"
                      : "--frames and --png-every must be at least 1, --size at least 224 (the boxes are "
                        "a fourteenth of the width: 16 pixels, dlainfer's minimum, at 224)");
    g_clear_error (&err);
    return 2;
  }
  const int height = width * 9 / 16 / 2 * 2;
  if (!demo::cuda_device_present ("dlainfer-objects-demo"))
    return 3;
  gst_init (&argc, &argv);

  Demo d;
  d.boxes = bar_boxes (width, height);
  d.png_every = png_every;
  d.expect = expect;
  const bool png = demo::png_output ("dlainfer-objects-demo", png_dir);
  if (png)
    d.png_dir = png_dir;
  d.od_overlay = png && objectdetectionoverlay_present ();
  gchar *desc = g_strdup_printf (
      "videotestsrc pattern=smpte num-buffers=%d ! video/x-raw,format=NV12,width=%d,height=%d,framerate=30/1 "
      "! cudaupload ! video/x-raw(memory:CUDAMemory) "
      "! dlainfer name=infer inference-region=roi-list model=\"%s\" %s%s%s ! %s",
      frames, width, height, model, labels ? "labels=\"" : "", labels ? labels : "", labels ? "\"" : "",
      png ? png_tail (d).c_str () : "fakesink");
  GstElement *pipeline = gst_parse_launch (desc, &err);
  if (!pipeline || err) {
    demo::print_parse_error ("dlainfer-objects-demo", err, desc);
    return 1;
  }
  g_free (desc);
  GstElement *infer = gst_bin_get_by_name (GST_BIN (pipeline), "infer");
  demo::set_properties (infer, sets);
  gst_object_unref (infer);
  for (int i = 0; png && !d.od_overlay && i < kNumBars; ++i) {
    gchar *name = g_strdup_printf ("label%d", i);
    d.labels.push_back (gst_bin_get_by_name (GST_BIN (pipeline), name));
    g_free (name);
  }
  demo::add_probe (pipeline, "infer", "sink", on_detect, &d);
  demo::add_probe (pipeline, "infer", "src", on_classified, &d);
  if (png)
    demo::add_probe (pipeline, d.od_overlay ? "overlay" : "label0", d.od_overlay ? "sink" : "video_sink",
                     on_overlay_input, &d);
  if (png)
    std::printf ("png   boxes and labels drawn by %s\n",
                 d.od_overlay ? "objectdetectionoverlay (dlainfer's label in place of the detector's)"
                              : "textoverlay (objectdetectionoverlay needs GStreamer >= 1.26 here)");

  int rc = demo::run_to_end (pipeline, "dlainfer-objects-demo");

  std::printf ("summary: %" G_GUINT64_FORMAT " of %d frames, %" G_GUINT64_FORMAT
               " objects, %" G_GUINT64_FORMAT " without a result",
               d.frames, frames, d.objects, d.without_result);
  if (expect)
    std::printf (", %" G_GUINT64_FORMAT " labelled as boxed", d.as_expected);
  demo::finish_summary (d.backend, d.pngs, d.png_dir);
  if (d.frames != guint64 (frames) || d.miscounted_frames > 0 || d.without_result > 0 ||
      (expect && d.as_expected != d.objects))
    rc = rc ? rc : 1;

  for (GstElement *e : d.labels)
    gst_object_unref (e);
  gst_object_unref (pipeline);
  g_free (model);
  g_free (labels);
  g_free (png_dir);
  g_strfreev (sets);
  return rc;
}
