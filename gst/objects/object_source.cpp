/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gst/objects/field_names.h"
#include "gst/objects/object_source.h"

#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 24, 0)
#define DLAINFER_OBJECTS_ANALYTICS 1
#include <gst/analytics/analytics.h>

#include <algorithm>
#include <tuple>
#endif

namespace dlainfer {
namespace objects {

namespace {

using field_names::has_name;
using field_names::Name;
using field_names::value;

struct RoiNames {
  Name detection, confidence, object_id, id;
};

/* Made once: a per-object lookup by string takes GLib's global quark lock per field. */
const RoiNames &roi_names ()
{
  using field_names::name;
  static const RoiNames n{name ("detection"), name ("confidence"), name ("object_id"), name ("id")};
  return n;
}

/* The first "detection" and "object_id" parameter structures (those
 * gst_video_region_of_interest_meta_get_param finds), in one walk. */
struct RoiParams {
  const GstStructure *detection = nullptr, *object_id = nullptr;
};

RoiParams roi_params (const GstVideoRegionOfInterestMeta *roi)
{
  const RoiNames &n = roi_names ();
  RoiParams p;
  for (const GList *l = roi->params; l; l = l->next) {
    const auto *s = static_cast<const GstStructure *> (l->data);
    if (!p.detection && has_name (s, n.detection))
      p.detection = s;
    else if (!p.object_id && has_name (s, n.object_id))
      p.object_id = s;
  }
  return p;
}

/* gvatrack's object_id parameter: an int "id", not negative. */
bool tracking_id_of (const GstStructure *object_id, guint64 *id)
{
  const GValue *v = object_id ? value (object_id, roi_names ().id) : nullptr;
  if (!v || G_VALUE_TYPE (v) != G_TYPE_INT || g_value_get_int (v) < 0)
    return false;
  *id = guint64 (g_value_get_int (v));
  return true;
}

std::vector<GstVideoRegionOfInterestMeta *> roi_metas (GstBuffer *buffer)
{
  std::vector<GstVideoRegionOfInterestMeta *> out;
  out.reserve (
      gst_buffer_get_n_meta (buffer, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)); /* one allocation */
  gpointer state = nullptr;
  GstMeta *meta;
  while (
      (meta = gst_buffer_iterate_meta_filtered (buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    out.push_back (reinterpret_cast<GstVideoRegionOfInterestMeta *> (meta));
  return out;
}

}  // namespace

DetectedObject object_from_roi (GstVideoRegionOfInterestMeta *roi)
{
  DetectedObject o;
  o.box = {int64_t (roi->x), int64_t (roi->y), int64_t (roi->w), int64_t (roi->h)};
  o.label = roi->roi_type;
  const RoiParams params = roi_params (roi);
  o.tracked = tracking_id_of (params.object_id, &o.tracking_id);
  const GValue *conf = params.detection ? value (params.detection, roi_names ().confidence) : nullptr;
  if (conf && G_VALUE_TYPE (conf) == G_TYPE_DOUBLE) {
    o.has_confidence = true;
    o.confidence = float (g_value_get_double (conf));
  }
  o.write_back.roi = roi;
  return o;
}

namespace {

/* The ROI metas as the objects (no ODMtd on the buffer, or no analytics library). */
CollectedObjects from_roi_metas (GstBuffer *buffer)
{
  CollectedObjects out;
  const std::vector<GstVideoRegionOfInterestMeta *> rois = roi_metas (buffer);
  out.objects.reserve (rois.size ());
  for (GstVideoRegionOfInterestMeta *roi : rois)
    out.objects.push_back (object_from_roi (roi));
  out.origin = out.objects.empty () ? ObjectOrigin::kNone : ObjectOrigin::kRoiMeta;
  return out;
}

}  // namespace

#ifdef DLAINFER_OBJECTS_ANALYTICS

namespace {

/* The ids of the buffer's tracking mtds, in one pass; the tracking ids of those marked lost into
 * *ended. */
std::vector<guint> tracking_mtds (GstAnalyticsRelationMeta *rmeta, std::vector<guint64> *ended)
{
  std::vector<guint> ids;
  gpointer state = nullptr;
  GstAnalyticsTrackingMtd trk;
  while (
      gst_analytics_relation_meta_iterate (rmeta, &state, gst_analytics_tracking_mtd_get_mtd_type (), &trk)) {
    ids.push_back (trk.id);
    guint64 id = 0;
    GstClockTime first = 0, last = 0;
    gboolean lost = FALSE;
    if (gst_analytics_tracking_mtd_get_info (&trk, &id, &first, &last, &lost) && lost)
      ended->push_back (id);
  }
  return ids;
}

/* A tracking mtd related to the ODMtd, from the ODMtd or towards it (trackers differ); each
 * relation-meta query counts in *lookups. */
bool related_tracking (GstAnalyticsRelationMeta *rmeta, guint od_id, const std::vector<guint> &trackers,
                       GstAnalyticsTrackingMtd *trk, uint64_t *lookups)
{
  gpointer state = nullptr;
  ++*lookups;
  if (gst_analytics_relation_meta_get_direct_related (
          rmeta, od_id, GST_ANALYTICS_REL_TYPE_ANY, gst_analytics_tracking_mtd_get_mtd_type (), &state, trk))
    return true;
  for (guint t : trackers) {
    ++*lookups;
    if (gst_analytics_relation_meta_get_relation (rmeta, t, od_id) != GST_ANALYTICS_REL_TYPE_NONE)
      return gst_analytics_relation_meta_get_mtd (rmeta, t, gst_analytics_tracking_mtd_get_mtd_type (),
                                                  reinterpret_cast<GstAnalyticsMtd *> (trk));
  }
  return false;
}

DetectedObject object_from_od (GstAnalyticsODMtd *od)
{
  DetectedObject o;
  gint x = 0, y = 0, w = 0, h = 0;
  gfloat conf = 0.0f;
  if (gst_analytics_od_mtd_get_location (od, &x, &y, &w, &h, &conf)) {
    o.box = {x, y, w, h};
    o.has_confidence = true;
    o.confidence = conf;
  }
  o.label = gst_analytics_od_mtd_get_obj_type (od);
  o.write_back.has_od_mtd = true;
  o.write_back.od_mtd_id = od->id;
  return o;
}

using BoxKey = std::tuple<int64_t, int64_t, int64_t, int64_t, GQuark>;

BoxKey key_of (const GstVideoRegionOfInterestMeta *roi)
{
  return {roi->x, roi->y, roi->w, roi->h, roi->roi_type};
}

/* ROI metas that describe the same objects as ODMtds (same rectangle and type), each used once, the
 * earliest first. Sorted once (stable: equal boxes keep their order), each ODMtd a binary search:
 * no allocation per ROI meta, and 10 000 equal boxes stay n log n. */
void attach_rois (std::vector<DetectedObject> &objects, GstBuffer *buffer)
{
  std::vector<GstVideoRegionOfInterestMeta *> rois = roi_metas (buffer);
  const auto by_key = [] (const GstVideoRegionOfInterestMeta *a, const GstVideoRegionOfInterestMeta *b) {
    return key_of (a) < key_of (b);
  };
  std::stable_sort (rois.begin (), rois.end (), by_key);
  std::vector<uint32_t> used (rois.size (), 0); /* at the first of each run of equal boxes: how many went */
  for (DetectedObject &o : objects) {
    const BoxKey key{o.box.x, o.box.y, o.box.width, o.box.height, o.label};
    const auto first = std::lower_bound (
        rois.begin (), rois.end (), key,
        [] (const GstVideoRegionOfInterestMeta *r, const BoxKey &k) { return key_of (r) < k; });
    const size_t run = size_t (first - rois.begin ()), i = run + (run < used.size () ? used[run] : 0);
    if (i >= rois.size () || key_of (rois[i]) != key)
      continue;
    ++used[run];
    o.write_back.roi = rois[i];
    /* gvatrack's object_id until a TrackingMtd says otherwise (resolve_tracking). */
    o.tracked = tracking_id_of (roi_params (rois[i]).object_id, &o.tracking_id);
  }
}

}  // namespace

bool reads_analytics ()
{
  return true;
}

CollectedObjects collect_objects (GstBuffer *buffer)
{
  CollectedObjects out;
  if (GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buffer)) {
    out.objects.reserve (gst_analytics_relation_get_length (rmeta)); /* every mtd: at least the ODMtds */
    gpointer state = nullptr;
    GstAnalyticsODMtd od;
    while (gst_analytics_relation_meta_iterate (rmeta, &state, gst_analytics_od_mtd_get_mtd_type (), &od))
      out.objects.push_back (object_from_od (&od));
  }
  if (out.objects.empty ())
    return from_roi_metas (buffer);
  out.origin = ObjectOrigin::kAnalytics;
  attach_rois (out.objects, buffer);
  return out;
}

void resolve_tracking (GstBuffer *buffer, const std::vector<SelectedObject> &kept, CollectedObjects *found)
{
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buffer);
  if (found->origin != ObjectOrigin::kAnalytics || !rmeta)
    return;
  const std::vector<guint> trackers = tracking_mtds (rmeta, &found->ended);
  if (trackers.empty ())
    return;
  for (const SelectedObject &k : kept) {
    DetectedObject &o = found->objects[k.index];
    GstAnalyticsTrackingMtd trk;
    if (!related_tracking (rmeta, o.write_back.od_mtd_id, trackers, &trk, &found->tracking_lookups))
      continue;
    gboolean lost = FALSE;
    GstClockTime first = 0, last = 0;
    guint64 id = 0;
    if (!gst_analytics_tracking_mtd_get_info (&trk, &id, &first, &last, &lost))
      continue;
    o.tracked = true;
    o.tracking_id = id;
    o.tracking_lost = lost;
  }
}

#else

bool reads_analytics ()
{
  return false;
}

CollectedObjects collect_objects (GstBuffer *buffer)
{
  return from_roi_metas (buffer);
}

void resolve_tracking (GstBuffer *, const std::vector<SelectedObject> &, CollectedObjects *) {}

#endif

}  // namespace objects
}  // namespace dlainfer
