#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""read-results.py: runs a pipeline with dlainfer post-messages=true and prints each frame's result
from its dlainfer-result bus messages; a pipeline error is printed (to stderr) and the exit status
is 1. Needs PyGObject only (no typelib of ours, no gst-python).

    read-results.py 'videotestsrc num-buffers=30 ! cudaupload ! dlainfer model=m.loadable labels=l.txt post-messages=true ! fakesink'

One line per inference on stdout: the element, the frame's timestamp (seconds) and its results,
best first:
    infer 0.000: red 0.998, green 0.001
"""
import sys
import warnings

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

warnings.filterwarnings("ignore", category=DeprecationWarning)  # GObject.ValueArray.get_nth


def items(structure, field):
    """A GstValueArray field as a list (Structure.get_array: no gst-python needed)."""
    ok, array = structure.get_array(field)
    return [array.get_nth(i) for i in range(array.n_values)] if ok else []


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    Gst.init(None)
    try:
        pipeline = Gst.parse_launch(" ".join(sys.argv[1:]))
    except GLib.Error as e:
        print(f"read-results.py: bad pipeline: {e.message}", file=sys.stderr)
        return 1
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    rc = 0
    while True:
        msg = bus.timed_pop_filtered(Gst.CLOCK_TIME_NONE,
                                     Gst.MessageType.ELEMENT | Gst.MessageType.EOS | Gst.MessageType.ERROR)
        if msg.type == Gst.MessageType.ERROR:
            err, debug = msg.parse_error()
            print(f"read-results.py: error from {msg.src.get_name()}: {err.message}\n  ({debug})", file=sys.stderr)
            rc = 1
            break
        if msg.type == Gst.MessageType.EOS:
            break
        s = msg.get_structure()
        if s is None or s.get_name() != "dlainfer-result":
            continue
        ok, ts = s.get_uint64("timestamp")
        when = f"{ts / Gst.SECOND:.3f}" if ok and ts != Gst.CLOCK_TIME_NONE else "-"
        results = ", ".join(f"{label} {confidence:.3f}"
                            for label, confidence in zip(items(s, "labels"), items(s, "confidences")))
        print(f"{msg.src.get_name()} {when}: {results}", flush=True)
    pipeline.set_state(Gst.State.NULL)
    return rc


if __name__ == "__main__":
    sys.exit(main())
