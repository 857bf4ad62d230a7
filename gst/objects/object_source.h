/* gst-dlainfer: the objects a detector put on a buffer (secondary classification, issue #22).
 *
 * GStreamer >= 1.24 with the analytics library (HAVE_GST_ANALYTICS): every GstAnalyticsODMtd of
 * the buffer's GstAnalyticsRelationMeta, in the meta's order; the tracking id is that of a
 * GstAnalyticsTrackingMtd related to the ODMtd in either direction, with its `lost` flag. When a
 * GstVideoRegionOfInterestMeta has the same rectangle and type as an ODMtd, it is that object's
 * too (results are written to both later). ROI metas are the objects only when the buffer has no
 * ODMtd, and on every version without the analytics library.
 *
 * A ROI meta's tracking id: the "id" field of its "object_id" parameter structure when present
 * (DL Streamer's gvatrack), else the meta's `id` when > 0. `id` 0 is what
 * gst_buffer_add_video_region_of_interest_meta leaves, so a detector that sets no id yields
 * untracked objects; `parent_id` says which object this one is part of, never its identity. A
 * confidence comes from the "confidence" field of a "detection" parameter structure (DL
 * Streamer's detectors write it). */
#pragma once

#include <gst/gst.h>

#include <vector>

#include "gst/objects/detected_object.h"

namespace dlainfer {
namespace objects {

enum class ObjectOrigin { kNone, kAnalytics, kRoiMeta };

struct CollectedObjects {
  ObjectOrigin origin = ObjectOrigin::kNone;
  std::vector<DetectedObject> objects;
};

/* Whether this build reads GstAnalyticsODMtd (GStreamer >= 1.24 with its analytics library). */
bool reads_analytics ();

/* The buffer's objects, unclipped and unfiltered (objects/selection.h does that). The write-back
 * handles stay valid while the buffer and its metas do. */
CollectedObjects collect_objects (GstBuffer *buffer);

/* One ROI meta as an object (tracking id and confidence as above). */
DetectedObject object_from_roi (GstVideoRegionOfInterestMeta *roi);

}  // namespace objects
}  // namespace dlainfer
