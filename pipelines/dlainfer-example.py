#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dlainfer-example.py: the Python twin of dlainfer-example (example-app.cpp). It builds

    SOURCE ! cudaupload ! video/x-raw(memory:CUDAMemory) ! dlainfer ! fakesink

with PyGObject and prints each frame's classification as one JSON line, read in a pad probe through
the meta library's typelib (GstDlaInfer-1.0, from libgstdlainfer-1.0) and, where the running
GStreamer has GstAnalytics (>= 1.24) with its typelib, through GstAnalytics too ("analytics").

    dlainfer-example.py --model M [--labels L] [--source DESC] [--frames N]
                        [--roi-list [--smoothing S] [--reclassify-interval N]]

One line per frame on stdout:
    {"frame":0,"pts":0,"element":"infer","backend":"dla","carried":false,"age":0,
     "results":[{"class_id":2,"label":"red","confidence":0.9981}]}
With --roi-list (a detector and dlatrack in --source) each object's tracking id and result (the
smoothed one with --smoothing) come first, in "objects":
    {"frame":7,"pts":...,"objects":[{"id":3,"box":[120,40,96,96],"label":"happy",
     "confidence":0.9412,"carried":true,"age":2}],"results":null}
Ctrl-C sends end-of-stream: the pipeline drains and the program exits 0 (a second Ctrl-C stops at
once). Errors go to stderr; exit 0 at end of stream, 1 on a pipeline error or a missing plugin or
typelib (the message names GST_PLUGIN_PATH or GI_TYPELIB_PATH), 2 on bad usage.
"""
import argparse
import json
import signal
import sys

PROG = "dlainfer-example.py"


def fail(msg, rc=1):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(rc)


def missing_cudaupload(Gst, err):
    """The line that names a missing cudaupload and its package, when the parse error `err` is
    about it (gst_parse only says: no element "cudaupload"); None otherwise."""
    if not (err.matches(Gst.parse_error_quark(), Gst.ParseError.NO_SUCH_ELEMENT) and '"cudaupload"' in err.message):
        return None
    if Gst.Registry.get().find_plugin("nvcodec"):
        return ("the cudaupload element is missing: the nvcodec plugin (gstreamer1.0-plugins-bad) is installed but "
                "registers it only where a CUDA GPU and the NVIDIA driver are (GST_DEBUG=nvcodec:5 gst-inspect-1.0 "
                "nvcodec says why)")
    return ("the cudaupload element is missing: it is in the nvcodec plugin of gstreamer1.0-plugins-bad (apt-get "
            "install gstreamer1.0-plugins-bad; GStreamer 1.24 on a Jetson: build gst-plugins-bad with "
            "-Dnvcodec=enabled)")


def load_gi():
    """Gst, GLib, GstDlaInfer and GstAnalytics (None where absent), or exit 1 saying what is missing."""
    try:
        import gi
    except ImportError:
        fail("PyGObject (the 'gi' module) is missing: install python3-gi, or run Debian's /usr/bin/python3")
    try:
        gi.require_version("Gst", "1.0")
        from gi.repository import GLib, Gst
    except (ValueError, ImportError) as e:
        fail(f"the GStreamer typelib Gst-1.0 is missing ({e}): install gir1.2-gstreamer-1.0")
    try:
        gi.require_version("GstDlaInfer", "1.0")
        from gi.repository import GstDlaInfer
    except (ValueError, ImportError) as e:
        fail(f"the dlainfer meta typelib GstDlaInfer-1.0 is missing ({e}): set GI_TYPELIB_PATH to the "
             "directory of GstDlaInfer-1.0.typelib (<prefix>/lib/<arch>/girepository-1.0 once installed, "
             "build/gst/meta in a build tree) and LD_LIBRARY_PATH to that of libgstdlainfer-1.0.so")
    analytics = None
    try:
        gi.require_version("GstAnalytics", "1.0")
        from gi.repository import GstAnalytics as analytics
    except (ValueError, ImportError):
        pass  # GStreamer < 1.24, or no gir1.2-gst-plugins-bad-1.0: the typelib alone gives the results
    return Gst, GLib, GstDlaInfer, analytics


def analytics_results(analytics, buf):
    """The buffer's GstAnalytics classifications as [{"label", "confidence"}], or None."""
    if analytics is None:
        return None
    try:
        rmeta = analytics.buffer_get_analytics_relation_meta(buf)
        if rmeta is None:
            return None
        out = []
        mtd_id = 0
        # Ids are dense from 0; get_mtd(id, 0) (any type) is False past the last. get_length() is
        # not in the typelib.
        while rmeta.get_mtd(mtd_id, 0)[0]:
            ok, cls = rmeta.get_cls_mtd(mtd_id)
            mtd_id += 1
            if not ok:
                continue
            for i in range(cls.get_length()):
                out.append({"label": analytics_quark_string(cls.get_quark(i)),
                            "confidence": round(cls.get_level(i), 4)})
        return out
    except (AttributeError, TypeError):
        return None  # a GstAnalytics without these bindings


def analytics_quark_string(q):
    from gi.repository import GLib
    return GLib.quark_to_string(q)


def object_records(GstDlaInfer, buf):
    """The buffer's objects (dlainfer inference-region=roi-list) as [{"id", "box", "label",
    "confidence", "carried", "age"}]: "id" is the tracking id (dlatrack's; None while a track is
    tentative), the result is the smoothed one when dlainfer's smoothing is on. None: no objects."""
    out = []
    i = 0
    while True:
        roi = GstDlaInfer.dla_buffer_get_object(buf, i)
        if roi is None:
            break
        i += 1
        has_id, track = GstDlaInfer.dla_object_get_tracking_id(roi)
        rec = {"id": track if has_id else None, "box": [roi.x, roi.y, roi.w, roi.h]}
        ok, class_id, label, confidence, carried, age = GstDlaInfer.dla_object_get_result(roi, None)
        if ok:
            rec.update(label=label, confidence=round(confidence, 4), carried=bool(carried), age=age)
        out.append(rec)
    return out or None


def frame_record(GstDlaInfer, Gst, buf, frame, analytics=None):
    """One frame's record, as dlainfer-example (C++) prints it: the keys in the same order."""
    rec = {"frame": frame, "pts": buf.pts if buf.pts != Gst.CLOCK_TIME_NONE else None}
    objects = object_records(GstDlaInfer, buf)
    if objects is not None:
        rec["objects"] = objects
    meta = GstDlaInfer.buffer_get_dla_classification_meta(buf)
    if meta is None:
        rec["results"] = None
        return rec
    rec["element"] = meta.get_element_name()
    rec["backend"] = meta.get_backend()
    rec["carried"] = bool(meta.get_carried())
    rec["age"] = meta.get_age()
    results = []
    for i in range(meta.get_n_results()):
        ok, class_id, label, confidence = meta.get_result(i)
        if ok:
            results.append({"class_id": class_id, "label": label, "confidence": round(confidence, 4)})
    rec["results"] = results
    extra = analytics_results(analytics, buf)
    if extra is not None:
        rec["analytics"] = extra
    return rec


def frame_json(GstDlaInfer, Gst, buf, frame, analytics=None):
    return json.dumps(frame_record(GstDlaInfer, Gst, buf, frame, analytics), separators=(",", ":"))


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description="print dlainfer results as JSON lines")
    ap.add_argument("-m", "--model", required=True, help="cuDLA loadable (required)")
    ap.add_argument("-l", "--labels", help="labels file, one per line")
    ap.add_argument("-s", "--source", help="gst-launch fragment producing raw video")
    ap.add_argument("-n", "--frames", type=int, default=100, help="frames of the default source (100)")
    ap.add_argument("--roi-list", action="store_true",
                    help="classify the objects a detector (and tracker) in --source found, not the frame")
    ap.add_argument("--smoothing", type=float, help="roi-list: dlainfer's smoothing of each track's scores")
    ap.add_argument("--reclassify-interval", type=int, help="roi-list: frames a track carries its result")
    args = ap.parse_args(argv)  # bad usage: exit 2

    Gst, GLib, GstDlaInfer, analytics = load_gi()
    Gst.init(None)
    if Gst.ElementFactory.find("dlainfer") is None:
        fail("the dlainfer element is missing: set GST_PLUGIN_PATH to the directory of libgstdlainfer.so "
             "(build/gst in a build tree, <prefix>/lib/<arch>/gstreamer-1.0 once installed); "
             "gst-inspect-1.0 dlainfer says why it does not load")

    source = args.source or (f"videotestsrc num-buffers={args.frames} ! "
                             "video/x-raw,format=NV12,width=1280,height=720")
    desc = source + " ! cudaupload name=upload"
    try:
        src = Gst.parse_bin_from_description(desc, True)
    except GLib.Error as e:
        missing = missing_cudaupload(Gst, e)
        if missing or not args.source:
            fail(missing or e.message)
        fail(f'bad --source: "{desc}": {e.message}', 2)

    pipeline = Gst.Pipeline.new("example")
    elements = []
    for factory, name in (("capsfilter", "cuda-caps"), ("dlainfer", "infer"), ("fakesink", "sink")):
        e = Gst.ElementFactory.make(factory, name)
        if e is None:
            fail(f"element {factory} is missing")
        elements.append(e)
    caps_filter, infer, sink = elements
    caps_filter.set_property("caps", Gst.Caps.from_string("video/x-raw(memory:CUDAMemory)"))
    infer.set_property("model", args.model)
    if args.labels:
        infer.set_property("labels", args.labels)
    if args.roi_list:
        infer.set_property("inference-region", "roi-list")
    if args.smoothing is not None:
        infer.set_property("smoothing", args.smoothing)
    if args.reclassify_interval is not None:
        infer.set_property("reclassify-interval", args.reclassify_interval)
    for e in (src, caps_filter, infer, sink):
        pipeline.add(e)
    if not (src.link(caps_filter) and caps_filter.link(infer) and infer.link(sink)):
        fail("could not link the pipeline")

    counter = [0]

    def on_buffer(pad, info):
        print(frame_json(GstDlaInfer, Gst, info.get_buffer(), counter[0], analytics), flush=True)
        counter[0] += 1
        return Gst.PadProbeReturn.OK

    infer.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, on_buffer)

    loop = GLib.MainLoop()
    rc = [0]

    def on_message(bus, msg):
        if msg.type == Gst.MessageType.EOS:
            loop.quit()
        elif msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            print(f"{PROG}: error from {msg.src.get_name()}: {err.message}\n{dbg or ''}", file=sys.stderr)
            rc[0] = 1
            loop.quit()

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)

    interrupted = [False]

    def on_sigint():
        if interrupted[0]:  # the second Ctrl-C: stop without draining
            loop.quit()
            return GLib.SOURCE_REMOVE
        interrupted[0] = True
        print(f"{PROG}: interrupted, sending end-of-stream (Ctrl-C again to stop at once)", file=sys.stderr)
        pipeline.send_event(Gst.Event.new_eos())
        return GLib.SOURCE_CONTINUE

    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGINT, on_sigint)

    if pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        rc[0] = 1
        print(f"{PROG}: the pipeline does not start (see the error above)", file=sys.stderr)
        # The error message is on the bus: print it.
        msg = bus.pop_filtered(Gst.MessageType.ERROR)
        if msg:
            on_message(bus, msg)
    else:
        loop.run()
    bus.remove_signal_watch()
    pipeline.set_state(Gst.State.NULL)
    return rc[0]


if __name__ == "__main__":
    sys.exit(main())
