/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/detect/decode_ref.h"

#include <algorithm>
#include <vector>

#include "common/detect_math.h"

namespace detect {

void decode_reference (const Plan &plan, const Frame &frame, Result *out)
{
  std::vector<Candidate> kept;
  kept.reserve (size_t (plan.max_candidates));
  int32_t passed = 0;
  for (int32_t i = 0; i < plan.candidates; ++i) {
    Candidate c;
    if (!decode_candidate (plan, frame, i, &c))
      continue;
    if (passed++ < plan.max_candidates)
      kept.push_back (c);
  }
  std::sort (kept.begin (), kept.end (), [] (const Candidate &a, const Candidate &b) {
    return a.score != b.score ? a.score > b.score : a.index < b.index;
  });
  std::vector<bool> removed (kept.size (), false);
  int32_t count = 0;
  for (size_t r = 0; r < kept.size () && count < plan.max_detections; ++r) {
    if (removed[r])
      continue;
    out->detections[count++] = to_detection (frame, kept[r]);
    for (size_t j = r + 1; j < kept.size (); ++j)
      if (!removed[j] && suppresses (plan, kept[r], kept[j]))
        removed[j] = true;
  }
  out->count = count;
  out->candidates = passed;
  out->dropped = std::max (0, passed - plan.max_candidates);
  out->reserved = 0;
}

}  // namespace detect
