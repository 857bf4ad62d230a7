/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: dlatrack's metas in and out (track_meta.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>

#include "gst/track/track_meta.h"

#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 24, 0)
#define DLATRACK_ANALYTICS 1
#include <gst/analytics/analytics.h>
#endif

namespace dlainfer {
namespace track {

void read_detections (GstBuffer *buffer, objects::CollectedObjects *objects, std::vector<Detection> *out)
{
  *objects = objects::collect_objects (buffer);
  out->clear ();
  out->reserve (objects->objects.size ());
  for (const objects::DetectedObject &o : objects->objects)
    out->push_back (
        {{double (o.box.x), double (o.box.y), double (o.box.width), double (o.box.height)}, o.label});
}

void set_roi_object_id (GstVideoRegionOfInterestMeta *roi, gint id)
{
  /* The params list is the meta's public field; the API only appends. */
  for (GList *l = roi->params; l;) {
    GList *next = l->next;
    if (gst_structure_has_name (static_cast<GstStructure *> (l->data), "object_id")) {
      gst_structure_free (static_cast<GstStructure *> (l->data));
      roi->params = g_list_delete_link (roi->params, l);
    }
    l = next;
  }
  gst_video_region_of_interest_meta_add_param (
      roi, gst_structure_new ("object_id", "id", G_TYPE_INT, id, nullptr));
}

#ifdef DLATRACK_ANALYTICS

namespace {

void relate_tracking (GstAnalyticsRelationMeta *rmeta, guint od_id, const Assigned &a, GstClockTime now)
{
  GstAnalyticsTrackingMtd trk;
  if (!gst_analytics_relation_meta_add_tracking_mtd (rmeta, a.id, a.first_seen, &trk))
    return;
  if (GST_CLOCK_TIME_IS_VALID (now))
    gst_analytics_tracking_mtd_update_last_seen (&trk, now);
  gst_analytics_relation_meta_set_relation (rmeta, GST_ANALYTICS_REL_TYPE_RELATE_TO, od_id, trk.id);
}

void mark_ended (GstAnalyticsRelationMeta *rmeta, const std::vector<uint64_t> &ended)
{
  for (uint64_t id : ended) {
    GstAnalyticsTrackingMtd trk;
    if (gst_analytics_relation_meta_add_tracking_mtd (rmeta, id, 0, &trk))
      gst_analytics_tracking_mtd_set_lost (&trk);
  }
}

}  // namespace

#endif

void write_tracks (GstBuffer *buffer, const objects::CollectedObjects &objects,
                   const std::vector<Assigned> &assigned, const std::vector<uint64_t> &ended,
                   GstClockTime now)
{
#ifdef DLATRACK_ANALYTICS
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buffer);
#else
  (void)buffer;
  (void)ended;
  (void)now;
#endif
  for (size_t i = 0; i < objects.objects.size () && i < assigned.size (); ++i) {
    const Assigned &a = assigned[i];
    if (a.id == 0)
      continue;
    const objects::WriteBack &wb = objects.objects[i].write_back;
    if (wb.roi)
      set_roi_object_id (wb.roi, gint (a.id));
#ifdef DLATRACK_ANALYTICS
    if (wb.has_od_mtd && rmeta)
      relate_tracking (rmeta, wb.od_mtd_id, a, now);
#endif
  }
#ifdef DLATRACK_ANALYTICS
  if (rmeta)
    mark_ended (rmeta, ended);
#endif
}

}  // namespace track
}  // namespace dlainfer
