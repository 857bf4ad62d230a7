/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: a frame's way into the model's input, on the element's own CUDA stream.
 *
 * Per frame: map the buffer (CUDA or system memory), order our stream after the upstream stream
 * that wrote it (GStreamer >= 1.24: mapping does not wait for it), stage a system-memory frame in
 * the task slot's buffers, and run the preprocessing kernel into the slot's input tensor; then
 * record the event that marks the input written, which the engine waits for on its own stream. No
 * CUDA type appears here: only frame_input.cpp and staging.cpp include the CUDA runtime. */
#pragma once

#include <gst/video/video.h>

#include <memory>
#include <string>

#include "dla/engine.h"
#include "dla/status.h"
#include "gst/cuda_context.h"
#include "gst/frame_source.h"
#include "kernels/preprocess.h"
#include "nvmm/library.h"

namespace preprocess {
struct KernelLaunch;
}

namespace dlainfer {

/* Maps a frame for the scope of its processing: as video (system or CUDA memory), or an NVMM
 * buffer's memory as its NvBufSurface (kept mapped, with the buffer, until the task ended). */
class MappedFrame {
 public:
  bool map (const GstVideoInfo *info, GstBuffer *buf, GstMapFlags flags);
  bool map_nvmm (GstBuffer *buf);
  void unmap ();
  ~MappedFrame () { unmap (); }
  GstVideoFrame *get () { return &frame_; }
  const GstMapInfo &nvmm () const { return nvmm_; }

 private:
  GstVideoFrame frame_{};
  bool mapped_ = false;
  GstMapInfo nvmm_{};
  GstBuffer *nvmm_buffer_ = nullptr;
};

class FrameInput {
 public:
  FrameInput ();
  ~FrameInput ();
  FrameInput (const FrameInput &) = delete;
  FrameInput &operator= (const FrameInput &) = delete;

  /* start (primary context current): our stream, the kernel's graphs, and events and staging for
   * each of the engine's `slots`; with `objects` (roi-list) each slot's object entries too. */
  dla::Status open (int slots, bool objects = false);
  /* stop (context current): waits for our stream, then frees everything. */
  void close () noexcept;

  /* set_caps (context current): the frames' description, kept until the next caps (a restart
   * without new caps goes on with it); staging for frames in system memory when open; for NVMM
   * frames the library that imports them (docs/nvmm.md). */
  dla::Status configure (const GstVideoInfo &info, const preprocess::SourceView &source, FrameMemory memory,
                         std::shared_ptr<const nvmm::Library> nvmm_library = nullptr);

  /* Writes the model input of `task` from `buf` (context current): maps it into `frame` (kept
   * mapped until the task has read it), and sets *ready to the event recorded after the kernel. */
  dla::Status write (GstElement *element, CudaContext &cuda, GstBuffer *buf, const dla::Task &task,
                     const tensor::View &input, preprocess::Params pre, MappedFrame *frame, void **ready);

  /* Where write () samples the frame from, per axis (preprocess::frame_geometry of the whole frame):
   * what maps a detection back to frame pixels. */
  dla::Status geometry (const tensor::View &input, preprocess::Params pre, geometry::Axis *x,
                        geometry::Axis *y) const;

  /* roi-list: one launch writes the `n` objects' crops of `buf`, each into batch item
   * `batch_index` of the tensor at its dst_ptr (the inputs of `tasks`, acquired); the entries go
   * through the first task's slot (pinned host, then its device array, on our stream), whose
   * events time the launch. *ready: the event every task of the wave waits for. */
  dla::Status write_objects (GstElement *element, CudaContext &cuda, GstBuffer *buf, const dla::Task &first,
                             const preprocess::ObjectRoi *objects, int n, const tensor::View &input,
                             preprocess::Params pre, MappedFrame *frame, void **ready);

  /* After the task: the kernel's time on a timed task (negative otherwise), and whether the launch
   * was replayed from a CUDA graph. */
  float preprocess_ms (const dla::Task &task) const;
  bool graphed () const;
  /* The negotiated frame size (objects are clipped to it). */
  int width () const { return GST_VIDEO_INFO_WIDTH (&info_); }
  int height () const { return GST_VIDEO_INFO_HEIGHT (&info_); }
  /* Waits for our stream: a failed frame is released only once nothing reads it. */
  void drain () noexcept;

 private:
  struct Impl;
  dla::Status map_device (GstElement *element, CudaContext &cuda, GstBuffer *buf, MappedFrame *frame);
  dla::Status map_system (GstElement *element, GstBuffer *buf, int slot, MappedFrame *frame);
  dla::Status map_nvmm (GstElement *element, CudaContext &cuda, GstBuffer *buf, MappedFrame *frame);
  dla::Status map (GstElement *element, CudaContext &cuda, GstBuffer *buf, int slot, MappedFrame *frame);
  dla::Status start_launch (const preprocess::KernelLaunch &k, const dla::Task &task, void **ready);
  dla::Status launch (const dla::Task &task, const tensor::View &input, const preprocess::Params &pre,
                      void **ready);

  /* The whole frame as write () reads it: crop and pixel aspect from the caps. */
  preprocess::Params whole_frame (preprocess::Params pre) const;

  GstVideoInfo info_{};
  preprocess::SourceView source_{}; /* the caps' part; planes per frame */
  FrameMemory memory_ = FrameMemory::kSystem;
  std::shared_ptr<const nvmm::Library> nvmm_library_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dlainfer
