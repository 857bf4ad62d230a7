/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: GstDlaBaseInfer, the abstract base of the plugin's inference elements
 * (docs/architecture.md 8, "The element classes"). It holds everything a frame's inference shares:
 * the model and its engine, the CUDA context, the fused preprocessing, the frames in flight and the
 * src pad's task, stats, errors, and the common properties. A subclass names its element, adds its
 * own properties (gst/property_table.h) and makes the stage its frames are inferred for. */
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>

#include <memory>
#include <vector>

namespace dlainfer {
class FrameStage;
struct Model;
struct Property;
struct Settings;
enum class ModelKind : int;
}  // namespace dlainfer

G_BEGIN_DECLS

#define GST_TYPE_DLA_BASE_INFER (gst_dla_base_infer_get_type ())
#define GST_DLA_BASE_INFER(obj) (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_DLA_BASE_INFER, GstDlaBaseInfer))
#define GST_DLA_BASE_INFER_CLASS(klass) \
  (G_TYPE_CHECK_CLASS_CAST ((klass), GST_TYPE_DLA_BASE_INFER, GstDlaBaseInferClass))
#define GST_DLA_BASE_INFER_GET_CLASS(obj) \
  (G_TYPE_INSTANCE_GET_CLASS ((obj), GST_TYPE_DLA_BASE_INFER, GstDlaBaseInferClass))
#define GST_IS_DLA_BASE_INFER(obj) (G_TYPE_CHECK_INSTANCE_TYPE ((obj), GST_TYPE_DLA_BASE_INFER))

typedef struct _GstDlaBaseInfer GstDlaBaseInfer;
typedef struct _GstDlaBaseInferClass GstDlaBaseInferClass;
struct GstDlaBaseInferPrivate;

GType gst_dla_base_infer_get_type (void);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstDlaBaseInfer, gst_object_unref)

G_END_DECLS

struct _GstDlaBaseInfer {
  GstBaseTransform parent;
  GstDlaBaseInferPrivate *priv; /* C++ state (gstdlabaseinfer-private.h) */
};

struct _GstDlaBaseInferClass {
  GstBaseTransformClass parent_class;

  /* Required. At start, once the model `m` is open with settings `s`: what the frames are inferred
   * for (stages/frame_stage.h); null refuses the start (the subclass posted why). */
  std::unique_ptr<dlainfer::FrameStage> (*make_stage) (GstDlaBaseInfer *self, const dlainfer::Settings &s,
                                                       const dlainfer::Model &m);
  /* This class's own properties, installed by gst_dla_base_infer_class_install_properties (); the
   * base's set_property and get_property serve every class through them. */
  const std::vector<dlainfer::Property> *properties;
  /* What the class's models are (open_model.h); zero, the default: classifiers. */
  dlainfer::ModelKind model_kind;
};

/* Installs `table` as `klass`'s own properties (ids: index + 1), from its class_init. A property
 * whose spec has GST_PARAM_MUTABLE_READY is refused above READY, one check for every class. */
void gst_dla_base_infer_class_install_properties (GstDlaBaseInferClass *klass,
                                                  std::vector<dlainfer::Property> table);
