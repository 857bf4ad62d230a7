/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/outputs/tensor_plan.h"

#include "gst/modelinfo/modelinfo.h"

namespace dlainfer {
namespace {

constexpr const char *kClassVectorId = "classification-generic-out";

/* The channel count a .modelinfo's dims give (0: none). check_modelinfo has matched it to the
 * descriptor, which may report the padded count (32 for 20 in chw16, docs/cudla.md 7). */
int64_t file_channels (const ModelInfoTensor *mi)
{
  if (!mi || mi->dims.size () < 2)
    return 0;
  return mi->col_major ? mi->dims[mi->dims.size () - 2] : mi->dims[1];
}

TensorPlan plan_one (const dla::TensorInfo &t, const Settings &s, bool class_vector, int classes)
{
  TensorPlan p;
  p.name = t.name;
  p.view = t.view;
  p.int8_scale = s.output_scale > 0.f ? s.output_scale : 1.f;
  const ModelInfoTensor *mi = s.modelinfo ? s.modelinfo->find (t.name) : nullptr;
  std::string id = mi && !mi->id.empty () ? mi->id : class_vector ? kClassVectorId : t.name;
  p.id = g_quark_from_string (id.c_str ());
  if (class_vector) {
    p.view.c = classes; /* pad lanes the labels resolved are no classes */
    p.dims = {gsize (p.view.n), gsize (classes)};
    return p; /* always FLOAT32: the decoder reads nothing else */
  }
  const bool fp16 =
      s.user_set.count ("tensor-type") || !mi || mi->type.empty () ? s.tensor_fp16 : mi->type == "float16";
  p.type = fp16 ? depad::Type::kFloat16 : depad::Type::kFloat32;
  const int64_t c = file_channels (mi);
  if (c > 0 && c < p.view.c)
    p.view.c = c; /* the pad channels are no values */
  p.dims = {gsize (p.view.n), gsize (p.view.c), gsize (p.view.h), gsize (p.view.w)};
  return p;
}

}  // namespace

std::vector<TensorPlan> plan_tensors (const std::vector<dla::TensorInfo> &outputs, const Settings &s,
                                      int classes)
{
  std::vector<TensorPlan> plans;
  for (size_t i = 0; i < outputs.size (); ++i)
    plans.push_back (plan_one (outputs[i], s, i == 0 && classes > 0, classes));
  return plans;
}

}  // namespace dlainfer
