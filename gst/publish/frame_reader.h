/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: dlapublish's reading of one buffer's results into a FrameRecord (docs/publish.md).
 *
 * Objects: gst/objects/object_source.h's reader (GstAnalyticsODMtd on >= 1.24 with their
 * TrackingMtd, else GstVideoRegionOfInterestMeta with gvatrack's object_id). Each object's
 * classifications: the parameter structures of its ROI meta that carry a "label" and a
 * "confidence" (dlainfer's, DL Streamer's gvaclassify's), else, on >= 1.24, the GstAnalyticsClsMtd
 * related to its ODMtd (dlainfer writes both: one is reported, never the same result twice). The
 * whole frame's: every GstDlaClassificationMeta (one per dlainfer element), else, on >= 1.24, the
 * ClsMtds related to no object. */
#pragma once

#include <gst/gst.h>

#include "gst/objects/object_source.h"
#include "gst/publish/frame_record.h"

namespace dlainfer {
namespace publish {

/* Fills `record` (its frame number, size and source set by the caller) from `buffer`'s metas.
 * `scratch` keeps its capacity between frames. */
void read_frame (GstBuffer *buffer, objects::CollectedObjects *scratch, FrameRecord *record);

}  // namespace publish
}  // namespace dlainfer
