/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/postprocess.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/numeric.h"

namespace postprocess {

bool is_classification_vector (const tensor::View &view, std::string *why)
{
  if (view.h == 1 && view.w == 1 && view.c >= 1)
    return true;
  if (why)
    *why = "the output is " + std::to_string (view.n) + "x" + std::to_string (view.c) + "x" +
           std::to_string (view.h) + "x" + std::to_string (view.w) +
           " (NxCxHxW), a classifier's output is C x 1 x 1";
  return false;
}

void read_scores (const tensor::View &view, const void *data, float int8_scale, std::vector<float> *scores,
                  int64_t batch_index)
{
  const auto *base = static_cast<const uint8_t *> (data);
  scores->resize (size_t (view.c));
  for (int64_t c = 0; c < view.c; ++c) {
    const uint8_t *p = base + view.offset (batch_index, c, 0, 0);
    float v;
    if (view.type == tensor::ElemType::kFp16) {
      uint16_t h;
      std::memcpy (&h, p, sizeof h); /* may be unaligned in a foreign view */
      v = tensor::half_to_float (h);
    } else {
      v = tensor::dequantize_int8 (static_cast<int8_t> (*p), int8_scale);
    }
    (*scores)[size_t (c)] = v;
  }
}

void activate (Activation activation, std::vector<float> *scores)
{
  if (scores->empty ())
    return;
  switch (activation) {
    case Activation::kSoftmax: {
      /* A NaN score gets probability 0 rather than turning every probability into NaN; +inf scores
       * share all of it. */
      float max = -INFINITY;
      size_t n_inf = 0;
      for (float s : *scores) {
        max = s > max ? s : max;
        n_inf += s == INFINITY;
      }
      if (n_inf > 0) {
        for (float &s : *scores)
          s = s == INFINITY ? 1.f / float (n_inf) : 0.f;
        break;
      }
      if (max == -INFINITY) { /* only NaN and -inf */
        std::fill (scores->begin (), scores->end (), 0.f);
        break;
      }
      double sum = 0.0;
      for (float &s : *scores) {
        s = std::isnan (s) ? 0.f : std::exp (s - max);
        sum += s;
      }
      for (float &s : *scores)
        s = float (s / sum);
      break;
    }
    case Activation::kSigmoid:
      for (float &s : *scores)
        s = std::isnan (s) ? 0.f : 1.f / (1.f + std::exp (-s));
      break;
    case Activation::kNone:
      break;
  }
}

namespace {

/* Up to this k, one pass keeps the best k in order (an insertion each), instead of listing every
 * class at or above the threshold and sorting part of it: a classifier's top-5 of 1000 classes,
 * or each object's of a few, costs a comparison per class. */
constexpr int kInsertionTopK = 32;

void top_k_by_insertion (const std::vector<float> &scores, size_t k, float threshold,
                         std::vector<Result> *results)
{
  Result best[kInsertionTopK];
  size_t n = 0;
  for (size_t i = 0; i < scores.size (); ++i) {
    const float s = scores[i];
    if (!(s >= threshold))
      continue;
    /* Classes come in id order: an equal confidence already kept has the lower id and ranks first. */
    if (n < k)
      ++n;
    else if (!(s > best[n - 1].confidence))
      continue;
    size_t j = n - 1;
    for (; j > 0 && best[j - 1].confidence < s; --j)
      best[j] = best[j - 1];
    best[j] = {int (i), s};
  }
  results->assign (best, best + n);
}

}  // namespace

void top_k (const std::vector<float> &scores, int k, float threshold, std::vector<Result> *results)
{
  if (k > 0 && k <= kInsertionTopK) {
    top_k_by_insertion (scores, size_t (k), threshold, results);
    return;
  }
  results->clear ();
  for (size_t i = 0; i < scores.size (); ++i)
    if (scores[i] >= threshold)
      results->push_back ({int (i), scores[i]});
  const size_t keep = k <= 0 ? results->size () : std::min (results->size (), size_t (k));
  const auto better = [] (const Result &a, const Result &b) {
    return a.confidence > b.confidence || (a.confidence == b.confidence && a.class_id < b.class_id);
  };
  std::partial_sort (results->begin (), results->begin () + keep, results->end (), better);
  results->resize (keep);
}

void run_scores (const float *values, int64_t count, const Params &params, std::vector<float> *scores,
                 std::vector<Result> *results)
{
  scores->assign (values, values + count);
  activate (params.activation, scores);
  top_k (*scores, params.top_k, params.threshold, results);
}

void run (const tensor::View &view, const void *data, const Params &params, std::vector<float> *scores,
          std::vector<Result> *results)
{
  read_scores (view, data, params.int8_scale, scores);
  activate (params.activation, scores);
  top_k (*scores, params.top_k, params.threshold, results);
}

}  // namespace postprocess
