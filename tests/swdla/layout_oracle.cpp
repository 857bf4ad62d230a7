/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "layout_oracle.h"

#include "layout_check.h"

namespace swdla {
namespace {

std::string check_all (const std::vector<TensorSpec> &specs, const char *kind)
{
  for (size_t i = 0; i < specs.size (); ++i) {
    tensor::View v;
    if (!specs[i].view (&v))
      continue; /* parse_model refuses impossible tensors itself */
    const std::string why = layout_check::compare (v);
    if (!why.empty ())
      return std::string ("the layout header disagrees with the format oracle on ") + kind + " '" +
             specs[i].name + "' (" + tensor::layout_name (v.layout) + "): " + why;
  }
  return "";
}

}  // namespace

std::string layout_disagreement (const Model &model)
{
  std::string why = check_all (model.inputs, "input");
  return why.empty () ? check_all (model.outputs, "output") : why;
}

std::string input_padding_problem (const TensorSpec &spec, const uint8_t *bytes, size_t size)
{
  tensor::View v;
  if (!spec.view (&v))
    return "input '" + spec.name + "' has no view";
  const std::string why = layout_check::check_padding (layout_check::oracle_tensor (v), bytes, size);
  return why.empty () ? "" : "input '" + spec.name + "' (" + tensor::layout_name (v.layout) + "): " + why;
}

}  // namespace swdla
