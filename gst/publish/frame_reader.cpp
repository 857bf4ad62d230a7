/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <algorithm>

#include "gst/meta/gstdlameta.h"
#include "gst/objects/field_names.h"
#include "gst/publish/frame_reader.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

namespace dlainfer {
namespace publish {
namespace {

using objects::field_names::has_name;
using objects::field_names::Name;
using objects::field_names::value; /* a field by its name made once: no quark lookup per field */

struct Fields {
  Name detection, object_id;
  Name label, label_id, confidence, carried, age, backend;
};

const Fields &fields ()
{
  using objects::field_names::name;
  static const Fields f{name ("detection"),  name ("object_id"), name ("label"), name ("label_id"),
                        name ("confidence"), name ("carried"),   name ("age"),   name ("backend")};
  return f;
}

/* By exact type: these fundamental types have no subtypes, and G_VALUE_HOLDS_* calls into GObject
 * whenever the first type it tries is not the value's. */
const char *string_of (const GValue *v)
{
  return v && G_VALUE_TYPE (v) == G_TYPE_STRING ? g_value_get_string (v) : nullptr;
}

bool int_of (const GValue *v, int32_t *out)
{
  switch (v ? G_VALUE_TYPE (v) : G_TYPE_INVALID) {
    case G_TYPE_INT:
      *out = g_value_get_int (v);
      return true;
    case G_TYPE_UINT:
      *out = int32_t (g_value_get_uint (v));
      return true;
    default:
      return false;
  }
}

bool number_of (const GValue *v, float *out)
{
  switch (v ? G_VALUE_TYPE (v) : G_TYPE_INVALID) {
    case G_TYPE_DOUBLE:
      *out = float (g_value_get_double (v));
      return true;
    case G_TYPE_FLOAT:
      *out = g_value_get_float (v);
      return true;
    default:
      return false;
  }
}

/* A ROI parameter structure as a classification: it has a label and a confidence. Its strings go
 * to the record's text. */
bool class_from_param (const GstStructure *s, ClassRecord *c, FrameRecord *record)
{
  const Fields &f = fields ();
  const char *label = string_of (value (s, f.label));
  if (!label || !number_of (value (s, f.confidence), &c->confidence))
    return false;
  c->name = record->add (gst_structure_get_name (s));
  c->label = record->add (label);
  int_of (value (s, f.label_id), &c->label_id);
  const GValue *carried = value (s, f.carried);
  if (carried && G_VALUE_TYPE (carried) == G_TYPE_BOOLEAN) {
    c->has_carried = true;
    c->carried = g_value_get_boolean (carried);
    int32_t age = 0;
    if (int_of (value (s, f.age), &age))
      c->age = uint32_t (age);
  }
  if (const char *backend = string_of (value (s, f.backend)))
    c->backend = record->add (backend);
  return true;
}

/* The ROI meta's classifications (appended to the record's object_classes), and the detection's
 * label_id (DL Streamer's "detection"). */
void read_roi_params (GstVideoRegionOfInterestMeta *roi, ObjectRecord *o, FrameRecord *record)
{
  const Fields &f = fields ();
  std::vector<ClassRecord> *classes = &record->object_classes;
  for (GList *l = roi->params; l; l = l->next) {
    const GstStructure *s = static_cast<const GstStructure *> (l->data);
    if (has_name (s, f.detection)) {
      int_of (value (s, f.label_id), &o->label_id);
      continue;
    }
    if (has_name (s, f.object_id))
      continue;
    classes->emplace_back ();
    if (class_from_param (s, &classes->back (), record))
      ++o->n_classes;
    else
      classes->pop_back ();
  }
}

void read_dla_metas (GstBuffer *buffer, FrameRecord *record)
{
  gpointer state = nullptr;
  GstMeta *m;
  while ((m = gst_buffer_iterate_meta_filtered (buffer, &state, GST_DLA_CLASSIFICATION_META_API_TYPE))) {
    const auto *meta = reinterpret_cast<GstDlaClassificationMeta *> (m);
    ClassRecord c;
    const gchar *label = nullptr;
    gint class_id = -1;
    gfloat confidence = 0.0f;
    if (!gst_dla_classification_meta_get_result (meta, 0, &class_id, &label, &confidence))
      continue; /* nothing passed the threshold on this frame */
    const gchar *element = gst_dla_classification_meta_get_element_name (meta);
    const gchar *backend = gst_dla_classification_meta_get_backend (meta);
    c.name = record->add (element);
    c.label = record->add (label);
    c.label_id = class_id;
    c.confidence = confidence;
    c.has_carried = true;
    c.carried = gst_dla_classification_meta_get_carried (meta);
    c.age = gst_dla_classification_meta_get_age (meta);
    c.backend = record->add (backend);
    record->classes.push_back (std::move (c));
  }
}

void add_object (const objects::DetectedObject &d, FrameRecord *record)
{
  record->objects.emplace_back ();
  ObjectRecord &o = record->objects.back ();
  o.x = d.box.x;
  o.y = d.box.y;
  o.w = d.box.width;
  o.h = d.box.height;
  if (d.label)
    o.label = record->add (g_quark_to_string (d.label));
  o.has_confidence = d.has_confidence;
  o.confidence = d.confidence;
  o.tracked = d.tracked;
  o.tracking_id = d.tracking_id;
  o.first_class = uint32_t (record->object_classes.size ());
  if (d.write_back.roi)
    read_roi_params (d.write_back.roi, &o, record);
}

#ifdef HAVE_GST_ANALYTICS
/* A ClsMtd's best class (its label to the record's text). */
ClassRecord class_from_cls (GstAnalyticsClsMtd *cls, FrameRecord *record)
{
  ClassRecord c;
  const gsize n = gst_analytics_cls_mtd_get_length (cls);
  for (gsize i = 0; i < n; ++i) {
    const gfloat level = gst_analytics_cls_mtd_get_level (cls, i);
    if (c.label_id < 0 || level > c.confidence) {
      c.label_id = int32_t (i);
      c.confidence = level;
    }
  }
  if (c.label_id >= 0) {
    const GQuark q = gst_analytics_cls_mtd_get_quark (cls, gsize (c.label_id));
    c.label = record->add (q ? g_quark_to_string (q) : "");
  }
  return c;
}

/* The ClsMtds related to each ODMtd object (reported when its ROI meta gave none), then those
 * related to no object as the frame's, when no dlainfer meta gave the frame's. */
void read_cls_mtds (GstBuffer *buffer, const objects::CollectedObjects &found, FrameRecord *record)
{
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buffer);
  if (!rmeta)
    return;
  std::vector<guint> attached;
  std::vector<std::pair<uint32_t, ClassRecord>> moved; /* object, result: appended after the ROI ones */
  for (size_t i = 0; i < found.objects.size (); ++i) {
    const objects::DetectedObject &d = found.objects[i];
    if (!d.write_back.has_od_mtd)
      continue;
    ObjectRecord &o = record->objects[i];
    const bool from_roi = o.n_classes > 0;
    gpointer state = nullptr;
    GstAnalyticsClsMtd cls;
    while (gst_analytics_relation_meta_get_direct_related (
        rmeta, d.write_back.od_mtd_id, GST_ANALYTICS_REL_TYPE_ANY, gst_analytics_cls_mtd_get_mtd_type (),
        &state, &cls)) {
      attached.push_back (cls.id);
      if (!from_roi)
        moved.push_back ({uint32_t (i), class_from_cls (&cls, record)});
    }
  }
  for (auto &m : moved) { /* objects without ROI results have none in object_classes yet */
    ObjectRecord &o = record->objects[m.first];
    if (o.n_classes == 0)
      o.first_class = uint32_t (record->object_classes.size ());
    if (o.first_class + o.n_classes == record->object_classes.size ()) {
      record->object_classes.push_back (std::move (m.second));
      ++o.n_classes;
    }
  }
  if (!record->classes.empty ())
    return;
  gpointer state = nullptr;
  GstAnalyticsClsMtd cls;
  while (gst_analytics_relation_meta_iterate (rmeta, &state, gst_analytics_cls_mtd_get_mtd_type (), &cls)) {
    if (std::find (attached.begin (), attached.end (), cls.id) == attached.end ())
      record->classes.push_back (class_from_cls (&cls, record));
  }
}
#else
void read_cls_mtds (GstBuffer *, const objects::CollectedObjects &, FrameRecord *) {}
#endif

}  // namespace

void read_frame (GstBuffer *buffer, objects::CollectedObjects *scratch, FrameRecord *record)
{
  record->classes.clear ();
  record->objects.clear ();
  record->object_classes.clear ();
  record->text.clear ();
  record->timestamp = GST_BUFFER_PTS_IS_VALID (buffer) ? int64_t (GST_BUFFER_PTS (buffer)) : -1;
  *scratch = objects::collect_objects (buffer);
  if (scratch->origin == objects::ObjectOrigin::kAnalytics) {
    std::vector<objects::SelectedObject> all (scratch->objects.size ());
    for (size_t i = 0; i < all.size (); ++i)
      all[i].index = uint32_t (i);
    objects::resolve_tracking (buffer, all, scratch);
  }
  for (const objects::DetectedObject &d : scratch->objects)
    add_object (d, record);
  read_dla_metas (buffer, record);
  read_cls_mtds (buffer, *scratch, record);
}

}  // namespace publish
}  // namespace dlainfer
