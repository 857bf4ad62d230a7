#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""unit: the Python scripts of pipelines/ on bad input: write-modelinfo.py (a missing loadable, the
default mean/std said) and multi-stream.py without cudaupload (one line, no traceback). Run with
Debian's /usr/bin/python3 (PyGObject)."""
import os
import subprocess
import sys
import tempfile

PIPELINES = os.environ.get("DLAINFER_PIPELINES_DIR", "pipelines")
failures = []


def check(cond, what, out=""):
    if not cond:
        failures.append(f"{what}\n{out}")


def run(args, env=None):
    r = subprocess.run([sys.executable] + args, capture_output=True, text=True, env=env, timeout=60)
    return r.returncode, r.stdout + r.stderr


with tempfile.TemporaryDirectory() as tmp:
    inspect = os.path.join(tmp, "inspect.txt")
    with open(inspect, "w") as f:
        f.write("input 0: 'image' fp16 chw16 1x16x224x224 (row)\noutput 0: 'logits' fp16 chw16 1x10x1x1 (row)\n")
    writer = os.path.join(PIPELINES, "write-modelinfo.py")
    missing = os.path.join(tmp, "missing.loadable")
    rc, out = run([writer, missing, "--inspect-output", inspect])
    check(rc == 1 and f"no such loadable: {missing}" in out, "write-modelinfo: a missing loadable is refused", out)
    check(not os.path.exists(missing + ".modelinfo"), "write-modelinfo wrote a file for a missing loadable")
    loadable = os.path.join(tmp, "m.loadable")
    open(loadable, "w").close()
    rc, out = run([writer, loadable, "--inspect-output", inspect, "--std", "0.5", "0.5", "0.5"])
    check(rc == 0 and "wrote the default mean 0 0 0 (no --mean given)" in out and "std 1" not in out,
          "write-modelinfo says which defaults it wrote", out)
    rc, out = run([writer, loadable, "--inspect-output", inspect, "--force", "--mean", "0", "0", "0",
                   "--std", "1", "1", "1"])
    check(rc == 0 and "default" not in out, "write-modelinfo: no note when both are given", out)

    # multi-stream.py with our plugin, videotestsrc and the core elements only: no cudaupload.
    plugins = os.path.join(tmp, "plugins")
    os.mkdir(plugins)
    system = subprocess.run(["pkg-config", "--variable=pluginsdir", "gstreamer-1.0"], capture_output=True,
                            text=True).stdout.strip() or "/usr/lib/x86_64-linux-gnu/gstreamer-1.0"
    for name in ("libgstvideotestsrc.so", "libgstcoreelements.so"):
        os.symlink(os.path.join(system, name), os.path.join(plugins, name))
    env = dict(os.environ, GST_PLUGIN_SYSTEM_PATH_1_0=plugins, GST_REGISTRY=os.path.join(tmp, "registry.bin"))
    rc, out = run([os.path.join(PIPELINES, "multi-stream.py"), "--model", "m.loadable", "--streams", "1"], env)
    check(rc == 1, "multi-stream.py without cudaupload exits 1", out)
    check("Traceback" not in out, "multi-stream.py without cudaupload: no traceback", out)
    check("multi-stream.py: the cudaupload element is missing: " in out and "gstreamer1.0-plugins-bad" in out,
          "multi-stream.py names cudaupload and its package", out)

for f in failures:
    print("FAIL:", f)
print(f"{'FAIL' if failures else 'OK'}: python scripts")
sys.exit(1 if failures else 0)
