/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tensors the tensor-meta benchmarks (tensor-depad, tensor-depad-gpu) measure: the issue's
 * 1000-class vector and 2048 x 7 x 7 map, in each DLA layout and output type. */
#pragma once

#include <vector>

#include "common/tensor_layout.h"

namespace bench {

struct TensorCase {
  const char *what;
  tensor::Layout layout;
  tensor::ElemType type;
  int64_t c, hw;
  bool fp16;   /* tensor-type=float16 */
  int classes; /* a class vector of this many classes; 0: a map */
};

inline std::vector<TensorCase> tensor_cases ()
{
  using tensor::ElemType;
  using tensor::Layout;
  return {
      {"1000-class vector, fp16 chw16 -> FLOAT32", Layout::kChw16, ElemType::kFp16, 1000, 1, false, 1000},
      {"2048x7x7, fp16 chw16 -> FLOAT32", Layout::kChw16, ElemType::kFp16, 2048, 7, false, 0},
      {"2048x7x7, fp16 chw16 -> FLOAT16", Layout::kChw16, ElemType::kFp16, 2048, 7, true, 0},
      {"2048x7x7, int8 chw32 -> FLOAT32", Layout::kChw32, ElemType::kInt8, 2048, 7, false, 0},
  };
}

}  // namespace bench
