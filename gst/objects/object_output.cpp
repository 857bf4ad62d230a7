#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gst/objects/object_output.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

namespace dlainfer {
namespace objects {
namespace {

/* An array value of the result's top-k, one field of each entry. */
template <typename Fill>
void set_array (GstStructure *s, const char *field, GType type, const ObjectResult &r, Fill fill)
{
  GValue array = G_VALUE_INIT;
  g_value_init (&array, GST_TYPE_ARRAY);
  for (uint32_t i = 0; i < r.n_top; ++i) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, type);
    fill (&v, r.top[i]);
    gst_value_array_append_and_take_value (&array, &v);
  }
  gst_structure_take_value (s, field, &array);
}

const char *label_of (const ClassScore &c)
{
  return c.label ? g_quark_to_string (c.label) : "";
}

void set_top_k (GstStructure *s, const ObjectResult &r, const char *ids, const char *labels,
                const char *confidences, GType confidence_type)
{
  set_array (s, ids, G_TYPE_INT, r, [] (GValue *v, const ClassScore &c) { g_value_set_int (v, c.class_id); });
  set_array (s, labels, G_TYPE_STRING, r,
             [] (GValue *v, const ClassScore &c) { g_value_set_static_string (v, label_of (c)); });
  set_array (s, confidences, confidence_type, r, [confidence_type] (GValue *v, const ClassScore &c) {
    if (confidence_type == G_TYPE_DOUBLE)
      g_value_set_double (v, c.confidence);
    else
      g_value_set_float (v, c.confidence);
  });
}

/* The meta's own list: an earlier structure of this name (an element run twice) is replaced. */
void replace_param (GstVideoRegionOfInterestMeta *roi, GstStructure *s)
{
  for (GList *l = roi->params; l; l = l->next) {
    GstStructure *old = static_cast<GstStructure *> (l->data);
    if (gst_structure_has_name (old, gst_structure_get_name (s))) {
      gst_structure_free (old);
      roi->params = g_list_delete_link (roi->params, l);
      break;
    }
  }
  gst_video_region_of_interest_meta_add_param (roi, s);
}

#ifdef HAVE_GST_ANALYTICS
bool write_analytics (GstBuffer *buffer, guint od_id, const ObjectResult &r)
{
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buffer);
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
bool write_analytics (GstBuffer *, guint, const ObjectResult &)
{
  return false;
}
#endif

}  // namespace

GstStructure *object_param_structure (const FrameObject &o, const OutputNames &names)
{
  const ObjectResult &r = o.result;
  GstStructure *s = gst_structure_new (
      names.attribute, "label", G_TYPE_STRING, label_of (r.best ()), "label_id", G_TYPE_INT,
      r.best ().class_id, "confidence", G_TYPE_DOUBLE, double (r.best ().confidence), "model_name",
      G_TYPE_STRING, names.model_name, "layer_name", G_TYPE_STRING, names.layer_name, "carried",
      G_TYPE_BOOLEAN, gboolean (!o.classify), "age", G_TYPE_UINT, guint (o.age), "backend", G_TYPE_STRING,
      names.backend, nullptr);
  set_top_k (s, r, "label_ids", "labels", "confidences", G_TYPE_DOUBLE);
  return s;
}

int write_object_result (GstBuffer *buffer, const FrameObject &o, const OutputNames &names)
{
  if (!o.has_result || o.result.n_top == 0)
    return 0;
  int written = 0;
  if (o.source.write_back.roi) {
    replace_param (o.source.write_back.roi, object_param_structure (o, names));
    ++written;
  }
  if (o.source.write_back.has_od_mtd && write_analytics (buffer, o.source.write_back.od_mtd_id, o.result))
    ++written;
  return written;
}

GstStructure *object_message_entry (const FrameObject &o)
{
  GstStructure *s = gst_structure_new (
      "object", "x", G_TYPE_INT, gint (o.box.x), "y", G_TYPE_INT, gint (o.box.y), "width", G_TYPE_INT,
      gint (o.box.width), "height", G_TYPE_INT, gint (o.box.height), "tracking-id", G_TYPE_UINT64,
      guint64 (o.source.tracked ? o.source.tracking_id : 0), "carried", G_TYPE_BOOLEAN,
      gboolean (!o.classify), "age", G_TYPE_UINT, guint (o.age), "dla-core", G_TYPE_INT, o.dla_core, nullptr);
  set_top_k (s, o.has_result ? o.result : ObjectResult{}, "class-ids", "labels", "confidences", G_TYPE_FLOAT);
  return s;
}

}  // namespace objects
}  // namespace dlainfer
