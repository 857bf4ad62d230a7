#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""multi-stream.py: several streams sharing one loaded model (model-instance-id) over every DLA core.

    videotestsrc ! cudaupload ! video/x-raw(memory:CUDAMemory) ! dlainfer model-instance-id=ID dla-core=-1
                                                                  ! fakesink        (STREAMS times)

Only the first dlainfer sets `model` (and labels, dla-core); the others share what it loaded: one
device handle, module and task queue per DLA core, each stream with its own frames in flight, and
take its labels and .modelinfo settings. GStreamer starts the branches last-first, so the others
start before it: they open at their first frame, once it has loaded the model. At
the end each stream's per-core `stats` is printed (tasks and busy time on each core), then the
totals per core: "is core 1 really used?".

    multi-stream.py --model M [--labels L] [--streams N] [--frames F] [--id ID] [--max-in-flight K]

Exit 0 at end of stream, 1 on a pipeline error or a missing plugin, 2 on bad usage.
"""
import argparse
import sys

PROG = "multi-stream.py"



def missing_cudaupload(Gst, err):
    """dlainfer-example.py's line for a missing cudaupload (that script is installed on its own, so
    it keeps the text; this one, next to it, borrows it)."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dlainfer-example.py")
    spec = importlib.util.spec_from_file_location("dlainfer_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example.missing_cudaupload(Gst, err)

def main():
    ap = argparse.ArgumentParser(prog=PROG, description="several streams sharing one model over every DLA core")
    ap.add_argument("--model", required=True, help="the cuDLA loadable")
    ap.add_argument("--labels", default="", help="its labels file")
    ap.add_argument("--streams", type=int, default=4, help="sources sharing the model (default 4)")
    ap.add_argument("--frames", type=int, default=300, help="frames per source (default 300)")
    ap.add_argument("--id", default="cams", help="model-instance-id (default cams)")
    ap.add_argument("--max-in-flight", type=int, default=4, help="each stream's tasks in flight (default 4)")
    a = ap.parse_args()
    if a.streams < 1 or a.frames < 1:
        ap.error("--streams and --frames take 1 or more")
    try:
        import gi
        gi.require_version("Gst", "1.0")
        from gi.repository import GLib, Gst
    except (ImportError, ValueError) as e:
        print(f"{PROG}: PyGObject with Gst 1.0 is missing ({e}): use Debian's /usr/bin/python3", file=sys.stderr)
        return 1
    Gst.init(None)
    if not Gst.ElementFactory.find("dlainfer"):
        print(f"{PROG}: no dlainfer element: set GST_PLUGIN_PATH to the build's gst/ folder", file=sys.stderr)
        return 1
    branches = []
    for i in range(a.streams):
        first = f" model={a.model} dla-core=-1" if i == 0 else ""
        labels = f" labels={a.labels}" if a.labels and i == 0 else ""  # the others take the first's
        branches.append(
            f"videotestsrc num-buffers={a.frames} pattern={i % 8} ! video/x-raw,format=NV12,width=640,height=480 "
            f"! cudaupload ! video/x-raw(memory:CUDAMemory) ! dlainfer name=infer{i} model-instance-id={a.id}"
            f"{first}{labels} max-in-flight={a.max_in_flight} ! fakesink sync=false")
    try:
        pipeline = Gst.parse_launch(" ".join(branches))
    except GLib.Error as e:
        print(f"{PROG}: {missing_cudaupload(Gst, e) or 'cannot build the pipeline: ' + e.message}", file=sys.stderr)
        return 1
    pipeline.set_state(Gst.State.PLAYING)
    msg = pipeline.get_bus().timed_pop_filtered(Gst.CLOCK_TIME_NONE, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    rc = 0
    if msg.type == Gst.MessageType.ERROR:
        err, dbg = msg.parse_error()
        print(f"{PROG}: {msg.src.get_name()}: {err.message}", file=sys.stderr)
        rc = 1
    totals = {}
    for i in range(a.streams):
        stats = pipeline.get_by_name(f"infer{i}").get_property("stats")
        cores = stats.get_value("cores") if stats and stats.has_field("cores") else []
        line = []
        for c in cores:
            core, tasks, busy = c.get_int("core")[1], c.get_uint64("tasks")[1], c.get_double("busy-ms")[1]
            t = totals.setdefault(core, [0, 0.0])
            t[0] += tasks
            t[1] += busy
            line.append(f"core {core}: {tasks} tasks, {busy:.1f} ms busy")
        print(f"infer{i}: " + "; ".join(line))
    for core in sorted(totals):
        print(f"total core {core}: {totals[core][0]} tasks, {totals[core][1]:.1f} ms busy")
    pipeline.set_state(Gst.State.NULL)
    return rc


if __name__ == "__main__":
    sys.exit(main())
