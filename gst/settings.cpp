#include "settings.h"

namespace dlainfer {

preprocess::Params preprocess_params (const Settings &s)
{
  preprocess::Params p = preprocess::default_params ();
  for (int c = 0; c < 3; ++c) {
    p.mean[c] = s.mean[c];
    p.std[c] = s.std[c];
  }
  p.order = s.channel_order;
  return p;
}

postprocess::Params postprocess_params (const Settings &)
{
  return postprocess::Params ();
}

}  // namespace dlainfer
