/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* swdla tests: a model from a few lines of spec (FORMAT.md, "Spec files"), built, written and read
 * back as a file would be; seeded random dense values for a tensor. */
#pragma once

#include <gtest/gtest.h>

#include "model.h"
#include "spec.h"

namespace swdla_test {

/* `body` is a model's statements without `model` and `end`; a failure is a test failure. */
inline swdla::Model model_from_spec (const std::string &body, std::vector<uint8_t> *bytes = nullptr)
{
  std::vector<swdla::SpecOutput> out;
  std::string why;
  EXPECT_TRUE (swdla::build_spec ("model m\n" + body + "end\n", &out, &why)) << why;
  swdla::Model m;
  EXPECT_TRUE (!out.empty () && swdla::parse_model (out[0].bytes.data (), out[0].bytes.size (), &m, &why))
      << why;
  if (bytes && !out.empty ())
    *bytes = out[0].bytes;
  return m;
}

/* Dense values in [-1, 1] for every element of `t` (xorshift from `seed`). */
inline std::vector<float> random_dense (const swdla::TensorSpec &t, uint32_t seed)
{
  std::vector<float> dense (size_t (t.n * t.c * t.h * t.w));
  uint32_t x = seed * 2654435761u + 1;
  for (float &v : dense) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    v = float (x % 2001) / 1000.f - 1.f;
  }
  return dense;
}

}  // namespace swdla_test
