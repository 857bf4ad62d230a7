/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gst/frame_input.h"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudamemory.h>

#include <atomic>
#include <string>
#include <vector>

#include "dla/cuda_resources.h"
#include "dla/fatal.h"
#include "dla/primary_context.h"
#include "gst/frame_source.h"
#include "gst/staging.h"
#include "kernels/launch_graphs.h"
#include "nvmm/import.h"

GST_DEBUG_CATEGORY_EXTERN (gst_dla_infer_debug);
#define GST_CAT_DEFAULT gst_dla_infer_debug

namespace dlainfer {

bool MappedFrame::map (const GstVideoInfo *info, GstBuffer *buf, GstMapFlags flags)
{
  /* NO_REF: the frame's ref would make the buffer read-only for the meta added in place. */
  mapped_ = gst_video_frame_map (&frame_, info, buf, GstMapFlags (flags | GST_VIDEO_FRAME_MAP_FLAG_NO_REF));
  return mapped_;
}

bool MappedFrame::map_nvmm (GstBuffer *buf)
{
  if (!gst_buffer_map (buf, &nvmm_, GST_MAP_READ))
    return false;
  nvmm_buffer_ = buf;
  return true;
}

void MappedFrame::unmap ()
{
  if (mapped_)
    gst_video_frame_unmap (&frame_);
  mapped_ = false;
  if (nvmm_buffer_)
    gst_buffer_unmap (nvmm_buffer_, &nvmm_);
  nvmm_buffer_ = nullptr;
}

/* What a task slot needs on our side: the staging of system-memory frames, and our events. */
struct InputSlot {
  Staging staging;
  Staging entries;                   /* roi-list: the objects' launch entries (preprocess::plan_objects) */
  dla::CudaEvent start, ready_timed; /* with timestamps: the engine's timed tasks */
  dla::CudaEvent ready;              /* the other tasks' "input written" */
};

struct FrameInput::Impl {
  preprocess::SourceView view{}; /* this frame's: the caps' part and its planes */
  dla::CudaStream stream;
  dla::CudaEvent upstream; /* recorded on an upstream stream, waited on by ours */
  std::unique_ptr<preprocess::LaunchGraphs> graphs;
  std::vector<InputSlot> slots;
  preprocess::KernelLaunch launch{}; /* per-frame scratch, sized once */
  bool graphed = false;
  /* NVMM: surfaces registered until their memory goes (a qdata link on it) or we close. */
  std::shared_ptr<nvmm::Importer> importer;
  GQuark link_quark = 0;
};

namespace {

/* Tied to an NVMM memory we imported: when the pool frees it, its registration goes first. */
struct NvmmLink {
  std::weak_ptr<nvmm::Importer> importer;
  nvmm::NvBufSurface *surface;
  void *context; /* the primary context the registration was made in */
};

void nvmm_memory_gone (gpointer data)
{
  NvmmLink *link = static_cast<NvmmLink *> (data);
  if (std::shared_ptr<nvmm::Importer> importer = link->importer.lock ()) {
    dla::ScopedContext scope (link->context);
    importer->release (link->surface);
  }
  delete link;
}

/* One qdata key per importer: two elements reading the same buffers (a tee) keep their own, and a
 * new importer never takes an old one's expired link for its own. */
GQuark new_link_quark ()
{
  static std::atomic<uint64_t> next{0};
  return g_quark_from_string (("dlainfer-nvmm-import-" + std::to_string (next++)).c_str ());
}

}  // namespace

FrameInput::FrameInput () = default;

FrameInput::~FrameInput ()
{
  close ();
}

dla::Status FrameInput::open (int slots, bool objects)
{
  std::unique_ptr<Impl> im (new Impl ());
  dla::Status st = dla::CudaStream::Create (&im->stream);
  if (st.ok ())
    st = dla::CudaEvent::Create (false, &im->upstream);
  im->slots.resize (size_t (slots));
  for (InputSlot &s : im->slots)
    if (st.ok () && (st = dla::CudaEvent::Create (true, &s.start)).ok () &&
        (st = dla::CudaEvent::Create (true, &s.ready_timed)).ok () &&
        (st = dla::CudaEvent::Create (false, &s.ready)).ok () && objects)
      st = s.entries.reserve (size_t (preprocess::object_slots (preprocess::kMaxObjects)) *
                              preprocess::object_entry_bytes ());
  if (!st.ok ())
    return st;
  im->graphs = std::make_unique<preprocess::LaunchGraphs> ();
  impl_ = std::move (im);
  return st;
}

void FrameInput::close () noexcept
{
  if (!impl_)
    return;
  drain ();
  impl_.reset ();
}

void FrameInput::drain () noexcept
{
  if (impl_ && impl_->stream.get ())
    cudaStreamSynchronize (static_cast<cudaStream_t> (impl_->stream.get ()));
}

dla::Status FrameInput::configure (const GstVideoInfo &info, const preprocess::SourceView &source,
                                   FrameMemory memory, std::shared_ptr<const nvmm::Library> nvmm_library)
{
  info_ = info;
  source_ = source;
  memory_ = memory;
  nvmm_library_ = std::move (nvmm_library);
  if (memory != FrameMemory::kSystem || !impl_)
    return dla::Status::Ok ();
  for (InputSlot &s : impl_->slots) {
    const dla::Status st = s.staging.reserve (staging_bytes (&info));
    if (!st.ok ())
      return st;
  }
  return dla::Status::Ok ();
}

dla::Status FrameInput::write (GstElement *element, CudaContext &cuda, GstBuffer *buf, const dla::Task &task,
                               const tensor::View &input, preprocess::Params pre, MappedFrame *frame,
                               void **ready)
{
  const dla::Status st = map (element, cuda, buf, task.slot (), frame);
  if (!st.ok ())
    return st;
  return launch (task, input, whole_frame (pre), ready);
}

preprocess::Params FrameInput::whole_frame (preprocess::Params pre) const
{
  pre.crop = {0, 0, GST_VIDEO_INFO_WIDTH (&info_), GST_VIDEO_INFO_HEIGHT (&info_)};
  pre.par_n = GST_VIDEO_INFO_PAR_N (&info_);
  pre.par_d = GST_VIDEO_INFO_PAR_D (&info_);
  return pre;
}

dla::Status FrameInput::geometry (const tensor::View &input, preprocess::Params pre, geometry::Axis *x,
                                  geometry::Axis *y) const
{
  pre = whole_frame (pre);
  std::string why;
  if (preprocess::frame_geometry (source_, input, pre, pre.crop, x, y, &why) == preprocess::Status::kOk)
    return dla::Status::Ok ();
  return dla::Status::Error (dla::Code::kRuntime, "the frame's geometry for the detections: " + why);
}

dla::Status FrameInput::map (GstElement *element, CudaContext &cuda, GstBuffer *buf, int slot,
                             MappedFrame *frame)
{
  impl_->view = source_;
  if (memory_ == FrameMemory::kNvmm)
    return map_nvmm (element, cuda, buf, frame);
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  return gst_is_cuda_memory (mem) ? map_device (element, cuda, buf, frame)
                                  : map_system (element, buf, slot, frame);
}

dla::Status FrameInput::write_objects (GstElement *element, CudaContext &cuda, GstBuffer *buf,
                                       const dla::Task &first, const preprocess::ObjectRoi *objects, int n,
                                       const tensor::View &input, preprocess::Params pre, MappedFrame *frame,
                                       void **ready)
{
  pre.par_n = GST_VIDEO_INFO_PAR_N (&info_);
  pre.par_d = GST_VIDEO_INFO_PAR_D (&info_);
  dla::Status st = map (element, cuda, buf, first.slot (), frame);
  if (!st.ok ())
    return st;
  std::string why;
  Staging &entries = impl_->slots[size_t (first.slot ())].entries;
  const size_t bytes = size_t (preprocess::object_slots (n)) * preprocess::object_entry_bytes ();
  preprocess::Status pst =
      bytes <= entries.capacity ()
          ? preprocess::plan_objects (impl_->view, input, pre, objects, n, entries.host (), &why)
          : preprocess::Status::kInvalidArgument;
  if (pst == preprocess::Status::kOk)
    pst =
        preprocess::plan_objects_launch (impl_->view, input, pre, entries.device (), n, &impl_->launch, &why);
  if (pst != preprocess::Status::kOk)
    return dla::Status::Error (dla::Code::kRuntime, std::string ("The objects' preprocessing cannot run: ") +
                                                        preprocess::status_name (pst) + ": " + why);
  /* The entries reach the device on our stream, ahead of the launch that reads them. */
  if (!(st = entries.upload (bytes, impl_->stream.get ())).ok ())
    return st;
  return start_launch (impl_->launch, first, ready);
}

/* Orders our stream after the upstream stream that wrote the frame (GStreamer >= 1.24). */
static dla::Status order_after_upstream (GstCudaMemory *cmem, void *primary, void *stream, void *event)
{
#if GST_CHECK_VERSION(1, 24, 0)
  GstCudaStream *upstream = gst_cuda_memory_get_stream (cmem);
  if (!upstream)
    return dla::Status::Ok ();
  if (gst_cuda_context_get_handle (cmem->context) != primary) {
    /* Our event cannot be recorded on another context's stream: wait on the host instead. */
    gst_cuda_memory_sync (cmem);
    return dla::Status::Ok ();
  }
  int err = dla::record_event (event, gst_cuda_stream_get_handle (upstream));
  if (err == cudaSuccess)
    err = dla::stream_wait_event (stream, event);
  if (err != cudaSuccess)
    return dla::cuda_failure ("ordering after the upstream CUDA stream", err);
#else
  (void)cmem, (void)primary, (void)stream, (void)event;
#endif
  return dla::Status::Ok ();
}

dla::Status FrameInput::map_device (GstElement *element, CudaContext &cuda, GstBuffer *buf,
                                    MappedFrame *frame)
{
  GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (buf, 0));
  dla::Status st = cuda.check_memory (element, cmem->context);
  if (!st.ok ())
    return st;
  if (!frame->map (&info_, buf, GstMapFlags (GST_MAP_READ | GST_MAP_CUDA)))
    return dla::Status::Error (dla::Code::kRuntime, "Cannot map the frame's CUDA memory");
  /* Mapping does not wait for the stream that wrote the frame: order our kernel after it. */
  st = order_after_upstream (cmem, cuda.primary (), impl_->stream.get (), impl_->upstream.get ());
  if (!st.ok ())
    return st;
  set_planes (frame->get (), &impl_->view);
  return dla::Status::Ok ();
}

/* docs/nvmm.md 5: the surface checked, imported once (cached), read in place by the kernel. */
dla::Status FrameInput::map_nvmm (GstElement *element, CudaContext &cuda, GstBuffer *buf, MappedFrame *frame)
{
  nvmm::Format format = nvmm::Format::kNV12;
  std::string why;
  if (!nvmm_library_ || !nvmm_format (&info_, &format, &why))
    return dla::Status::Error (dla::Code::kRuntime, why.empty () ? "memory:NVMM without its library" : why);
  if (gst_buffer_n_memory (buf) != 1)
    return dla::Status::Error (
        dla::Code::kRuntime,
        "Cannot read this memory:NVMM frame: " + std::to_string (gst_buffer_n_memory (buf)) +
            " memories in one buffer, not one NvBufSurface; " + nvmm::kWayOut);
  if (!frame->map_nvmm (buf))
    return dla::Status::Error (dla::Code::kRuntime, "Cannot map the memory:NVMM frame");
  const nvmm::Expected expected{format, uint32_t (GST_VIDEO_INFO_WIDTH (&info_)),
                                uint32_t (GST_VIDEO_INFO_HEIGHT (&info_)), nvmm::kDefaultIsSurfaceArray};
  dla::Status st = nvmm::check_surface (frame->nvmm ().data, frame->nvmm ().size, expected);
  if (!st.ok ())
    return st;
  if (!impl_->importer) {
    impl_->importer = std::make_shared<nvmm::Importer> (nvmm_library_);
    impl_->link_quark = new_link_quark ();
  }
  nvmm::NvBufSurface *surf = reinterpret_cast<nvmm::NvBufSurface *> (frame->nvmm ().data);
  nvmm::Planes planes;
  if (!(st = impl_->importer->import (surf, format, &planes)).ok ())
    return st;
  GstMiniObject *mem = GST_MINI_OBJECT_CAST (gst_buffer_peek_memory (buf, 0));
  const GQuark key = impl_->link_quark;
  if (!gst_mini_object_get_qdata (mem, key)) {
    GST_DEBUG_OBJECT (element, "NVMM surface %p imported (%s)", static_cast<void *> (surf),
                      planes.textures_used ? "CUDA arrays, textures" : "pitch-linear pointers");
    gst_mini_object_set_qdata (mem, key, new NvmmLink{impl_->importer, surf, cuda.primary ()},
                               nvmm_memory_gone);
  }
  preprocess::SourceView &v = impl_->view;
  v.kind = planes.textures_used ? preprocess::SourceKind::kTexture : preprocess::SourceKind::kPitched;
  for (int p = 0; p < 3; ++p) {
    v.planes[p] = planes.pointers[p];
    v.pitches[p] = planes.pitches[p];
    v.textures[p] = planes.textures[p];
  }
  return dla::Status::Ok ();
}

dla::Status FrameInput::map_system (GstElement *element, GstBuffer *buf, int slot, MappedFrame *frame)
{
  if (!frame->map (&info_, buf, GST_MAP_READ))
    return dla::Status::Error (dla::Code::kRuntime, "Cannot map the frame's memory");
  Staging &staging = impl_->slots[size_t (slot)].staging;
  const size_t bytes = staging_bytes (frame->get ());
  if (bytes > staging.capacity ()) {
    /* Only when frames are laid out larger than their caps say (padded strides): once. */
    GST_INFO_OBJECT (element, "growing the upload staging to %" G_GSIZE_FORMAT " bytes", bytes);
    const dla::Status st = staging.reserve (bytes);
    if (!st.ok ())
      return st;
  }
  pack_planes (frame->get (), staging.host (), staging.device (), &impl_->view);
  return staging.upload (bytes, impl_->stream.get ());
}

dla::Status FrameInput::launch (const dla::Task &task, const tensor::View &input,
                                const preprocess::Params &pre, void **ready)
{
  std::string why;
  const preprocess::Status pst =
      preprocess::plan_launch (impl_->view, input, task.input (), pre, nullptr, 0, &impl_->launch, &why);
  if (pst != preprocess::Status::kOk)
    return dla::Status::Error (dla::Code::kRuntime, std::string ("The preprocessing kernel cannot run: ") +
                                                        preprocess::status_name (pst) + ": " + why);
  return start_launch (impl_->launch, task, ready);
}

dla::Status FrameInput::start_launch (const preprocess::KernelLaunch &k, const dla::Task &task, void **ready)
{
  /* Before the start event: making a graph must not count as the frame's preprocessing time. */
  const size_t entry = impl_->graphs->prepare (k);
  impl_->graphed = impl_->graphs->graphed (entry);
  InputSlot &s = impl_->slots[size_t (task.slot ())];
  cudaStream_t stream = static_cast<cudaStream_t> (impl_->stream.get ());
  int err = task.timed () ? dla::record_event (s.start.get (), stream) : cudaSuccess;
  if (err == cudaSuccess)
    err = impl_->graphs->launch (entry, stream);
  if (err != cudaSuccess)
    return dla::cuda_failure ("launching the preprocessing kernel", err);
  *ready = task.timed () ? s.ready_timed.get () : s.ready.get ();
  err = dla::record_event (*ready, stream);
  return err == cudaSuccess ? dla::Status::Ok () : dla::cuda_failure ("cudaEventRecord (input written)", err);
}

float FrameInput::preprocess_ms (const dla::Task &task) const
{
  if (!task.timed ())
    return -1.f;
  const InputSlot &s = impl_->slots[size_t (task.slot ())];
  return dla::elapsed_ms (s.start.get (), s.ready_timed.get ());
}

bool FrameInput::graphed () const
{
  return impl_->graphed;
}

}  // namespace dlainfer
