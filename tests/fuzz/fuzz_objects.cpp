/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The objects a detector put on a buffer and what dlapublish reads of them: ROI metas with any
 * rectangle, type, meta id and parameter structures (DL Streamer's object_id and detection, or
 * anything else), and where GStreamer has GstAnalytics (>= 1.24) ODMtds with their TrackingMtds
 * (related either way, lost or not) and ClsMtds, and dlainfer's own classification meta. Then
 * collected, selected for a frame and their tracking resolved, as dlainfer does for every frame,
 * and read into a message and written as JSON, as dlapublish does.
 *
 * The input, split at newlines: line 0 the frame's size and the selection; then per object one
 * line of numbers and one of parameters (structures as text, ';'-separated), e.g.
 *   "1 10 20 30 40 7 0\nobject_id, id=(int)5;detection, confidence=(double)0.5".
 * The numbers: type, x, y, w, h, id, then `how` (bits, below): 0 a ROI meta alone. */
#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "config.h"
#include "fuzz_check.h"
#include "gst/meta/gstdlameta.h"
#include "gst/objects/object_source.h"
#include "gst/objects/selection.h"
#include "gst/publish/frame_json.h"
#include "gst/publish/frame_reader.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

namespace {

enum How : unsigned {
  kOdMtd = 1,          /* an ODMtd with the same box and type */
  kNoRoi = 2,          /* and no ROI meta */
  kTracking = 4,       /* a TrackingMtd (tracking id = id) related to the ODMtd */
  kTrackingToward = 8, /* related from the TrackingMtd towards the ODMtd (trackers differ) */
  kLost = 16,          /* the track is marked lost */
  kClsRelated = 32,    /* a ClsMtd related to the ODMtd */
  kClsFrame = 64,      /* a ClsMtd related to nothing (the frame's) */
  kDlaMeta = 128,      /* a dlainfer classification meta (the frame's) */
};

std::vector<std::string> split (const std::string &s, char sep)
{
  std::vector<std::string> out;
  std::string item;
  std::istringstream in (s);
  while (std::getline (in, item, sep))
    out.push_back (item);
  return out;
}

const char *const kTypes[] = {"car", "person", "", "bus", "car\xff"};

struct Line {
  unsigned type = 0, x = 0, y = 0, w = 0, h = 0, how = 0;
  int id = 0;
};

void add_roi (GstBuffer *buf, const Line &l, const std::string &params)
{
  GstVideoRegionOfInterestMeta *roi = gst_buffer_add_video_region_of_interest_meta (
      buf, kTypes[l.type % G_N_ELEMENTS (kTypes)], l.x, l.y, l.w, l.h);
  roi->id = l.id;
  for (const std::string &text : split (params, ';'))
    if (GstStructure *s = gst_structure_from_string (text.c_str (), nullptr))
      gst_video_region_of_interest_meta_add_param (roi, s);
}

void add_dla_meta (GstBuffer *buf, const Line &l)
{
  const GstDlaClassification result{l.id, g_quark_from_string (kTypes[l.type % G_N_ELEMENTS (kTypes)]),
                                    float (l.w) / 100.0f};
  gst_buffer_add_dla_classification_meta_full (
      buf, &result, l.h % 2, g_quark_from_static_string ("dlainfer0"), g_quark_from_static_string ("swdla"),
      int (l.x % 3) - 1, l.y % 2, l.w);
}

#ifdef HAVE_GST_ANALYTICS
void add_analytics (GstBuffer *buf, const Line &l)
{
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buf);
  if (!rmeta)
    rmeta = gst_buffer_add_analytics_relation_meta (buf);
  const GQuark type = g_quark_from_string (kTypes[l.type % G_N_ELEMENTS (kTypes)]);
  GstAnalyticsODMtd od;
  if (!gst_analytics_relation_meta_add_od_mtd (rmeta, type, gint (l.x), gint (l.y), gint (l.w), gint (l.h),
                                               float (l.id) / 100.0f, &od))
    return;
  if (l.how & kTracking) {
    GstAnalyticsTrackingMtd trk;
    if (gst_analytics_relation_meta_add_tracking_mtd (rmeta, guint64 (gint64 (l.id)), 0, &trk)) {
      if (l.how & kLost)
        gst_analytics_tracking_mtd_set_lost (&trk);
      const bool toward = l.how & kTrackingToward;
      gst_analytics_relation_meta_set_relation (rmeta, GST_ANALYTICS_REL_TYPE_RELATE_TO,
                                                toward ? trk.id : od.id, toward ? od.id : trk.id);
    }
  }
  GstAnalyticsClsMtd cls;
  if ((l.how & (kClsRelated | kClsFrame)) &&
      gst_analytics_relation_meta_add_one_cls_mtd (rmeta, float (l.w) / 100.0f, type, &cls) &&
      (l.how & kClsRelated))
    gst_analytics_relation_meta_set_relation (rmeta, GST_ANALYTICS_REL_TYPE_RELATE_TO, od.id, cls.id);
}
#else
void add_analytics (GstBuffer *, const Line &) {}
#endif

/* dlainfer's per-frame reading: collect, select, resolve the tracking. */
void select_like_dlainfer (GstBuffer *buf, const std::string &frame_line)
{
  int64_t width = 320, height = 240, min_w = 16, min_h = 16;
  uint32_t max_objects = 0;
  std::istringstream (frame_line) >> width >> height >> min_w >> min_h >> max_objects;
  dlainfer::objects::CollectedObjects found = dlainfer::objects::collect_objects (buf);
  dlainfer::objects::SelectionParams p;
  p.min_width = min_w;
  p.min_height = min_h;
  p.max_objects = max_objects;
  if (width % 3 == 0)
    p.classes = {g_quark_from_string ("car")};
  dlainfer::objects::SelectionCounts counts;
  const std::vector<dlainfer::objects::SelectedObject> kept =
      dlainfer::objects::select_objects (found.objects, width, height, p, &counts);
  dlainfer::objects::resolve_tracking (buf, kept, &found);
  for (const dlainfer::objects::SelectedObject &k : kept) {
    fuzz::check (k.index < found.objects.size (), "a selected object is one of those collected");
    fuzz::check (k.box.width > 0 && k.box.height > 0, "a selected box is not empty");
    fuzz::check (
        k.box.x >= 0 && k.box.y >= 0 && k.box.x + k.box.width <= width && k.box.y + k.box.height <= height,
        "a selected box lies in the frame");
  }
}

/* dlapublish's: one message per frame, every object's results inside the message's list. */
void publish_like_dlapublish (GstBuffer *buf)
{
  dlainfer::objects::CollectedObjects scratch;
  dlainfer::publish::FrameRecord record;
  dlainfer::publish::read_frame (buf, &scratch, &record);
  fuzz::check (record.objects.size () == scratch.objects.size (), "one message object per object found");
  for (const dlainfer::publish::ObjectRecord &o : record.objects)
    fuzz::check (o.n_classes == 0 || o.first_class + o.n_classes <= record.object_classes.size (),
                 "an object's results lie in the message's list");
  std::string json;
  dlainfer::publish::frame_json (record, "fuzz", &json);
  fuzz::check (json.size () >= 2 && json.front () == '{' && json.back () == '}',
               "the message is one JSON object");
  fuzz::check (json.find ('\n') == std::string::npos, "the message is one line");
  fuzz::check (g_utf8_validate (json.data (), gssize (json.size ()), nullptr), "the message is UTF-8");
}

}  // namespace

/* GStreamer's one-time allocations (types, quarks) before the first input: not leaks of one. */
extern "C" int LLVMFuzzerInitialize (int *, char ***)
{
  gst_init (nullptr, nullptr);
  GstBuffer *warm = gst_buffer_new ();
  Line all;
  all.how = 0xff;
  add_roi (warm, all, "object_id, id=(int)1");
  add_analytics (warm, all);
  add_dla_meta (warm, all);
  publish_like_dlapublish (warm);
  gst_buffer_unref (warm);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const std::vector<std::string> lines =
      split (std::string (reinterpret_cast<const char *> (data), size), '\n');
  if (lines.empty ())
    return 0;
  GstBuffer *buf = gst_buffer_new ();
  for (size_t i = 1; i < lines.size () && i < 1 + 2 * 64; i += 2) {
    Line l;
    std::istringstream (lines[i]) >> l.type >> l.x >> l.y >> l.w >> l.h >> l.id >> l.how;
    if (!(l.how & kNoRoi))
      add_roi (buf, l, i + 1 < lines.size () ? lines[i + 1] : std::string ());
    if (l.how & (kOdMtd | kNoRoi))
      add_analytics (buf, l);
    if (l.how & kDlaMeta)
      add_dla_meta (buf, l);
  }
  select_like_dlainfer (buf, lines[0]);
  publish_like_dlapublish (buf);
  gst_buffer_unref (buf);
  return 0;
}
