/* gst-dlainfer: raw cuDLA tensor descriptors -> tensor views (kernels/tensor_layout.h).
 *
 * What each descriptor field holds on a real Orin is partly unknown (reference section 7): `c` may
 * be the real channel count or the padded one, stride[] may hold bytes per element/row/plane (as in
 * the real dump of section 5.4) or zeros, and the format/category/pixel-format codes of chw16 are
 * unconfirmed. So every layout the element supports is tried against the descriptor, the strides
 * and `size` must agree with it, the codes only break ties, and when nothing fits the message
 * prints the raw descriptor.
 *
 * One case stays ambiguous: an image input in chw16/chw32 whose `c` is the padded 16/32 looks the
 * same for 1 and 3 real channels; it is read as RGB (3), the common case. Grey models are told
 * apart in dla_linear and dla_hwc4, and in chw16/chw32 when `c` is the real count. */
#pragma once

#include <string>
#include <vector>

#include "cudla_abi.h"
#include "status.h"
#include "tensor_layout.h"

namespace dla {

enum class Direction { kInput, kOutput };

/* One model input or output: its layout, and the descriptor as cuDLA gave it (for model-info). */
struct TensorInfo {
  std::string name;
  tensor::View view{};
  cudlaModuleTensorDescriptor raw{};
  std::string reading; /* how the descriptor was read, e.g. "c as reported; strides from descriptor" */
};

/* Maps one descriptor; kModel with the raw descriptor printed when no supported layout fits. */
Status map_descriptor (const cudlaModuleTensorDescriptor &desc, Direction dir, TensorInfo *out);

/* name='x' size=... n=.. c=.. h=.. w=.. dataFormat=3 (NCxHWx) ... stride=[...] */
std::string describe_raw (const cudlaModuleTensorDescriptor &desc);
/* "fp16 chw16 1x3x224x224 (row 7168 B, plane 1605632 B, 1605632 B)" */
std::string describe_view (const tensor::View &view);
/* The name field, safe even when it lacks its NUL. */
std::string descriptor_name (const cudlaModuleTensorDescriptor &desc);

/* Hints for the user, naming trtexec's I/O format options. */
extern const char *const kInputFormatsHint;
extern const char *const kOutputFormatsHint;

/* What a classification model looks like once validated. */
struct ClassificationShape {
  int64_t batch = 0;
  int64_t channels = 0;         /* 3 (colour) or 1 (grey): what the preprocess kernel writes */
  bool channels_padded = false; /* the descriptor reported the padded count (16/32/4) */
  int64_t height = 0, width = 0;
  tensor::View input_view{};    /* the input as the kernel writes it: layout as mapped, c = channels */
  std::vector<int64_t> classes; /* per output, as the descriptor reports it */
  std::vector<bool> classes_may_include_padding; /* c is a multiple of the layout's lanes */
};

/* Exactly one image input with 3 channels (1 for grey), batch >= 1; outputs FP16 or INT8 vectors
 * C x 1 x 1 with the input's batch. */
Status validate_classification (const std::vector<TensorInfo> &inputs, const std::vector<TensorInfo> &outputs,
                                ClassificationShape *out);

/* The number of classes of an output given a label count: where the descriptor may have reported
 * the padded channel count (1008 for 1000 in chw16), a label count inside the padding wins. */
int64_t resolve_class_count (const TensorInfo &output, int64_t labels);

}  // namespace dla
