/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the latency the element announces at start, and again when elements sharing its
 * model (model-instance-id) join or leave (docs/architecture.md 8). */
#include <algorithm>
#include <chrono>

#include "gst/gstdlabaseinfer-private.h"

#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace {

using std::chrono::nanoseconds;

/* One task's time: the warm-up's for an element alone (as before sharing). A sharer's warm-up also
 * waited behind the others' tasks, so once the cores have learnt their duration, the slowest's. */
nanoseconds per_task (const dla::Engine &engine, bool shared, nanoseconds took)
{
  nanoseconds learnt{0};
  for (int i = 0; shared && i < engine.cores (); ++i)
    learnt = std::max (learnt, engine.core_counters (i).expected);
  return learnt.count () > 0 ? learnt : took;
}

}  // namespace

void gst_dla_base_infer_announce_latency (GstDlaBaseInfer *self, nanoseconds took)
{
  GstDlaBaseInferPrivate *priv = self->priv;
  dla::Engine &engine = *priv->model->engine;
  const bool shared = bool (priv->model->shared);
  dlainfer::HoldLatency &latency = priv->latency;
  auto base = [&engine, shared, took] (int in_flight) {
    return dlainfer::tasks_ahead (in_flight, engine.cores ()) * per_task (engine, shared, took);
  };
  /* A saturated stream's frame waits behind the tasks in flight, every sharer's, which the cores
   * share; told again (from the joining or leaving element's thread) as sharers come and go. */
  const int now = engine.model ()->tasks_in_flight ();
  latency.reset (base (now));
  engine.watch_sharers ([&latency, base] (int in_flight, int) { latency.rebase (base (in_flight)); });
  GST_INFO_OBJECT (self,
                   "warm-up task: %.3f ms; announcing %.3f ms as the element's latency (%d task(s) in "
                   "flight at most over %d core(s))",
                   std::chrono::duration<double, std::milli> (took).count (),
                   std::chrono::duration<double, std::milli> (latency.announced ()).count (), now,
                   engine.cores ());
}
