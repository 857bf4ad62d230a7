/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the objects a detector put on a buffer (secondary classification).
 *
 * GStreamer >= 1.24 with the analytics library (HAVE_GST_ANALYTICS): every GstAnalyticsODMtd of
 * the buffer's GstAnalyticsRelationMeta, in the meta's order; the tracking id is that of a
 * GstAnalyticsTrackingMtd related to the ODMtd in either direction, with its `lost` flag, else
 * that of the matching ROI meta's "object_id" parameter. When a GstVideoRegionOfInterestMeta has
 * the same rectangle and type as an ODMtd, it is that object's too (results are written to both
 * later). ROI metas are the objects only when the buffer has no ODMtd, and on every version
 * without the analytics library.
 *
 * A ROI meta's tracking id: the "id" field of its "object_id" parameter structure (DL Streamer's
 * gvatrack), nothing else. The meta's own `id` is no tracking id: DL Streamer's detectors set it
 * to the ODMtd's index on each frame, roimux to the meta's index, other paths to a sequence
 * number, so the same value names different objects on consecutive frames. `parent_id` says
 * which object this one is part of, never its identity. A confidence comes from the "confidence"
 * field of a "detection" parameter structure (DL Streamer's detectors write it).
 *
 * The TrackingMtd lookups cost a scan of the relation meta each, so they run after the selection
 * (resolve_tracking), for at most kMaxObjectsPerFrame objects, never for all 10 000 boxes. */
#pragma once

#include <gst/gst.h>

#include <vector>

#include "gst/objects/detected_object.h"
#include "gst/objects/selection.h"

namespace dlainfer {
namespace objects {

enum class ObjectOrigin { kNone, kAnalytics, kRoiMeta };

struct CollectedObjects {
  ObjectOrigin origin = ObjectOrigin::kNone;
  std::vector<DetectedObject> objects;
  uint64_t tracking_lookups = 0; /* relation-meta queries resolve_tracking made */
  std::vector<guint64> ended;    /* ids of the buffer's TrackingMtds marked lost (a tracker ended them) */
};

/* Whether this build reads GstAnalyticsODMtd (GStreamer >= 1.24 with its analytics library). */
bool reads_analytics ();

/* The buffer's objects, unclipped and unfiltered (objects/selection.h does that), tracked by
 * their ROI metas' object_id only. The write-back handles stay valid while the buffer and its
 * metas do. */
CollectedObjects collect_objects (GstBuffer *buffer);

/* The TrackingMtd of each `kept` ODMtd object of `found` (collected from `buffer`) replaces its
 * tracking: id and `lost` flag; the ids of every TrackingMtd marked lost go to found->ended
 * (dlatrack and ioutracker report an ended track so, related to no detection). Nothing for
 * ROI-meta objects. */
void resolve_tracking (GstBuffer *buffer, const std::vector<SelectedObject> &kept, CollectedObjects *found);

/* One ROI meta as an object (tracking id and confidence as above). */
DetectedObject object_from_roi (GstVideoRegionOfInterestMeta *roi);

}  // namespace objects
}  // namespace dlainfer
