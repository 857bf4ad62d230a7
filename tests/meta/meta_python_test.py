#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The meta library from Python (GstDlaInfer-1.0 typelib) and pipelines/dlainfer-example.py.

  attach   appsrc ! identity ! appsink, playing: each buffer gets its meta through the typelib
           (buffer_add_dla_classification_meta_full) before the push; a pad probe on identity's src
           reads them in flight, and every field is read back at the appsink through the typelib
           and through the example's own JSON formatting.
  tensors  GstDlaTensorMeta (raw outputs on GStreamer < 1.26): a tensor added and read back.
  read-objects  pipelines/read-objects.py: a cascade's detections (box, label, confidence) and
           each object's classifier result, read through the typelibs; its exit paths.
  objects  an object's result (roi-list) read from its ROI meta's parameter structure through
           dla_object_get_result, by attribute name and as the first dlainfer result.
  messages the example's messages for a missing dlainfer plugin (naming GST_PLUGIN_PATH) and a
           missing typelib (naming GI_TYPELIB_PATH), and its usage error.

Exit 0 pass, 1 fail, 77 skip (no PyGObject or no typelib outside CI; with CI set, those fail).
"""
import importlib.util
import json
import os
import struct
import subprocess
import sys
import tempfile

EXAMPLE = os.path.join(os.environ["DLAINFER_SOURCE_ROOT"], "pipelines", "dlainfer-example.py")
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def unavailable(why):
    if os.environ.get("CI"):
        print(f"FAIL (CI): {why}")
        sys.exit(1)
    print(f"SKIP: {why}")
    sys.exit(77)


try:
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstApp", "1.0")
    from gi.repository import GLib, Gst, GstApp  # noqa: F401
except (ImportError, ValueError) as e:
    unavailable(f"{sys.executable} has no PyGObject with Gst/GstApp typelibs ({e}): "
                "apt install python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0")
try:
    gi.require_version("GstDlaInfer", "1.0")
    from gi.repository import GstDlaInfer
except (ImportError, ValueError) as e:
    unavailable(f"no GstDlaInfer-1.0 typelib ({e}; GI_TYPELIB_PATH={os.environ.get('GI_TYPELIB_PATH')}): "
                "configure with -Dintrospection=enabled (needs gobject-introspection, libgirepository1.0-dev)")

Gst.init(None)
spec = importlib.util.spec_from_file_location("dlainfer_example", EXAMPLE)
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)
analytics = example.load_gi()[3]  # GstAnalytics, or None (GStreamer < 1.24 or no typelib)
print(f"GStreamer {Gst.version_string()}, GstAnalytics from Python: {analytics is not None}")

# Per frame: (results [(class_id, label, confidence)], element, backend, core, carried, age); None: no meta.
FRAMES = [
    ([(2, "red", 0.75), (0, "blue", 0.25)], "infer", "swdla", 0, False, 0),
    ([(2, "red", 0.75), (0, "blue", 0.25)], "infer", "swdla", 0, True, 1),
    ([], "infer", "dla", 1, False, 0),
    None,
    ([(7, "class_7", 1.0)], "second", "dla", -1, True, 5),
]
q = GLib.quark_from_string


def test_attach():
    pipeline = Gst.parse_launch("appsrc name=src format=time caps=video/x-raw,format=GRAY8,width=4,height=4,"
                                "framerate=30/1 ! identity name=id ! appsink name=sink sync=false")
    src, sink = pipeline.get_by_name("src"), pipeline.get_by_name("sink")
    added = []

    def add_meta(buf, spec):
        results = []
        for class_id, label, conf in spec[0]:
            r = GstDlaInfer.DlaClassification()
            r.class_id, r.label, r.confidence = class_id, q(label), conf
            results.append(r)
        _, element, backend, core, carried, age = spec
        meta = GstDlaInfer.buffer_add_dla_classification_meta_full(buf, results, q(element), q(backend),
                                                                   core, carried, age)
        added.append(meta is not None)

    # The metas are added before the push, while the buffer is writable: PyGObject holds its own
    # reference to a buffer a pad probe sees, so that one is never writable from Python (its
    # metas read fine: identity's probe below reads them in flight).
    seen = []

    def read_in_probe(pad, info):
        m = GstDlaInfer.buffer_get_dla_classification_meta(info.get_buffer())
        seen.append(None if m is None else m.get_n_results())
        return Gst.PadProbeReturn.OK

    pipeline.get_by_name("id").get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, read_in_probe)
    pipeline.set_state(Gst.State.PLAYING)
    for n, spec in enumerate(FRAMES):
        buf = Gst.Buffer.new_wrapped(bytes(16))
        buf.pts, buf.duration, buf.offset = n * Gst.SECOND // 30, Gst.SECOND // 30, n
        if spec is not None:
            add_meta(buf, spec)
        if n == 0 and analytics is not None:  # GStreamer >= 1.24: the example's GstAnalytics path too
            rmeta = analytics.buffer_add_analytics_relation_meta(buf)
            ok, _ = rmeta.add_cls_mtd([0.75, 0.25], [q("red"), q("blue")])
            check(ok, "GstAnalytics: a classification added from Python")
        src.emit("push-buffer", buf)
    src.emit("end-of-stream")
    for n, spec in enumerate(FRAMES):
        sample = sink.emit("pull-sample")
        check(sample is not None, f"frame {n}: a sample at the appsink")
        if sample is None:
            break
        buf = sample.get_buffer()
        meta = GstDlaInfer.buffer_get_dla_classification_meta(buf)
        rec = json.loads(example.frame_json(GstDlaInfer, Gst, buf, n, analytics))
        if n == 0 and analytics is not None:
            check(rec.pop("analytics", None) == [{"label": "red", "confidence": 0.75},
                                                  {"label": "blue", "confidence": 0.25}],
                  "frame 0: the example reads GstAnalytics' classification")
        check(rec["frame"] == n and rec["pts"] == n * Gst.SECOND // 30, f"frame {n}: example's frame and pts")
        if spec is None:
            check(meta is None, f"frame {n}: no meta")
            check(rec["results"] is None and "element" not in rec, f"frame {n}: example prints results null")
            continue
        results, element, backend, core, carried, age = spec
        check(meta is not None, f"frame {n}: buffer_get_dla_classification_meta finds the meta")
        if meta is None:
            continue
        check(meta.get_n_results() == len(results), f"frame {n}: get_n_results {meta.get_n_results()}")
        for i, (class_id, label, conf) in enumerate(results):
            ok, cid, lab, c = meta.get_result(i)
            check(ok and cid == class_id and lab == label and abs(c - conf) < 1e-6,
                  f"frame {n}: get_result({i}) = {(ok, cid, lab, c)}")
            check(meta.get_label(i) == label, f"frame {n}: get_label({i})")
        ok, *_ = meta.get_result(len(results))
        check(not ok and meta.get_label(len(results)) is None, f"frame {n}: past the last result: False/None")
        check(meta.get_element_name() == element, f"frame {n}: get_element_name {meta.get_element_name()}")
        check(meta.get_backend() == backend, f"frame {n}: get_backend {meta.get_backend()}")
        check(meta.get_dla_core() == core, f"frame {n}: get_dla_core {meta.get_dla_core()}")
        check(meta.get_carried() == carried, f"frame {n}: get_carried {meta.get_carried()}")
        check(meta.get_age() == age, f"frame {n}: get_age {meta.get_age()}")
        check(GstDlaInfer.buffer_get_dla_classification_meta_for_element(buf, element) is not None and
              GstDlaInfer.buffer_get_dla_classification_meta_for_element(buf, "nobody") is None,
              f"frame {n}: buffer_get_dla_classification_meta_for_element")
        want = {"frame": n, "pts": n * Gst.SECOND // 30, "element": element, "backend": backend,
                "carried": carried, "age": age,
                "results": [{"class_id": c, "label": l, "confidence": round(v, 4)} for c, l, v in results]}
        check(rec == want, f"frame {n}: example's JSON line {rec}")
    check(added == [True] * sum(f is not None for f in FRAMES), f"add returned a meta each time: {added}")
    check(seen == [None if f is None else len(f[0]) for f in FRAMES], f"identity's probe read the metas: {seen}")
    msg = pipeline.get_bus().timed_pop_filtered(5 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    check(msg is not None and msg.type == Gst.MessageType.EOS, "the pipeline reaches EOS")
    pipeline.set_state(Gst.State.NULL)
    check(GstDlaInfer.dla_classification_meta_api_get_type() != 0, "dla_classification_meta_api_get_type")


def test_tensors():
    """GstDlaTensorMeta (raw outputs on GStreamer < 1.26) added and read through the typelib."""
    buf = Gst.Buffer.new_wrapped(bytes(16))
    meta = GstDlaInfer.buffer_add_dla_tensor_meta(buf, q("infer"))
    check(meta is not None, "tensors: buffer_add_dla_tensor_meta")
    data = Gst.Buffer.new_wrapped(struct.pack("<3f", 0.5, -1.0, 2.0))
    ok = meta.add_tensor(q("classification-generic-out"), GstDlaInfer.DlaTensorDataType.FLOAT32,
                         GstDlaInfer.DlaTensorDimOrder.ROW_MAJOR, [1, 3], data)
    check(ok, "tensors: add_tensor [1, 3] FLOAT32")
    bad = meta.add_tensor(q("x"), GstDlaInfer.DlaTensorDataType.FLOAT16,
                          GstDlaInfer.DlaTensorDimOrder.ROW_MAJOR, [1, 3], Gst.Buffer.new_wrapped(bytes(4)))
    check(not bad, "tensors: add_tensor refuses data of the wrong size")
    m = GstDlaInfer.buffer_get_dla_tensor_meta(buf)
    check(m is not None and m.get_n_tensors() == 1, "tensors: one tensor read back")
    i = m.get_index_from_id("classification-generic-out")
    check(i == 0 and m.get_id(0) == "classification-generic-out", f"tensors: index {i}, id {m.get_id(0)}")
    check(list(m.get_dims(0)) == [1, 3], f"tensors: dims {m.get_dims(0)}")
    check(m.get_data_type(0) == GstDlaInfer.DlaTensorDataType.FLOAT32 and
          m.get_dims_order(0) == GstDlaInfer.DlaTensorDimOrder.ROW_MAJOR, "tensors: type and order")
    ok, info = m.get_data(0).map(Gst.MapFlags.READ)
    values = struct.unpack("<3f", bytes(info.data)) if ok else None
    if ok:
        m.get_data(0).unmap(info)
    check(values == (0.5, -1.0, 2.0), f"tensors: data {values}")


def test_objects():
    """dla_object_get_result: the parameter structure roi-list writes, read through the typelib."""
    gi.require_version("GstVideo", "1.0")
    from gi.repository import GstVideo
    buf = Gst.Buffer.new()
    roi = GstVideo.buffer_add_video_region_of_interest_meta(buf, "car", 1, 2, 30, 40)
    roi.add_param(Gst.Structure.new_from_string("detection, label=(string)car"))
    check(not GstDlaInfer.dla_object_get_result(roi, None)[0], "objects: another element's parameter is no result")
    roi.add_param(Gst.Structure.new_from_string(
        "colour, label=(string)red, label_id=(int)2, confidence=(double)0.5, carried=(boolean)true, "
        "age=(uint)3, backend=(string)swdla"))
    got = tuple(GstDlaInfer.dla_object_get_result(roi, None))
    check(got == (True, 2, "red", 0.5, True, 3), f"objects: first result {got}")
    check(GstDlaInfer.dla_object_get_result(roi, "colour")[0], "objects: by attribute name")
    check(not GstDlaInfer.dla_object_get_result(roi, "other")[0], "objects: another attribute name")


def test_tracked_objects():
    """A buffer's ROI metas reached by index, a tracking id (dlatrack's and gvatrack's object_id)
    and the (smoothed) result on each, through the typelib."""
    gi.require_version("GstVideo", "1.0")
    from gi.repository import GstVideo
    buf = Gst.Buffer.new()
    GstVideo.buffer_add_video_region_of_interest_meta(buf, "face", 1, 2, 30, 40)
    roi = GstVideo.buffer_add_video_region_of_interest_meta(buf, "face", 50, 60, 30, 40)
    roi.add_param(Gst.Structure.new_from_string("object_id, id=(int)42"))
    roi.add_param(Gst.Structure.new_from_string(
        "expression, label=(string)happy, label_id=(int)3, confidence=(double)0.625, carried=(boolean)false, "
        "age=(uint)0, backend=(string)swdla"))
    first = GstDlaInfer.dla_buffer_get_object(buf, 0)
    second = GstDlaInfer.dla_buffer_get_object(buf, 1)
    check(first is not None and first.x == 1, "tracked: the first ROI meta by index")
    check(second is not None and second.x == 50, "tracked: the second ROI meta by index")
    check(GstDlaInfer.dla_buffer_get_object(buf, 2) is None, "tracked: None past the last")
    check(tuple(GstDlaInfer.dla_object_get_tracking_id(first)) == (False, 0), "tracked: no id on the first")
    got = tuple(GstDlaInfer.dla_object_get_tracking_id(second))
    check(got == (True, 42), f"tracked: tracking id {got}")
    got = tuple(GstDlaInfer.dla_object_get_result(second, "expression"))
    check(got == (True, 3, "happy", 0.625, False, 0), f"tracked: result {got}")
    # The example prints both: no id and no result on the first, id and result on the second.
    rec = json.loads(example.frame_json(GstDlaInfer, Gst, buf, 7))
    want = [{"id": None, "box": [1, 2, 30, 40]},
            {"id": 42, "box": [50, 60, 30, 40], "label": "happy", "confidence": 0.625, "carried": False, "age": 0}]
    check(rec.get("objects") == want, f"tracked: the example's objects {rec.get('objects')}")
    check(rec["results"] is None, "tracked: no frame classification on the buffer")


READ_OBJECTS = os.path.join(os.environ["DLAINFER_SOURCE_ROOT"], "pipelines", "read-objects.py")


def test_read_objects():
    """pipelines/read-objects.py: a cascade's objects as dladetect and dlainfer roi-list write them
    (the detection parameter, then the classifier's), read back through the typelibs; the program
    on a pipeline without objects (one line per frame) and on a bad one (exit 1)."""
    gi.require_version("GstVideo", "1.0")
    from gi.repository import GstVideo
    spec = importlib.util.spec_from_file_location("read_objects", READ_OBJECTS)
    reader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reader)
    buf = Gst.Buffer.new()
    roi = GstVideo.buffer_add_video_region_of_interest_meta(buf, "face", 776, 445, 313, 256)
    roi.add_param(Gst.Structure.new_from_string(
        "detection, label=(string)face, label_id=(int)0, confidence=(double)0.81015, x_min=(double)0.4, "
        "y_min=(double)0.23, x_max=(double)0.57, y_max=(double)0.37"))
    roi.add_param(Gst.Structure.new_from_string(
        "expressions, label=(string)happy, label_id=(int)1, confidence=(double)0.99123, carried=(boolean)false, "
        "age=(uint)0, backend=(string)swdla"))
    GstVideo.buffer_add_video_region_of_interest_meta(buf, "face", 10, 20, 30, 40)
    got = reader.frame_objects(GLib, GstDlaInfer, buf)
    want = [{"label": "face", "confidence": 0.8102, "box": [776, 445, 313, 256],
             "result": {"label": "happy", "class_id": 1, "confidence": 0.9912}},
            {"label": "face", "confidence": None, "box": [10, 20, 30, 40], "result": None}]
    check(got == want, f"read-objects: the objects read back {got}")
    r = subprocess.run([sys.executable, READ_OBJECTS, "videotestsrc num-buffers=3 ! fakesink"],
                       capture_output=True, text=True, timeout=60)
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    check(r.returncode == 0 and [x["objects"] for x in lines] == [[], [], []],
          f"read-objects: three frames without objects (rc {r.returncode}, {r.stdout!r} {r.stderr[-300:]!r})")
    r = subprocess.run([sys.executable, READ_OBJECTS, "nosuchelement ! fakesink"], capture_output=True, text=True,
                       timeout=60)
    check(r.returncode == 1 and "bad pipeline" in r.stderr, f"read-objects: a bad pipeline (rc {r.returncode}, "
          f"{r.stderr.strip()!r})")


def run_example(env_changes, *args):
    env = dict(os.environ)
    for k, v in env_changes.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return subprocess.run([sys.executable, EXAMPLE] + list(args), env=env, capture_output=True, text=True,
                          timeout=60)


def test_messages():
    with tempfile.TemporaryDirectory() as empty:
        # No typelib: GI_TYPELIB_PATH without ours (the test's points at the build tree).
        # (Only our directory leaves the path: under .ci/gst-1.24.2-env.sh Gst-1.0 comes from it too.)
        others = [d for d in os.environ.get("GI_TYPELIB_PATH", "").split(os.pathsep)
                  if d and not os.path.exists(os.path.join(d, "GstDlaInfer-1.0.typelib"))]
        typelib_path = os.pathsep.join(others + [empty])
        r = run_example({"GI_TYPELIB_PATH": typelib_path}, "--model", "m.loadable")
        probe = subprocess.run([sys.executable, "-c", "import gi; gi.require_version('GstDlaInfer', '1.0')"],
                               env=dict(os.environ, GI_TYPELIB_PATH=typelib_path), capture_output=True)
        if probe.returncode == 0:
            print("note: a GstDlaInfer typelib is installed system-wide: the missing-typelib message is not checked")
        else:
            check(r.returncode == 1 and "GI_TYPELIB_PATH" in r.stderr and "GstDlaInfer" in r.stderr
                  and not r.stdout, f"missing typelib: rc {r.returncode}, stderr {r.stderr.strip()!r}")
        # No plugin: our plugin directory off the path (system plugins stay), a fresh registry.
        r = run_example({"GST_PLUGIN_PATH_1_0": empty, "GST_PLUGIN_PATH": None,
                         "GST_REGISTRY": os.path.join(empty, "registry.bin"),
                         "GST_REGISTRY_1_0": os.path.join(empty, "registry.bin")}, "--model", "m.loadable")
        if "GST_PLUGIN_PATH" not in r.stderr and r.returncode != 1:
            print(f"note: dlainfer loads from the system plugins: the missing-plugin message is not checked ({r.stderr!r})")
        else:
            check(r.returncode == 1 and "dlainfer element is missing" in r.stderr and "GST_PLUGIN_PATH" in r.stderr
                  and not r.stdout, f"missing plugin: rc {r.returncode}, stderr {r.stderr.strip()!r}")
    r = run_example({})
    check(r.returncode == 2 and "--model" in r.stderr, f"no --model: rc {r.returncode}, usage on stderr")


test_attach()
test_tensors()
test_objects()
test_tracked_objects()
test_read_objects()
test_messages()
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
