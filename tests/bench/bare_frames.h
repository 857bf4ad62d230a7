/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer benchmarks: what a synchronous frame's CUDA calls alone cost this host's CPU. */
#pragma once

namespace bench {

/* Thread CPU microseconds per frame over n frames that make dlainfer's per-frame CUDA calls and
 * nothing else: no GStreamer, no DLA submit. Each frame replays a graph whose kernel runs for
 * gpu_us (standing in for the preprocessing and the DLA task), copies 64 bytes of output to pinned
 * memory, records the end event and waits for it with dla::CompletionWait; the frames
 * dla::timed_task names record the four timed events and read their three elapsed times, as the
 * engine does. The floor under dlainfer's figure on this host; < 0 if the set-up failed. */
double bare_frame_cpu_us (double gpu_us, int n);

/* The same frames split over two threads as dlainfer splits them (docs/architecture.md 8): one
 * launches and queues up to `in_flight` frames, sleeping on a condition variable while none is free
 * (the streaming thread), the other waits for the oldest with dla::CompletionWait, its alarm counted
 * from the expected end of the frames before it, and frees its slot (the src pad's task). CPU
 * microseconds per frame of both threads together: the floor of that design on this host, where
 * each thread wakes once a frame; < 0 if the set-up failed. */
double bare_pipelined_cpu_us (double gpu_us, int n, int in_flight);

}  // namespace bench
