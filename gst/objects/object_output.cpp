/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <utility>

#include "gst/objects/object_output.h"
#include "gst/objects/plain_values.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

namespace dlainfer {
namespace objects {
namespace {

using field_names::Name;

/* Field names made once: a structure per object per frame must not look each up
 * (g_quark_from_string takes a process-wide lock; field_names.h). */
struct Fields {
  Name label, label_id, confidence, model_name, layer_name, carried, age, backend, label_ids, labels,
      confidences, x, y, width, height, tracking_id, dla_core, class_ids, object;
};

const Fields &fields ()
{
  using field_names::name;
  static const Fields f{name ("label"),      name ("label_id"),  name ("confidence"),  name ("model_name"),
                        name ("layer_name"), name ("carried"),   name ("age"),         name ("backend"),
                        name ("label_ids"),  name ("labels"),    name ("confidences"), name ("x"),
                        name ("y"),          name ("width"),     name ("height"),      name ("tracking-id"),
                        name ("dla-core"),   name ("class-ids"), name ("object")};
  return f;
}

using namespace plain_values;

void take (GstStructure *s, const Name &field, GValue v)
{
  field_names::take (s, field, &v);
}

/* An array value of the result's top-k, one field of each entry. */
template <typename Make>
void set_array (GstStructure *s, const Name &field, const ObjectResult &r, Make make)
{
  GValue array = G_VALUE_INIT;
  gst_value_array_init (&array, r.n_top);
  for (uint32_t i = 0; i < r.n_top; ++i) {
    GValue v = make (r.top[i]);
    gst_value_array_append_and_take_value (&array, &v);
  }
  field_names::take (s, field, &array);
}

const char *label_of (const ClassScore &c)
{
  return c.label ? g_quark_to_string (c.label) : "";
}

/* The ids, labels and confidences (doubles in the parameter, as DL Streamer's; floats in the
 * message). */
template <typename Confidence>
void set_top_k (GstStructure *s, const ObjectResult &r, const Name &ids, const Name &labels,
                const Name &confidences, Confidence confidence)
{
  set_array (s, ids, r, [] (const ClassScore &c) { return int_value (c.class_id); });
  set_array (s, labels, r, [] (const ClassScore &c) { return interned_string_value (label_of (c)); });
  set_array (s, confidences, r, [&] (const ClassScore &c) { return confidence (c.confidence); });
}

/* The meta's own list: an earlier structure of this name (an element run twice) is replaced. */
void replace_param (GstVideoRegionOfInterestMeta *roi, GstStructure *s)
{
  for (GList *l = roi->params; l; l = l->next) {
    GstStructure *old = static_cast<GstStructure *> (l->data);
    /* By string: the quark of a name is a global lookup on 1.26. */
    if (g_str_equal (gst_structure_get_name (old), gst_structure_get_name (s))) {
      gst_structure_free (old);
      roi->params = g_list_delete_link (roi->params, l);
      break;
    }
  }
  gst_video_region_of_interest_meta_add_param (roi, s);
}

/* One frame's buffer, its relation meta looked up on first use: a walk of the buffer's metas, which
 * hold a ROI meta per object, so once per object it made writing a frame quadratic in its objects. */
struct FrameTarget {
  GstBuffer *buffer;
  gpointer relations = nullptr; /* GstAnalyticsRelationMeta */
  bool looked_up = false;
};

#ifdef HAVE_GST_ANALYTICS
bool write_analytics (FrameTarget &t, guint od_id, const ObjectResult &r)
{
  if (!t.looked_up) {
    t.relations = gst_buffer_get_analytics_relation_meta (t.buffer);
    t.looked_up = true;
  }
  auto *rmeta = static_cast<GstAnalyticsRelationMeta *> (t.relations);
  if (!rmeta)
    return false;
  gfloat confidences[kCachedTopK];
  GQuark labels[kCachedTopK];
  for (uint32_t i = 0; i < r.n_top; ++i) {
    confidences[i] = r.top[i].confidence;
    labels[i] = r.top[i].label;
  }
  GstAnalyticsClsMtd cls;
  if (!gst_analytics_relation_meta_add_cls_mtd (rmeta, r.n_top, confidences, labels, &cls))
    return false;
  return gst_analytics_relation_meta_set_relation (rmeta, GstAnalyticsRelTypes (kRelDetectionToClass), od_id,
                                                   cls.id) &&
         gst_analytics_relation_meta_set_relation (rmeta, GstAnalyticsRelTypes (kRelClassToDetection), cls.id,
                                                   od_id);
}
#else
bool write_analytics (FrameTarget &, guint, const ObjectResult &)
{
  return false;
}
#endif

int write_one (FrameTarget &t, const FrameObject &o, const OutputNames &names)
{
  if (!o.has_result || o.result.n_top == 0)
    return 0;
  int written = 0;
  if (o.source.write_back.roi && names.attribute) {
    replace_param (o.source.write_back.roi, object_param_structure (o, names));
    ++written;
  }
  if (o.source.write_back.has_od_mtd && write_analytics (t, o.source.write_back.od_mtd_id, o.result))
    ++written;
  return written;
}

}  // namespace

GstStructure *object_param_structure (const FrameObject &o, const OutputNames &names)
{
  const Fields &f = fields ();
  const ObjectResult &r = o.result;
  GstStructure *s = field_names::new_structure (names.attribute_name);
  take (s, f.label, interned_string_value (label_of (r.best ())));
  take (s, f.label_id, int_value (r.best ().class_id));
  take (s, f.confidence, double_value (r.best ().confidence));
  take (s, f.model_name, interned_string_value (names.model_name));
  take (s, f.layer_name, interned_string_value (names.layer_name));
  take (s, f.carried, boolean_value (!o.classify));
  take (s, f.age, uint_value (o.age));
  take (s, f.backend, interned_string_value (names.backend));
  set_top_k (s, r, f.label_ids, f.labels, f.confidences, [] (float c) { return double_value (c); });
  return s;
}

int write_object_result (GstBuffer *buffer, const FrameObject &o, const OutputNames &names)
{
  FrameTarget t{buffer};
  return write_one (t, o, names);
}

int write_object_results (GstBuffer *buffer, const std::vector<FrameObject> &objects,
                          const OutputNames &names)
{
  FrameTarget t{buffer};
  int written = 0;
  for (const FrameObject &o : objects)
    written += write_one (t, o, names);
  return written;
}

GstStructure *object_message_entry (const FrameObject &o)
{
  const Fields &f = fields ();
  GstStructure *s = field_names::new_structure (f.object);
  const std::pair<const Name *, int64_t> box[] = {
      {&f.x, o.box.x}, {&f.y, o.box.y}, {&f.width, o.box.width}, {&f.height, o.box.height}};
  for (const auto &b : box)
    take (s, *b.first, int_value (gint (b.second)));
  take (s, f.tracking_id, uint64_value (o.source.tracked ? o.source.tracking_id : 0));
  take (s, f.carried, boolean_value (!o.classify));
  take (s, f.age, uint_value (o.age));
  take (s, f.dla_core, int_value (o.dla_core));
  set_top_k (s, o.has_result ? o.result : ObjectResult{}, f.class_ids, f.labels, f.confidences,
             [] (float c) { return float_value (c); });
  return s;
}

}  // namespace objects
}  // namespace dlainfer
