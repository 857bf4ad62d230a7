/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: `dump-dir` and `dump-count` (docs/tensors.md, "Dump"): the input tensor and the raw
 * outputs of the next N inferences as files, for comparing the DLA's results offline with the GPU's
 * or a framework's, with a description of their layout. Armed from any thread (its own lock);
 * written by the streaming thread after a task ended. */
#pragma once

#include <gst/gst.h>

#include <mutex>
#include <string>
#include <vector>

#include "dla/engine.h"
#include "gst/outputs/tensor_plan.h"

namespace dlainfer {

class Dump {
 public:
  void set_dir (const std::string &dir);
  void set_count (guint count);
  std::string dir () const;
  guint count () const; /* inferences still to write */

  /* After an inference: when armed, writes its tensors. False with a message naming the path, the
   * cause and the fix (and disarmed) when it cannot. */
  bool write (dla::Engine &engine, int slot, const std::vector<TensorPlan> &outputs, float input_scale,
              std::string *error);

 private:
  bool write_inputs (dla::Engine &engine, int slot, std::string *error);
  bool write_outputs (dla::Engine &engine, int slot, const std::vector<TensorPlan> &outputs,
                      std::string *error);

  mutable std::mutex mutex_;
  std::string dir_;
  guint count_ = 0;
  guint64 next_ = 0;       /* the next dump's number: files are never overwritten */
  bool described_ = false; /* layout.txt written for this arming */
};

/* The text of layout.txt for these tensors (exposed for tests). */
std::string dump_description (const std::vector<dla::TensorInfo> &inputs, float input_scale,
                              const std::vector<TensorPlan> &outputs);

}  // namespace dlainfer
