/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: reading an object's result (see gstdlaobject.h). */
#include "gst/meta/gstdlaobject.h"

namespace {

/* dlainfer's structure: the fields it always writes (another element's parameters lack them). */
bool is_result (const GstStructure *s)
{
  return gst_structure_has_field_typed (s, "label", G_TYPE_STRING) &&
         gst_structure_has_field_typed (s, "label_id", G_TYPE_INT) &&
         gst_structure_has_field_typed (s, "confidence", G_TYPE_DOUBLE) &&
         gst_structure_has_field_typed (s, "carried", G_TYPE_BOOLEAN) &&
         gst_structure_has_field_typed (s, "backend", G_TYPE_STRING);
}

const GstStructure *find_result (GstVideoRegionOfInterestMeta *roi, const gchar *attribute)
{
  for (GList *l = roi->params; l; l = l->next) {
    const GstStructure *s = static_cast<const GstStructure *> (l->data);
    if ((!attribute || gst_structure_has_name (s, attribute)) && is_result (s))
      return s;
  }
  return nullptr;
}

}  // namespace

gboolean gst_dla_object_get_result (GstVideoRegionOfInterestMeta *roi, const gchar *attribute, gint *class_id,
                                    const gchar **label, gfloat *confidence, gboolean *carried, guint *age)
{
  g_return_val_if_fail (roi != nullptr, FALSE);
  const GstStructure *s = find_result (roi, attribute);
  if (!s)
    return FALSE;
  if (class_id)
    gst_structure_get_int (s, "label_id", class_id);
  if (label)
    *label = gst_structure_get_string (s, "label");
  if (confidence) {
    gdouble c = 0;
    gst_structure_get_double (s, "confidence", &c);
    *confidence = gfloat (c);
  }
  if (carried)
    gst_structure_get_boolean (s, "carried", carried);
  if (age) {
    *age = 0;
    gst_structure_get_uint (s, "age", age);
  }
  return TRUE;
}

gboolean gst_dla_object_get_tracking_id (GstVideoRegionOfInterestMeta *roi, guint64 *id)
{
  g_return_val_if_fail (roi != nullptr, FALSE);
  const GstStructure *s = gst_video_region_of_interest_meta_get_param (roi, "object_id");
  gint v = 0;
  if (!s || !gst_structure_get_int (s, "id", &v) || v < 0)
    return FALSE;
  if (id)
    *id = guint64 (v);
  return TRUE;
}

GstVideoRegionOfInterestMeta *gst_dla_buffer_get_object (GstBuffer *buffer, guint index)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), nullptr);
  gpointer state = nullptr;
  GstMeta *m;
  guint i = 0;
  while ((m = gst_buffer_iterate_meta_filtered (buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    if (i++ == index)
      return reinterpret_cast<GstVideoRegionOfInterestMeta *> (m);
  return nullptr;
}
