/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlainfer-faces-demo: the README's demo (`pipelines/demo.sh`): faces found, tracked and their
 * expressions classified in a clip made from real photographs.
 *
 *   filesrc ! qtdemux ! h264parse ! nvh264dec (else openh264dec, avdec_h264) ! cudaupload
 *     ! dladetect (TinyFaceDetector, DLA core 0) ! dlatrack
 *     ! dlainfer inference-region=roi-list (FaceExpressionNet, DLA core 1, reclassify-interval)
 *     ! cudadownload ! [boxes, track ids, labels drawn] ! tee ! pngenc (every --png-every'th frame)
 *                                                            ! x264enc ! mp4mux (every frame)
 *
 * Everything comes from --dir, the folder tools/models/face_api_prepare.py made (faces.conf names
 * the networks, their means and the clip). One line per frame: each face's track id, expression,
 * confidence and whether the label was carried (reclassify-interval); --results FILE gets every
 * object of every frame for pipelines/faces-check.py, which compares the tracks' expressions with
 * face-api's. Boxes and labels are drawn by objectdetectionoverlay where GStreamer has it (>= 1.26;
 * 1.24's keeps EOS to itself), track ids (and, before 1.26, boxes and labels) by faces_draw.cpp.
 *
 * Exit: 0 the clip ran to its end with every frame seen, 1 a pipeline error or missing frames,
 * 2 bad usage or an unusable --dir, 3 no CUDA device (one line). */
#include <gst/gst.h>
#include <gst/video/video.h>

#include <chrono>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "config.h"
#include "demo_support.h"
#include "faces_draw.h"
#include "gst/meta/gstdlaobject.h"

namespace {

constexpr const char *kProgram = "dlainfer-faces-demo";

struct Face {
  gint64 id; /* -1: no tracking id (a tentative track) */
  int x, y, w, h;
  std::string label; /* empty: no result */
  float confidence;
  guint age;
};

struct Demo {
  std::mutex lock;
  std::deque<std::pair<GstClockTime, std::vector<Face>>> to_draw;
  bool od_overlay = false;
  int png_every = 10;
  guint64 frames = 0, faces = 0, classified = 0, png_seen = 0;
  int pngs = 0;
  std::string png_dir, backend;
  FILE *results = nullptr;
  std::map<gint64, guint64> track_frames;
  std::chrono::steady_clock::time_point first, last;
};

Face read_face (Demo *d, GstVideoRegionOfInterestMeta *roi)
{
  Face f{-1, int (roi->x), int (roi->y), int (roi->w), int (roi->h), "", 0.f, 0};
  guint64 id = 0;
  if (gst_dla_object_get_tracking_id (roi, &id))
    f.id = gint64 (id);
  const gchar *label = nullptr;
  if (gst_dla_object_get_result (roi, "classify", nullptr, &label, &f.confidence, nullptr, &f.age) && label)
    f.label = label;
  const GstStructure *param = gst_video_region_of_interest_meta_get_param (roi, "classify");
  const gchar *backend = param ? gst_structure_get_string (param, "backend") : nullptr;
  if (backend)
    d->backend = backend;
  return f;
}

/* dlainfer's src pad: the frame's line, its results for faces-check.py, and what to draw. */
GstPadProbeReturn on_classified (GstPad *, GstPadProbeInfo *info, gpointer data)
{
  auto *d = static_cast<Demo *> (data);
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  const guint64 n = d->frames++;
  d->last = std::chrono::steady_clock::now ();
  if (n == 0)
    d->first = d->last;
  std::vector<Face> faces;
  GstVideoRegionOfInterestMeta *roi;
  for (guint i = 0; (roi = gst_dla_buffer_get_object (buf, i)); ++i)
    faces.push_back (read_face (d, roi));
  std::printf ("frame %4" G_GUINT64_FORMAT "  faces %zu", n, faces.size ());
  for (const Face &f : faces) {
    if (f.id >= 0)
      std::printf ("  #%" G_GINT64_FORMAT, f.id);
    else
      std::printf ("  (new)");
    if (!f.label.empty ())
      std::printf (" %s %.2f%s", f.label.c_str (), f.confidence, f.age ? " carried" : "");
    if (d->results)
      std::fprintf (d->results, "obj %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT " %d %d %d %d %s %.4f %u\n", n,
                    f.id, f.x, f.y, f.w, f.h, f.label.empty () ? "-" : f.label.c_str (), f.confidence, f.age);
    d->classified += !f.label.empty ();
    if (f.id >= 0)
      ++d->track_frames[f.id];
  }
  std::printf ("\n");
  std::fflush (stdout);
  d->faces += faces.size ();
  std::lock_guard<std::mutex> g (d->lock);
  d->to_draw.emplace_back (GST_BUFFER_PTS (buf), std::move (faces));
  return GST_PAD_PROBE_OK;
}

/* The drawing identity's sink pad (NV12 in system memory): this frame's boxes, ids and labels. */
GstPadProbeReturn on_draw (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  auto *d = static_cast<Demo *> (data);
  GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  std::vector<Face> faces;
  {
    std::lock_guard<std::mutex> g (d->lock);
    while (!d->to_draw.empty () && d->to_draw.front ().first != GST_BUFFER_PTS (buf))
      d->to_draw.pop_front ();
    if (d->to_draw.empty ())
      return GST_PAD_PROBE_OK;
    faces = std::move (d->to_draw.front ().second);
    d->to_draw.pop_front ();
  }
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstVideoInfo vi;
  const bool ok = caps && gst_video_info_from_caps (&vi, caps);
  if (caps)
    gst_caps_unref (caps);
  GstVideoFrame frame;
  if (!ok || !gst_video_frame_map (&frame, &vi, buf, GST_MAP_READWRITE))
    return GST_PAD_PROBE_OK;
  for (const Face &f : faces) {
    std::string text = f.id >= 0 ? "#" + std::to_string (f.id) : std::string ("new");
    if (!d->od_overlay) {
      faces::draw_box (&frame, f.x, f.y, f.w, f.h, 2, faces::track_colour (f.id));
      if (!f.label.empty ())
        text += " " + f.label;
    }
    /* Under the box, else above it; inside the frame. */
    const int width = GST_VIDEO_FRAME_WIDTH (&frame), height = GST_VIDEO_FRAME_HEIGHT (&frame);
    int ty = f.y + f.h + 3;
    if (ty + faces::text_height () > height)
      ty = f.y - 3 - faces::text_height ();
    const int tx = MAX (0, MIN (f.x, width - faces::text_width (text)));
    faces::draw_text (&frame, tx, MAX (0, ty), text, faces::Colour{16, 128, 128});
  }
  gst_video_frame_unmap (&frame);
  return GST_PAD_PROBE_OK;
}

/* The PNG branch: every --png-every'th frame goes on to pngenc. */
GstPadProbeReturn on_png (GstPad *, GstPadProbeInfo *, gpointer data)
{
  auto *d = static_cast<Demo *> (data);
  const guint64 n = d->png_seen++;
  if (n % guint64 (d->png_every))
    return GST_PAD_PROBE_DROP;
  std::printf ("png   %s/frame-%03d.png: frame %" G_GUINT64_FORMAT "\n", d->png_dir.c_str (), d->pngs++, n);
  return GST_PAD_PROBE_OK;
}

const char *h264_decoder ()
{
  for (const char *dec : {"nvh264dec", "openh264dec", "avdec_h264"})
    if (demo::have (dec))
      return dec;
  return nullptr;
}

/* objectdetectionoverlay from 1.26 on (1.24's never passes EOS on, docs/objects.md). */
bool objectdetectionoverlay_present ()
{
  guint major = 0, minor = 0, micro = 0, nano = 0;
  gst_version (&major, &minor, &micro, &nano);
  return (major > 1 || minor >= 26) && demo::have ("objectdetectionoverlay");
}

/* faces.conf's value, with a path made absolute against --dir; empty when missing. */
std::string conf (GKeyFile *kf, const char *dir, const char *group, const char *key, bool path)
{
  gchar *v = g_key_file_get_string (kf, group, key, nullptr);
  if (!v)
    return "";
  std::string s = v;
  g_free (v);
  if (path && !g_path_is_absolute (s.c_str ())) {
    gchar *p = g_build_filename (dir, s.c_str (), nullptr);
    s = p;
    g_free (p);
  }
  return s;
}

struct Settings {
  std::string detector, detector_mean, expression, labels, expression_mean, clip;
  int frames = 0;
};

bool read_conf (const char *dir, Settings *s)
{
  gchar *file = g_build_filename (dir, "faces.conf", nullptr);
  GKeyFile *kf = g_key_file_new ();
  GError *err = nullptr;
  bool ok = g_key_file_load_from_file (kf, file, G_KEY_FILE_NONE, &err);
  if (ok) {
    s->detector = conf (kf, dir, "detector", "model", true);
    s->detector_mean = conf (kf, dir, "detector", "mean", false);
    s->expression = conf (kf, dir, "expression", "model", true);
    s->labels = conf (kf, dir, "expression", "labels", true);
    s->expression_mean = conf (kf, dir, "expression", "mean", false);
    s->clip = conf (kf, dir, "clip", "file", true);
    s->frames = g_key_file_get_integer (kf, "clip", "frames", nullptr);
    ok = !s->detector.empty () && !s->expression.empty () && !s->clip.empty () && s->frames > 0;
  }
  if (!ok)
    std::fprintf (stderr,
                  "%s: %s: %s; make it with /usr/bin/python3 tools/models/face_api_prepare.py %s (demo.sh "
                  "does)\n",
                  kProgram, file,
                  err ? err->message : "no [detector], [expression] or [clip] model/file/frames", dir);
  g_clear_error (&err);
  g_key_file_unref (kf);
  g_free (file);
  return ok;
}

std::string pipeline_description (const Settings &s, const Demo &d, const char *decoder, const char *mp4,
                                  int reclassify, double smoothing)
{
  gchar *head = g_strdup_printf (
      "filesrc location=\"%s\" ! qtdemux ! h264parse ! %s ! cudaupload ! video/x-raw(memory:CUDAMemory) "
      "! dladetect name=detect model=\"%s\" mean-string=\"%s\" dla-core=0 ! dlatrack name=track "
      "! dlainfer name=classify inference-region=roi-list model=\"%s\" labels=\"%s\" mean-string=\"%s\" "
      "resize-mode=letterbox reclassify-interval=%d smoothing=%g dla-core=1 ! cudadownload ! videoconvert "
      "! video/x-raw,format=NV12 ! identity name=draw",
      s.clip.c_str (), decoder, s.detector.c_str (), s.detector_mean.c_str (), s.expression.c_str (),
      s.labels.c_str (), s.expression_mean.c_str (), reclassify, smoothing);
  std::string desc = head;
  g_free (head);
  if (d.od_overlay)
    desc += " ! objectdetectionoverlay draw-labels=true";
  desc += " ! tee name=t";
  if (!d.png_dir.empty ()) {
    gchar *loc = g_build_filename (d.png_dir.c_str (), "frame-%03d.png", nullptr);
    desc +=
        std::string (" t. ! queue name=png ! videoconvert ! pngenc ! multifilesink location=\"") + loc + "\"";
    g_free (loc);
  }
  if (mp4)
    desc += std::string (" t. ! queue ! x264enc speed-preset=ultrafast ! mp4mux ! filesink location=\"") +
            mp4 + "\"";
  else
    desc += " t. ! queue ! fakesink";
  return desc;
}

}  // namespace

int main (int argc, char **argv)
{
  gchar *dir = nullptr, *png_dir = nullptr, *mp4 = nullptr, *results = nullptr;
  gint png_every = 10, reclassify = 5;
  gdouble smoothing = 0.5;
  const GOptionEntry entries[] = {
      {"dir", 'd', 0, G_OPTION_ARG_FILENAME, &dir, "the folder face_api_prepare.py made (faces.conf)", "DIR"},
      {"png-dir", 0, 0, G_OPTION_ARG_FILENAME, &png_dir, "write frames with boxes, ids and labels here",
       "DIR"},
      {"png-every", 0, 0, G_OPTION_ARG_INT, &png_every, "write every N-th frame (default 10)", "N"},
      {"mp4", 0, 0, G_OPTION_ARG_FILENAME, &mp4, "write the drawn clip here (x264enc)", "FILE"},
      {"results", 0, 0, G_OPTION_ARG_FILENAME, &results, "every object of every frame, for faces-check.py",
       "FILE"},
      {"reclassify-interval", 0, 0, G_OPTION_ARG_INT, &reclassify, "dlainfer's reclassify-interval (5)", "N"},
      {"smoothing", 0, 0, G_OPTION_ARG_DOUBLE, &smoothing, "dlainfer's smoothing (0.5)", "S"},
      {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr}};
  GError *err = nullptr;
  const bool parsed = demo::parse_options (
      &argc, &argv, entries, "- faces detected, tracked and their expressions classified", &err);
  if (!parsed || !dir || png_every < 1 || reclassify < 0 || !(smoothing >= 0 && smoothing < 1)) {
    std::fprintf (
        stderr, "%s: %s\n", kProgram,
        err    ? err->message
        : !dir ? "--dir DIR is required (the folder tools/models/face_api_prepare.py made)"
               : "--png-every must be at least 1, --reclassify-interval at least 0, --smoothing in [0, 1)");
    g_clear_error (&err);
    return 2;
  }
  Settings s;
  if (!read_conf (dir, &s))
    return 2;
  if (!demo::cuda_device_present (kProgram))
    return 3;
  gst_init (&argc, &argv);
  const char *decoder = h264_decoder ();
  if (!decoder) {
    std::fprintf (stderr,
                  "%s: no H.264 decoder (nvh264dec, openh264dec or avdec_h264): apt-get install "
                  "gstreamer1.0-plugins-bad (or gstreamer1.0-libav)\n",
                  kProgram);
    return 1;
  }

  Demo d;
  d.png_every = png_every;
  if (png_dir && demo::have ("pngenc") && demo::have ("multifilesink")) {
    g_mkdir_with_parents (png_dir, 0755);
    d.png_dir = png_dir;
  }
  d.od_overlay = objectdetectionoverlay_present ();
  if (mp4 && !demo::have ("x264enc")) {
    std::printf ("%s: no MP4: x264enc is missing (gstreamer1.0-plugins-ugly)\n", kProgram);
    g_clear_pointer (&mp4, g_free);
  }
  if (results && !(d.results = std::fopen (results, "w"))) {
    std::fprintf (stderr, "%s: cannot write %s\n", kProgram, results);
    return 2;
  }
  const std::string desc = pipeline_description (s, d, decoder, mp4, reclassify, smoothing);
  GstElement *pipeline = gst_parse_launch (desc.c_str (), &err);
  if (!pipeline || err) {
    demo::print_parse_error (kProgram, err, desc.c_str ());
    return 1;
  }
  demo::add_probe (pipeline, "classify", "src", on_classified, &d);
  demo::add_probe (pipeline, "draw", "sink", on_draw, &d);
  if (!d.png_dir.empty ())
    demo::add_probe (pipeline, "png", "src", on_png, &d);
  std::printf (
      "faces: %s, decoded by %s; faces by dladetect on DLA core 0, tracked by dlatrack, expressions by "
      "dlainfer on core 1 every %d frames (smoothing %g); drawn by %s\n",
      s.clip.c_str (), decoder, reclassify + 1, smoothing,
      d.od_overlay ? "objectdetectionoverlay (ids: the demo)" : "the demo (faces_draw.cpp)");
  std::fflush (stdout);

  int rc = demo::run_to_end (pipeline, kProgram);
  const double seconds = std::chrono::duration<double> (d.last - d.first).count ();
  const double fps = d.frames > 1 && seconds > 0 ? double (d.frames - 1) / seconds : 0.0;
  guint64 confirmed = 0;
  for (const auto &t : d.track_frames)
    confirmed += t.second > 0;
  std::printf ("faces summary: %" G_GUINT64_FORMAT " of %d frames, %.1f fps, %" G_GUINT64_FORMAT
               " faces (%" G_GUINT64_FORMAT " with an expression), %" G_GUINT64_FORMAT " confirmed tracks",
               d.frames, s.frames, fps, d.faces, d.classified, confirmed);
  if (mp4)
    std::printf (", MP4 %s", mp4);
  demo::finish_summary (d.backend, d.pngs, d.png_dir);
  if (d.frames != guint64 (s.frames))
    rc = rc ? rc : 1;
  if (d.results)
    std::fclose (d.results);
  gst_object_unref (pipeline);
  g_free (dir);
  g_free (png_dir);
  g_free (mp4);
  g_free (results);
  return rc;
}
