#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""unit: dlainfer from Python (Debian's /usr/bin/python3: PyGObject), with and without gst-python
(CI's GStreamer 1.24.2 build has none; here its overrides are hidden from a child): mean/std set
and read back through mean-string/std-string and Gst.util_set_object_arg, a wrong value said on
stderr when set and quoted in the error at start; and pipelines/read-results.py, which prints a
pipeline's error and exits 1."""
import importlib.abc
import importlib.machinery
import os
import subprocess
import sys

PIPELINES = os.environ.get("DLAINFER_PIPELINES_DIR", "pipelines")
NO_GST_PYTHON = "--no-gst-python"


class HideGstPython(importlib.abc.MetaPathFinder):
    """PyGObject then loads Gst without gst-python's overrides, as where python3-gst-1.0 is absent."""

    def find_spec(self, name, path, target=None):
        if name in ("gi.overrides.Gst", "gi.overrides._gi_gst"):
            return importlib.machinery.ModuleSpec(name, None)
        return None


def gst_python_installed():
    """Whether gst-python's overrides are there (Debian's python3-gst-1.0; not in every build)."""
    import importlib.util
    try:
        return importlib.util.find_spec("gi.overrides.Gst") is not None
    except (ImportError, ValueError):
        return False


def child(hidden):
    """The checks, in this process; prints FAIL lines, exit 1 on any."""
    if hidden:
        sys.meta_path.insert(0, HideGstPython())
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    Gst.init(None)
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    e = Gst.ElementFactory.make("dlainfer", "infer")
    if e is None:
        print("FAIL: dlainfer is not registered (GST_PLUGIN_PATH_1_0)")
        return 1
    if hidden:
        try:
            e.get_property("mean")
            check(False, "gst-python is not hidden: get_property('mean') works")
        except TypeError:
            pass
    check(e.get_property("mean-string") == "<0, 0, 0>", "default mean-string: " + e.get_property("mean-string"))
    e.set_property("mean-string", "0.485, 0.456, 0.406")
    check(e.get_property("mean-string") == "0.485, 0.456, 0.406", "mean-string reads back as set")
    Gst.util_set_object_arg(e, "std", "<0.229,0.224,0.225>")
    check(e.get_property("std-string") == "<0.229, 0.224, 0.225>", "std set as an array reads back as text: "
          + e.get_property("std-string"))
    if not hidden and gst_python_installed():
        got = [round(x, 3) for x in e.get_property("mean")]
        check(got == [0.485, 0.456, 0.406], f"gst-python reads mean-string's values through mean: {got}")
    e.set_property("mean-string", None)
    check(e.get_property("mean-string") == "<0, 0, 0>", "mean-string None: the default again")
    sys.stdout.flush()
    e.set_property("mean-string", "0.1,0.2")  # a g_warning on stderr (the parent checks it)
    Gst.util_set_object_arg(e, "std", "<1,abc,1>")  # likewise
    check(e.get_property("std-string") == "<1, abc, 1>", "std with an item not a number reads back as given: "
          + e.get_property("std-string"))

    # At start: the error names the property and quotes the value as given.
    p = Gst.parse_launch("videotestsrc num-buffers=1 ! dlainfer name=infer model=/nonexistent.bin ! fakesink")
    Gst.util_set_object_arg(p.get_by_name("infer"), "mean", "<abc,1,2>")
    p.set_state(Gst.State.PLAYING)
    msg = p.get_bus().timed_pop_filtered(10 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
    p.set_state(Gst.State.NULL)
    err = msg.parse_error()[0].message if msg and msg.type == Gst.MessageType.ERROR else "<no error>"
    check("Property 'mean' is <abc, 1, 2> (3 values): it takes 3 numbers" in err, "start error: " + err)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


def run(args):
    r = subprocess.run([sys.executable] + args, capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def parent():
    failures = []
    for hidden in (False, True):
        mode = "without gst-python" if hidden else "as installed"
        rc, out, err = run([__file__, "--child"] + ([NO_GST_PYTHON] if hidden else []))
        if rc != 0:
            failures.append(f"{mode}: rc {rc}\n{out}{err}")
        for needle in ("Property 'mean-string' is \"0.1,0.2\" (2 values): it takes 3 numbers",
                       "e.g. mean-string=\"<0.485, 0.456, 0.406>\"", "Property 'std' is <1, abc, 1>"):
            if needle not in err:
                failures.append(f"{mode}: no warning on stderr with: {needle}\n{err}")

    # read-results.py prints the pipeline's error and exits 1 (the model file is missing).
    reader = os.path.join(PIPELINES, "read-results.py")
    rc, out, err = run([reader, "videotestsrc num-buffers=3 ! dlainfer name=infer model=/nonexistent/m.loadable "
                        "post-messages=true ! fakesink"])
    if rc != 1 or "read-results.py: error from infer: " not in err or "/nonexistent/m.loadable" not in err:
        failures.append(f"read-results.py on a missing model: rc {rc}\n{out}{err}")
    rc, out, err = run([reader, "videotestsrc num-buffers=3 ! nosuchelement ! fakesink"])
    if rc != 1 or "bad pipeline" not in err or "Traceback" in err:
        failures.append(f"read-results.py on a bad pipeline: rc {rc}\n{out}{err}")
    for f in failures:
        print("FAIL:", f)
    print(f"{'FAIL' if failures else 'OK'}: dlainfer from Python")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(child(NO_GST_PYTHON in sys.argv) if "--child" in sys.argv else parent())
