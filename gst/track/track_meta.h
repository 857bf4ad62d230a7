/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: what dlatrack reads from a buffer and writes back (docs/tracking.md).
 *
 * In: the objects as dlainfer reads them (gst/objects/object_source.h): the GstAnalyticsODMtds
 * (>= 1.24 with the analytics library), with the ROI metas of the same box and type, else the ROI
 * metas. Out, for each object a confirmed track holds: a GstAnalyticsTrackingMtd (the id, the
 * track's first-seen and this frame's running time) that the ODMtd relates to with
 * GST_ANALYTICS_REL_TYPE_RELATE_TO (ODMtd -> TrackingMtd, as upstream's ioutracker), and on its
 * ROI meta an "object_id" parameter with the id in its gint field "id" (DL Streamer's gvatrack),
 * replacing one already there. A track that ended gets a TrackingMtd marked lost, related to
 * nothing, on a buffer that has a relation meta. */
#pragma once

#include <gst/gst.h>

#include <vector>

#include "gst/objects/object_source.h"
#include "gst/track/tracker.h"

namespace dlainfer {
namespace track {

/* The buffer's objects and, in the same order, the tracker's detections. */
void read_detections (GstBuffer *buffer, objects::CollectedObjects *objects, std::vector<Detection> *out);

/* Each assigned id written on the object's metas; ended tracks as lost TrackingMtds. `now`: the
 * frame's running time (GST_CLOCK_TIME_NONE when it has none). */
void write_tracks (GstBuffer *buffer, const objects::CollectedObjects &objects,
                   const std::vector<Assigned> &assigned, const std::vector<uint64_t> &ended,
                   GstClockTime now);

/* The "object_id" parameter of a ROI meta set to `id` (any earlier one removed). */
void set_roi_object_id (GstVideoRegionOfInterestMeta *roi, gint id);

}  // namespace track
}  // namespace dlainfer
