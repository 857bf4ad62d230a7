/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: the element's one CUDA context (docs/architecture.md section 4).
 *
 * cuDLA hybrid mode works in the device's primary context and gst_cuda_context_new() makes another,
 * so the element retains the primary context from NULL->READY to READY->NULL, wraps it as a
 * GstCudaContext (or adopts the wrapper a neighbour or the pipeline holds), announces it, and answers
 * context queries with it, so that cudaupload, cudaconvert, decoders and our other elements share one
 * GstCudaContext. */
#pragma once

#include <gst/cuda/gstcudacontext.h>
#include <gst/gst.h>

#include <string>

#include "dla/primary_context.h"
#include "dla/status.h"

namespace dlainfer {

class CudaContext {
 public:
  /* NULL->READY: retain device `device`'s primary context and wrap it. A failure is not a failed
   * state change: error () keeps it for start () to report after the checks that need no GPU. */
  void open (GstElement *element, int device);
  /* READY->NULL (and a failed NULL->READY). */
  void close (GstElement *element);
  /* dispose: drops the GObject references. */
  void dispose (GstElement *element);

  /* set_context: a neighbour's context, kept as a candidate open () adopts if it wraps the primary
   * context. */
  void offer (GstElement *element, GstContext *context, int device);
  /* A CONTEXT query answered with our context (any thread). */
  bool answer_query (GstElement *element, GstQuery *query);
  /* Whether a context is shared now (any thread). */
  bool shared (GstElement *element) const;

  void *primary () const { return primary_.handle (); } /* CUcontext */
  int ordinal () const { return primary_.ordinal (); }
  const std::string &error () const { return error_; }

  /* Frames from another CUDA context are read anyway (unified addressing), but said once: two
   * contexts time-slice the GPU. Another device cannot be read. */
  dla::Status check_memory (GstElement *element, GstCudaContext *memory_context);
  /* The next foreign context is said again (start). */
  void reset_log () { foreign_logged_ = false; }

 private:
  void ask_neighbours (GstElement *element);
  GstCudaContext *ref (GstElement *element) const;
  GstCudaContext *wrap (GstElement *element, GstCudaContext *offered, int device);

  dla::PrimaryContext primary_;
  GstCudaContext *context_ = nullptr; /* GST_OBJECT_LOCK: read by queries from other threads */
  GstCudaContext *offered_ = nullptr; /* GST_OBJECT_LOCK */
  std::string error_;                 /* why there is no context */
  bool foreign_logged_ = false;
};

}  // namespace dlainfer
