/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer: GstDlaBaseInfer's instance data, shared by its source files
 * (gstdlabaseinfer.cpp: the element's life, events and queries; frame_submit.cpp: a frame from
 * upstream to the DLA; push_loop.cpp: the src pad's task, from the DLA to downstream;
 * gstdlabaseinferprops.cpp: the common properties; element_errors.cpp: errors on the bus) and by
 * the stages. Grouped by lifetime; each group is one part of the element with its own file. */
#pragma once

#include <gst/gst.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "gst/cuda_context.h"
#include "gst/frame_input.h"
#include "gst/gstdlabaseinfer.h"
#include "gst/hold_latency.h"
#include "gst/inflight.h"
#include "gst/open_model.h"
#include "gst/outputs/tensor_output.h"
#include "gst/property_table.h"
#include "gst/settings.h"
#include "gst/stages/frame_stage.h"
#include "gst/stats.h"

GST_DEBUG_CATEGORY_EXTERN (gst_dla_infer_debug);

/* C++ state of one element: new'd in _init, deleted in _finalize. */
struct GstDlaBaseInferPrivate {
  /* The element's life. Properties: GST_OBJECT_LOCK. The `stats` property: its own lock; reset at
   * start, kept after stop for a last read. */
  dlainfer::Settings settings;
  dlainfer::Stats stats;

  /* NULL->READY to READY->NULL: the one CUDA context, shared with neighbours (cuda_context.h). */
  dlainfer::CudaContext cuda;

  /* start to stop, streaming thread: the open model (open_model.h), the frames' way into it
   * (frame_input.h, configured again by each set_caps), the raw tensors (outputs/). The open
   * model's description (`model-info`): GST_OBJECT_LOCK. */
  std::unique_ptr<dlainfer::Model> model;
  GstStructure *model_info = nullptr;
  /* A sharer that left `model` unset and found no instance of its model-instance-id at start
   * (modelinfo_settings.h: open_at) opens at its first caps, frame or LATENCY query, whichever
   * comes first: `opening` is then kWaiting until it opened (kOpen) or failed (kFailed).
   * open_mutex: those threads and stop. */
  enum class Opening { kOpen, kWaiting, kFailed };
  std::mutex open_mutex;
  std::atomic<Opening> opening{Opening::kOpen};
  dlainfer::FrameInput input;
  dlainfer::TensorOutput tensors;

  /* start to stop: what the frames are inferred for (stages/frame_stage.h), chosen at start;
   * reset at flush and stream-start. */
  std::unique_ptr<dlainfer::FrameStage> stage;
  /* max-in-flight=1 (start to stop, streaming thread): the slot of the task submitted last, whose
   * end the next submit awaits itself (frame_submit.cpp: await_previous_task); -1 when none. */
  int previous_slot = -1;

  /* The frames between submit (streaming thread) and push (the src pad's task): inflight.h. The
   * task touches model, input and output only through the frames it takes. */
  dlainfer::InFlight inflight;
  /* What the element announces as its latency (start; grown by the src task). */
  dlainfer::HoldLatency latency;
  /* The src task's time inside downstream's push, left out of the holds (hold_latency.h). */
  dlainfer::DownstreamTime downstream;

  /* A frame failed and its error was posted (reset at start): the stream posts one. */
  std::atomic<bool> stream_failed{false};

  /* The src task (and start, EOS): when `stats` was last notified (g_get_monotonic_time). */
  std::atomic<gint64> stats_notified_us{0};
};

/* Errors on the bus (element_errors.cpp). post_status posts a dla::Status in the domain its code
 * stands for, with the caller's location, as GST_ELEMENT_ERROR would; frame_failed also counts the
 * frame and says "restart the process" for a fatal status. Never with the object lock held. */
extern const char *const gst_dla_base_infer_restart_message;
void gst_dla_base_infer_post_status_at (GstDlaBaseInfer *self, const dla::Status &st,
                                        const std::string &debug, const char *file, const char *function,
                                        int line);
GstFlowReturn gst_dla_base_infer_frame_failed_at (GstDlaBaseInfer *self, const dla::Status &st,
                                                  const char *step, const char *file, const char *function,
                                                  int line);
#define post_status(self, st, debug) \
  gst_dla_base_infer_post_status_at ((self), (st), (debug), __FILE__, G_STRFUNC, __LINE__)
#define frame_failed(self, st, step) \
  gst_dla_base_infer_frame_failed_at ((self), (st), (step), __FILE__, G_STRFUNC, __LINE__)

/* A frame from upstream to the DLA (frame_submit.cpp, streaming thread): takes `buf` (writable),
 * queues it for the src task; the flow the task stored when it is not OK. */
GstFlowReturn gst_dla_base_infer_submit_frame (GstDlaBaseInfer *self, GstBuffer *buf);
/* The warm-up task at start (frame_submit.cpp): runs one task on the slots' blank input, sets the
 * announced latency from its time. */
dla::Status gst_dla_base_infer_warm_up (GstDlaBaseInfer *self);

/* A sharer waiting for its instance (GstDlaBaseInferPrivate::opening) opens now: from set_caps or the
 * first frame (`data`: a failure is an error naming model-instance-id and `model`), or from a
 * LATENCY query (not data: an instance still missing is left for the first frame). False once it
 * failed; true when the model is open, or left to the first frame. */
bool gst_dla_base_infer_open_waiting (GstDlaBaseInfer *self, bool data);

/* After the warm-up task took `took` (shared_latency.cpp): the latency announced, every sharer's
 * tasks in flight (model-instance-id) counted, and announced again as sharers join or leave. */
void gst_dla_base_infer_announce_latency (GstDlaBaseInfer *self, std::chrono::nanoseconds took);

/* Until the task ends, its own task-timeout passes (from now, one more for each task queued before
 * it on its core; whether or not cuDLA applies one itself), or a flush or stop comes (*aborted: the
 * task stays in flight); in 100 ms slices (push_loop.cpp; the streaming thread waits its earlier
 * waves with it too). */
dla::Status gst_dla_base_infer_wait_task (GstDlaBaseInfer *self, dla::Task &task, bool *aborted);
/* Each of the frame's tasks in turn with gst_dla_base_infer_wait_task: the first failure, or *aborted. */
dla::Status gst_dla_base_infer_wait_frame_tasks (GstDlaBaseInfer *self, dlainfer::PendingFrame &f,
                                                 bool *aborted);

/* The src pad's task (push_loop.cpp). start_pushing: the task runs (READY->PAUSED, FLUSH_STOP).
 * stop_pushing: every wait ends and the task is joined (PAUSED->READY). drop_frames: the frames
 * still queued go, each after the kernel that read it and its DLA task ended (by `deadline`);
 * the task is not running. */
void gst_dla_base_infer_start_pushing (GstDlaBaseInfer *self);
void gst_dla_base_infer_stop_pushing (GstDlaBaseInfer *self);
void gst_dla_base_infer_drop_frames (GstDlaBaseInfer *self, std::chrono::steady_clock::time_point deadline);
/* The open model's task-timeout (a sharer's may be its definer's), else the property's (object
 * lock taken). */
std::chrono::milliseconds gst_dla_base_infer_task_timeout (GstDlaBaseInfer *self);
/* The time `slot`'s task may take from now: a task-timeout for it and one for each task queued
 * before it on its core when it was submitted. */
std::chrono::milliseconds gst_dla_base_infer_task_allowance (GstDlaBaseInfer *self, int slot);
/* `stats` is notified at most once a second while frames flow, and at EOS. */
void gst_dla_base_infer_maybe_notify_stats (GstDlaBaseInfer *self);

/* The common properties' table (gstdlabaseinferprops.cpp, gst/property_table.h). */
std::vector<dlainfer::Property> gst_dla_base_infer_properties ();

/* g_object_notify_by_pspec for the read-only properties: `model-info` once after start, `stats`
 * at most once a second and at EOS. Any thread; never with the object lock held. */
enum GstDlaBaseInferNotify { GST_DLA_BASE_INFER_NOTIFY_STATS, GST_DLA_BASE_INFER_NOTIFY_MODEL_INFO };
void gst_dla_base_infer_notify (GstDlaBaseInfer *self, GstDlaBaseInferNotify which);

#define GST_TYPE_DLA_INFER_CHANNEL_ORDER (gst_dla_infer_channel_order_get_type ())
GType gst_dla_infer_channel_order_get_type (void);
#define GST_TYPE_DLA_INFER_RESIZE_MODE (gst_dla_infer_resize_mode_get_type ())
GType gst_dla_infer_resize_mode_get_type (void);
#define GST_TYPE_DLA_INFER_TENSOR_TYPE (gst_dla_infer_tensor_type_get_type ())
GType gst_dla_infer_tensor_type_get_type (void);
