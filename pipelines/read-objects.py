#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""read-objects.py: runs a pipeline and prints, per frame reaching its sink, every object on it:
the detector's box, label and confidence (dladetect's GstVideoRegionOfInterestMeta and its
`detection` parameter) and the classifier's result on it (dlainfer inference-region=roi-list),
read with the meta library's typelib (GstDlaInfer-1.0) and GstVideo's. PyGObject only.

    read-objects.py 'filesrc location=faces.png ! pngdec ! videoconvert ! dladetect model=det.loadable !
                     dlainfer inference-region=roi-list model=expr.loadable labels=expr.txt ! fakesink'

One JSON line per frame on stdout (box in frame pixels; "result" null where no classifier ran):
    {"pts":0,"objects":[{"label":"face","confidence":0.8101,"box":[776,445,313,256],
                          "result":{"label":"happy","class_id":1,"confidence":0.9912}}]}
Exit 0 at end of stream, 1 on a pipeline error or a missing typelib, 2 on bad usage.
"""
import json
import sys

PROG = "read-objects.py"


def load_gi():
    """Gst, GLib, GstVideo and GstDlaInfer, or exit 1 naming what is missing."""
    try:
        import gi
        gi.require_version("Gst", "1.0")
        gi.require_version("GstVideo", "1.0")
        from gi.repository import GLib, Gst, GstVideo
    except (ImportError, ValueError) as e:
        print(f"{PROG}: PyGObject with the Gst and GstVideo typelibs is missing ({e}): install python3-gi "
              "gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0", file=sys.stderr)
        sys.exit(1)
    try:
        gi.require_version("GstDlaInfer", "1.0")
        from gi.repository import GstDlaInfer
    except (ImportError, ValueError) as e:
        print(f"{PROG}: the GstDlaInfer-1.0 typelib is missing ({e}): install gst-dlainfer's typelib or point "
              "GI_TYPELIB_PATH at its directory", file=sys.stderr)
        sys.exit(1)
    return Gst, GLib, GstVideo, GstDlaInfer


def object_record(GLib, GstDlaInfer, roi):
    """One object: the detection (box, label, confidence) and the classifier's top result."""
    rec = {"label": GLib.quark_to_string(roi.roi_type), "confidence": None, "box": [roi.x, roi.y, roi.w, roi.h]}
    det = roi.get_param("detection")
    if det is not None:
        ok, confidence = det.get_double("confidence")
        if ok:
            rec["confidence"] = round(confidence, 4)
    ok, class_id, label, confidence, _carried, _age = GstDlaInfer.dla_object_get_result(roi, None)
    rec["result"] = {"label": label, "class_id": class_id, "confidence": round(confidence, 4)} if ok else None
    return rec


def frame_objects(GLib, GstDlaInfer, buf):
    """Every object of a buffer, in the buffer's order (dla_buffer_get_object: PyGObject cannot
    iterate a buffer's metas)."""
    out, i = [], 0
    while (roi := GstDlaInfer.dla_buffer_get_object(buf, i)) is not None:
        out.append(object_record(GLib, GstDlaInfer, roi))
        i += 1
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    Gst, GLib, _GstVideo, GstDlaInfer = load_gi()
    Gst.init(None)
    try:
        pipeline = Gst.parse_launch(" ".join(argv))
    except GLib.Error as e:
        print(f"{PROG}: bad pipeline: {e.message}", file=sys.stderr)
        return 1

    def on_buffer(pad, info):
        buf = info.get_buffer()
        pts = buf.pts if buf.pts != Gst.CLOCK_TIME_NONE else None
        print(json.dumps({"pts": pts, "objects": frame_objects(GLib, GstDlaInfer, buf)}, separators=(",", ":")),
              flush=True)
        return Gst.PadProbeReturn.OK

    it = pipeline.iterate_sinks()
    while True:
        res, sink = it.next()
        if res != Gst.IteratorResult.OK:
            break
        sink.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, on_buffer)
    pipeline.set_state(Gst.State.PLAYING)
    msg = pipeline.get_bus().timed_pop_filtered(Gst.CLOCK_TIME_NONE, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    rc = 0
    if msg.type == Gst.MessageType.ERROR:
        err, debug = msg.parse_error()
        print(f"{PROG}: error from {msg.src.get_name()}: {err.message}\n  ({debug})", file=sys.stderr)
        rc = 1
    pipeline.set_state(Gst.State.NULL)
    return rc


if __name__ == "__main__":
    sys.exit(main())
