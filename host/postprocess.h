/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: host post-processing of a classification output tensor.
 *
 * De-pads the output per its layout (through tensor::View::offset, never our own index math),
 * converts FP16 or INT8 (times a scale) to float, applies the activation and keeps the top k,
 * sorted by confidence. No GStreamer, no CUDA: unit-tested on any machine. */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/tensor_layout.h"

namespace postprocess {

enum class Activation { kSoftmax, kSigmoid, kNone };

struct Params {
  Activation activation = Activation::kSoftmax;
  int top_k = 5;          /* at most this many results (<= 0: all classes) */
  float threshold = 0.f;  /* results below it are dropped (after the activation) */
  float int8_scale = 1.f; /* dequantisation scale of an INT8 output */
};

struct Result {
  int class_id = 0;
  float confidence = 0.f;
};

/* Whether `view` is a classification vector: batch 1 (or the first image of a batch), C x 1 x 1.
 * On false, *why says what the tensor is instead. */
bool is_classification_vector (const tensor::View &view, std::string *why);

/* The C scores of image `batch_index` of the output at `data` (host memory, view.size bytes), as
 * float, pad lanes and padded row tails skipped. */
void read_scores (const tensor::View &view, const void *data, float int8_scale, std::vector<float> *scores,
                  int64_t batch_index = 0);

/* Applies the activation in place. Softmax is computed stably (max subtracted first). */
void activate (Activation activation, std::vector<float> *scores);

/* The best min(top_k, C) scores at or above threshold, sorted by confidence (ties: lower class id
 * first). Writes into *results, reusing its storage. */
void top_k (const std::vector<float> &scores, int k, float threshold, std::vector<Result> *results);

/* The same from `count` scores already de-padded to float (the GPU's, docs/tensors.md 4). */
void run_scores (const float *values, int64_t count, const Params &params, std::vector<float> *scores,
                 std::vector<Result> *results);

/* Everything above in one call; `scores` is scratch storage the caller keeps to avoid allocating. */
void run (const tensor::View &view, const void *data, const Params &params, std::vector<float> *scores,
          std::vector<Result> *results);

}  // namespace postprocess
