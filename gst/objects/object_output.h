/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: each object's result written back on its buffer (inference-region=roi-list,
 * docs/objects.md), where applications and both ecosystems' elements look for it:
 *  - every version: a parameter structure on the object's GstVideoRegionOfInterestMeta
 *    (gst_video_region_of_interest_meta_add_param), named by `attribute-name`, with DL Streamer's
 *    field names: label (string), label_id (int), confidence (double; top-1), labels, label_ids and
 *    confidences (arrays, best first), model_name, layer_name, carried (boolean), age (uint),
 *    backend (string). An earlier structure of the same name on the meta is replaced.
 *  - GStreamer >= 1.24 with GstAnalytics: one GstAnalyticsClsMtd per object with an ODMtd, related
 *    CONTAIN|RELATE_TO from the detection and IS_PART_OF|RELATE_TO back (upstream's readers follow
 *    RELATE_TO from the detection, DL Streamer's CONTAIN and IS_PART_OF).
 * When both metas describe the object, both are written. An object without a result (every score
 * under `threshold`) gets nothing. No CUDA. */
#pragma once

#include <gst/gst.h>

#include "gst/objects/field_names.h"
#include "gst/objects/frame_objects.h"

namespace dlainfer {
namespace objects {

/* The names each result is written under, resolved once per stream (the attribute's quark and
 * structure name: the global quark lock not taken per object; the strings interned with
 * g_intern_string, so the structures share them, copies too). */
struct OutputNames {
  OutputNames () = default;
  /* `attribute`: the ROI parameter structure's name. */
  OutputNames (const char *attribute, const char *model_name, const char *layer_name, const char *backend)
      : attribute (g_quark_from_string (attribute)),
        attribute_name (field_names::name (g_quark_to_string (this->attribute))),
        model_name (g_intern_string (model_name)),
        layer_name (g_intern_string (layer_name)),
        backend (g_intern_string (backend))
  {
  }
  GQuark attribute = 0; /* 0 (a default one): no parameter structure is written */
  field_names::Name attribute_name{};
  const char *model_name = "";
  const char *layer_name = "";
  const char *backend = "";
};

/* The relation types written, as the analytics library's bit values (IS_PART_OF 2, CONTAIN 4,
 * RELATE_TO 8; 1.24.2 accepts any value below 16). */
constexpr unsigned kRelDetectionToClass = 4 | 8;
constexpr unsigned kRelClassToDetection = 2 | 8;

/* Writes `o`'s result on `buffer` (writable; o's write-back handles are its metas). Returns how
 * many places got it (0, 1 or 2). */
int write_object_result (GstBuffer *buffer, const FrameObject &o, const OutputNames &names);

/* The same for each of a frame's objects, the buffer's relation meta looked up once. Returns the
 * places written in all. */
int write_object_results (GstBuffer *buffer, const std::vector<FrameObject> &objects,
                          const OutputNames &names);

/* The parameter structure of one result (the caller owns it). */
GstStructure *object_param_structure (const FrameObject &o, const OutputNames &names);

/* "object, x=(int), y=(int), width=(int), height=(int), tracking-id=(guint64; 0: untracked),
 * carried=(boolean), age=(uint), dla-core=(int), class-ids, labels, confidences (arrays, best
 * first)": one entry of the element message's `objects` array. */
GstStructure *object_message_entry (const FrameObject &o);

}  // namespace objects
}  // namespace dlainfer
