/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-dlainfer benchmarks: the CPU cost of one frame's CUDA calls right after a sleep. */
#pragma once

namespace bench {

/* Prints one line: kernel launch plain and from a CUDA graph, the event query after the wait's
 * sleep, a 60 us sleep (CPU microseconds each, on this machine). */
void print_launch_costs ();

}  // namespace bench
