/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-dlatrack
 *
 * Gives the objects a detector put on each frame tracking ids that last while the object does,
 * so that `dlainfer inference-region=roi-list` can carry and smooth each object's result
 * (docs/tracking.md). Host code only: IoU association with a constant-velocity prediction
 * (gst/track/tracker.h). Reads GstAnalyticsODMtd (>= 1.24) and GstVideoRegionOfInterestMeta;
 * writes a GstAnalyticsTrackingMtd related to each ODMtd and gvatrack's "object_id" on each ROI
 * meta (gst/track/track_meta.h). Buffers without objects pass unchanged.
 *
 *   ... ! <a detector> ! dlatrack ! dlainfer inference-region=roi-list reclassify-interval=5 ! ...
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <vector>

#include "gst/gstdlatrack.h"
#include "gst/track/track_meta.h"
#include "gst/track/tracker.h"

GST_DEBUG_CATEGORY_STATIC (gst_dla_track_debug);
#define GST_CAT_DEFAULT gst_dla_track_debug

enum { PROP_0, PROP_IOU_THRESHOLD, PROP_MAX_AGE, PROP_MIN_HITS, PROP_STATS };

namespace {

constexpr guint kMaxMaxAge = 100000; /* about an hour at 30 fps */
constexpr guint kMaxMinHits = 1000;

/* What the streaming thread keeps between frames (the object lock guards params and tracker). */
struct TrackState {
  dlainfer::track::Tracker tracker;
  dlainfer::track::TrackerParams params;
  GstClockTime last_running_time = GST_CLOCK_TIME_NONE;
  dlainfer::objects::CollectedObjects objects; /* scratch */
  std::vector<dlainfer::track::Detection> detections;
  std::vector<dlainfer::track::Assigned> assigned;
  std::vector<uint64_t> ended;
};

}  // namespace

struct _GstDlaTrack {
  GstBaseTransform parent;
  TrackState *state;
};

G_DEFINE_TYPE (GstDlaTrack, gst_dla_track, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (dla_track, "dlatrack", GST_RANK_NONE, GST_TYPE_DLA_TRACK);

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static GstStructure *stats_structure (const dlainfer::track::Tracker &t)
{
  const dlainfer::track::TrackerCounts &c = t.counts ();
  return gst_structure_new ("dlatrack-stats", "frames", G_TYPE_UINT64, c.frames, "detections", G_TYPE_UINT64,
                            c.detections, "matched", G_TYPE_UINT64, c.matched, "started", G_TYPE_UINT64,
                            c.started, "confirmed", G_TYPE_UINT64, c.confirmed, "ended", G_TYPE_UINT64,
                            c.ended, "dropped-tentative", G_TYPE_UINT64, c.dropped_tentative, "at-cap",
                            G_TYPE_UINT64, c.at_cap, "resets", G_TYPE_UINT64, c.resets, "tracks",
                            G_TYPE_UINT64, guint64 (t.size ()), "max-tracks", G_TYPE_UINT64,
                            guint64 (t.max_tracks ()), "next-id", G_TYPE_UINT64, t.next_id (), nullptr);
}

static void gst_dla_track_set_property (GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  GstDlaTrack *self = GST_DLA_TRACK (object);
  GST_OBJECT_LOCK (self);
  dlainfer::track::TrackerParams &p = self->state->params;
  switch (id) {
    case PROP_IOU_THRESHOLD:
      p.iou_threshold = g_value_get_float (value);
      break;
    case PROP_MAX_AGE:
      p.max_age = g_value_get_uint (value);
      break;
    case PROP_MIN_HITS:
      p.min_hits = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void gst_dla_track_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  GstDlaTrack *self = GST_DLA_TRACK (object);
  GST_OBJECT_LOCK (self);
  const dlainfer::track::TrackerParams &p = self->state->params;
  switch (id) {
    case PROP_IOU_THRESHOLD:
      g_value_set_float (value, p.iou_threshold);
      break;
    case PROP_MAX_AGE:
      g_value_set_uint (value, p.max_age);
      break;
    case PROP_MIN_HITS:
      g_value_set_uint (value, p.min_hits);
      break;
    case PROP_STATS:
      g_value_take_boxed (value, stats_structure (self->state->tracker));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Timestamps going back (a seek without flush, a looping source): the tracks go, counted. */
static void check_time (GstDlaTrack *self, GstClockTime now)
{
  TrackState &s = *self->state;
  if (GST_CLOCK_TIME_IS_VALID (now) && GST_CLOCK_TIME_IS_VALID (s.last_running_time) &&
      now < s.last_running_time) {
    GST_DEBUG_OBJECT (self, "running time went back by %" GST_TIME_FORMAT ": tracks reset",
                      GST_TIME_ARGS (s.last_running_time - now));
    s.tracker.reset ();
  }
  if (GST_CLOCK_TIME_IS_VALID (now))
    s.last_running_time = now;
}

static GstFlowReturn gst_dla_track_transform_ip (GstBaseTransform *trans, GstBuffer *buffer)
{
  GstDlaTrack *self = GST_DLA_TRACK (trans);
  TrackState &s = *self->state;
  const GstClockTime now =
      trans->segment.format == GST_FORMAT_TIME
          ? gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME, GST_BUFFER_PTS (buffer))
          : GST_CLOCK_TIME_NONE;
  dlainfer::track::read_detections (buffer, &s.objects, &s.detections);
  GST_OBJECT_LOCK (self);
  check_time (self, now);
  s.tracker.set_params (s.params);
  s.tracker.update (s.detections, GST_CLOCK_TIME_IS_VALID (now) ? now : 0, &s.assigned, &s.ended);
  const size_t tracks = s.tracker.size ();
  GST_OBJECT_UNLOCK (self);
  if (!s.detections.empty () || !s.ended.empty ())
    dlainfer::track::write_tracks (buffer, s.objects, s.assigned, s.ended, now);
  GST_LOG_OBJECT (self, "%zu object(s), %zu track(s), %zu ended", s.detections.size (), tracks,
                  s.ended.size ());
  return GST_FLOW_OK;
}

static void reset_tracks (GstDlaTrack *self)
{
  GST_OBJECT_LOCK (self);
  self->state->tracker.reset ();
  self->state->last_running_time = GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (self);
}

static gboolean gst_dla_track_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_STOP:
    case GST_EVENT_STREAM_START:
      reset_tracks (GST_DLA_TRACK (trans));
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_dla_track_parent_class)->sink_event (trans, event);
}

/* A start begins the ids again at 1. */
static gboolean gst_dla_track_start (GstBaseTransform *trans)
{
  GstDlaTrack *self = GST_DLA_TRACK (trans);
  GST_OBJECT_LOCK (self);
  self->state->tracker.restart ();
  self->state->last_running_time = GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static void gst_dla_track_finalize (GObject *object)
{
  delete GST_DLA_TRACK (object)->state;
  G_OBJECT_CLASS (gst_dla_track_parent_class)->finalize (object);
}

static void gst_dla_track_init (GstDlaTrack *self)
{
  self->state = new TrackState ();
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), FALSE);
}

static void install_properties (GObjectClass *oc)
{
  const auto flags = GParamFlags (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  const dlainfer::track::TrackerParams d;
  g_object_class_install_property (
      oc, PROP_IOU_THRESHOLD,
      g_param_spec_float ("iou-threshold", "IoU threshold",
                          "Least intersection-over-union of a detection with a track's predicted box for the "
                          "two to match (0: any overlap)",
                          0.0f, 1.0f, d.iou_threshold, flags));
  g_object_class_install_property (
      oc, PROP_MAX_AGE,
      g_param_spec_uint ("max-age", "Maximum age",
                         "Frames a confirmed track is kept without a matching detection (its box predicted) "
                         "before it ends; its id is never used again",
                         0, kMaxMaxAge, d.max_age, flags));
  g_object_class_install_property (
      oc, PROP_MIN_HITS,
      g_param_spec_uint ("min-hits", "Minimum hits",
                         "Frames in a row a new track must match a detection before it is confirmed and "
                         "its objects get its id (1: at once)",
                         1, kMaxMinHits, d.min_hits, flags));
  g_object_class_install_property (
      oc, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
                          "Counts since start: frames, detections, matched, started, confirmed, ended, "
                          "dropped-tentative, at-cap (detections with no track: the tracks were at "
                          "max-tracks), resets; tracks now, max-tracks, next-id",
                          GST_TYPE_STRUCTURE, GParamFlags (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
}

static void gst_dla_track_class_init (GstDlaTrackClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *bc = GST_BASE_TRANSFORM_CLASS (klass);
  GST_DEBUG_CATEGORY_INIT (gst_dla_track_debug, "dlatrack", 0, "IoU tracker for dlainfer's objects");
  oc->set_property = gst_dla_track_set_property;
  oc->get_property = gst_dla_track_get_property;
  oc->finalize = gst_dla_track_finalize;
  install_properties (oc);
  gst_element_class_add_static_pad_template (ec, &sink_template);
  gst_element_class_add_static_pad_template (ec, &src_template);
  gst_element_class_set_static_metadata (
      ec, "DLA object tracker", "Filter/Analyzer/Video",
      "Tracks detected objects across frames by IoU with a constant-velocity prediction and attaches "
      "tracking ids (GstAnalyticsTrackingMtd, ROI meta object_id)",
      "gst-dlainfer developers");
  bc->transform_ip = GST_DEBUG_FUNCPTR (gst_dla_track_transform_ip);
  bc->sink_event = GST_DEBUG_FUNCPTR (gst_dla_track_sink_event);
  bc->start = GST_DEBUG_FUNCPTR (gst_dla_track_start);
}
