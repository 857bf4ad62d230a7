/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/cuda_context.h"

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

GST_DEBUG_CATEGORY_EXTERN (gst_dla_infer_debug);
#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace dlainfer {

/* The primary context, as a GstCudaContext: a neighbour's wrapper of it if one was offered. */
GstCudaContext *CudaContext::wrap (GstElement *element, GstCudaContext *offered, int device)
{
  if (!gst_cuda_load_library ()) {
    error_ = "GStreamer's CUDA library could not load the CUDA driver (libcuda.so.1)";
    return nullptr;
  }
  if (offered && gst_cuda_context_get_handle (offered) == primary_.handle ()) {
    GST_DEBUG_OBJECT (element,
                      "adopting the neighbour's GstCudaContext %" GST_PTR_FORMAT " (same primary context)",
                      offered);
    return GST_CUDA_CONTEXT (gst_object_ref (offered));
  }
  GstCudaContext *ctx = gst_cuda_context_new_wrapped (static_cast<CUcontext> (primary_.handle ()),
                                                      static_cast<CUdevice> (primary_.device ()));
  if (!ctx)
    error_ = "gst_cuda_context_new_wrapped failed for the primary context of CUDA device " +
             std::to_string (device);
  return ctx;
}

/* The first half of gst_cuda_ensure_element_context (its second makes a context of its own, not the
 * primary one): the neighbours are asked, then the pipeline (NEED_CONTEXT: a bin that holds a CUDA
 * context hands it over through set_context, i.e. offer ()). Without it each of our elements would
 * wrap the primary context anew, and GStreamer 1.24's CUDA pools refuse a stream of one wrapper in
 * a pool of another ("stream object is holding different CUDA context"). */
void CudaContext::ask_neighbours (GstElement *element)
{
  struct Asking {
    GstQuery *query;
    bool found;
  } asking{gst_query_new_context (GST_CUDA_CONTEXT_TYPE), false};
  const GstElementForeachPadFunc ask = [] (GstElement *, GstPad *pad, gpointer data) -> gboolean {
    auto *a = static_cast<Asking *> (data);
    a->found = gst_pad_peer_query (pad, a->query);
    return !a->found; /* on to the next pad until one is answered */
  };
  gst_element_foreach_src_pad (element, ask, &asking);
  if (!asking.found)
    gst_element_foreach_sink_pad (element, ask, &asking);
  GstQuery *query = asking.query;
  GstContext *context = nullptr;
  if (asking.found)
    gst_query_parse_context (query, &context);
  if (context)
    gst_element_set_context (element, context);
  else
    gst_element_post_message (element,
                              gst_message_new_need_context (GST_OBJECT (element), GST_CUDA_CONTEXT_TYPE));
  gst_query_unref (query);
}

void CudaContext::open (GstElement *element, int device)
{
  error_.clear ();
  const dla::Status st = dla::PrimaryContext::Retain (device, &primary_);
  if (st.ok ())
    ask_neighbours (element);
  GST_OBJECT_LOCK (element);
  GstCudaContext *offered = offered_;
  offered_ = nullptr;
  GST_OBJECT_UNLOCK (element);

  GstCudaContext *ctx = nullptr;
  if (!st.ok ())
    error_ = st.message;
  else
    ctx = wrap (element, offered, device);
  if (offered)
    gst_object_unref (offered);
  if (!ctx) {
    GST_INFO_OBJECT (element, "no CUDA context: %s", error_.c_str ());
    return;
  }
  GST_OBJECT_LOCK (element);
  context_ = ctx;
  GST_OBJECT_UNLOCK (element);
  GST_INFO_OBJECT (element, "using the primary context %p of CUDA device %d as %" GST_PTR_FORMAT,
                   primary_.handle (), device, ctx);
  /* Announce it like gst_cuda_ensure_element_context does, so the pipeline hands it out too. */
  GstContext *context = gst_context_new_cuda_context (ctx);
  gst_element_post_message (element, gst_message_new_have_context (GST_OBJECT (element), context));
}

void CudaContext::close (GstElement *element)
{
  GST_OBJECT_LOCK (element);
  GstCudaContext *ctx = context_;
  context_ = nullptr;
  GST_OBJECT_UNLOCK (element);
  if (ctx)
    gst_object_unref (ctx);
  primary_ = dla::PrimaryContext ();
}

void CudaContext::dispose (GstElement *element)
{
  GST_OBJECT_LOCK (element);
  GstCudaContext *ctx = context_;
  GstCudaContext *offered = offered_;
  context_ = nullptr;
  offered_ = nullptr;
  GST_OBJECT_UNLOCK (element);
  if (ctx)
    gst_object_unref (ctx);
  if (offered)
    gst_object_unref (offered);
}

void CudaContext::offer (GstElement *element, GstContext *context, int device)
{
  GstCudaContext *other = nullptr;
  if (!gst_cuda_handle_set_context (element, context, device, &other) || !other)
    return;
  GST_OBJECT_LOCK (element);
  std::swap (offered_, other);
  GST_OBJECT_UNLOCK (element);
  if (other)
    gst_object_unref (other);
}

GstCudaContext *CudaContext::ref (GstElement *element) const
{
  GST_OBJECT_LOCK (element);
  GstCudaContext *ctx = context_ ? GST_CUDA_CONTEXT (gst_object_ref (context_)) : nullptr;
  GST_OBJECT_UNLOCK (element);
  return ctx;
}

bool CudaContext::answer_query (GstElement *element, GstQuery *query)
{
  GstCudaContext *ctx = ref (element);
  const bool answered = ctx && gst_cuda_handle_context_query (element, query, ctx);
  if (ctx)
    gst_object_unref (ctx);
  return answered;
}

bool CudaContext::shared (GstElement *element) const
{
  GstCudaContext *ctx = ref (element);
  if (ctx)
    gst_object_unref (ctx);
  return ctx != nullptr;
}

dla::Status CudaContext::check_memory (GstElement *element, GstCudaContext *mem_ctx)
{
  if (!mem_ctx || gst_cuda_context_get_handle (mem_ctx) == primary_.handle ())
    return dla::Status::Ok ();
  gint device = -1;
  g_object_get (mem_ctx, "cuda-device-id", &device, nullptr);
  if (device != primary_.ordinal ())
    return dla::Status::Error (dla::Code::kRuntime,
                               "The frame is in the memory of CUDA device " + std::to_string (device) +
                                   " but the element runs on device " + std::to_string (primary_.ordinal ()) +
                                   ": set cuda-device-id=" + std::to_string (device));
  if (!foreign_logged_) {
    foreign_logged_ = true;
    GST_INFO_OBJECT (
        element,
        "frames come from another CUDA context (%p, ours is the primary context %p): read anyway, but "
        "two contexts time-slice the GPU; let upstream take our context",
        gst_cuda_context_get_handle (mem_ctx), primary_.handle ());
  }
  return dla::Status::Ok ();
}

}  // namespace dlainfer
