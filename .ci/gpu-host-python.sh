#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# gpu-host-python.sh [OUT_DIR] — on the GPU host, in the checkout that .ci/gpu-bundle.sh (build 122)
# and .ci/python-bundle.sh packed for: runs pipelines/dlainfer-example.py end to end with the
# bundled Python 3.11 and PyGObject (.gpu-python) against the native build's plugin (build/gst), its
# typelib (build/gst/meta) and swdla (build/tests/swdla/libcudla.so.1) on the colours test model.
# Unpacks .gpu-carry-122.tar.xz (else .gpu-carry.tar.xz) and .gpu-python.tar.gz first where present
# (GPU_HOST_UNPACKED=1: the native archive is unpacked already, as .ci/gpu-host-run.sh does). Logs
# in OUT_DIR (default gpu-logs/), one summary line per check on stdout, exit 1 on any failure:
#   runtime   the bundled Python starts and imports gi
#   frames-*  N solid frames of a colour -> exactly N JSON lines, each with the colour's label
#             (confidence > 0.9), element "infer", backend "swdla"; exit 0
#   ctrl-c    a live source, SIGINT 2 s after its first line: end-of-stream, exit 0, >= 1 complete
#             JSON lines
#   no-typelib  GI_TYPELIB_PATH without build/gst/meta: exit 1, the message names GI_TYPELIB_PATH
#   no-plugin   no build/gst on the plugin path: exit 1, the message names GST_PLUGIN_PATH
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
ROOT=$PWD
OUT=${1:-gpu-logs}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
EXAMPLE=$ROOT/pipelines/dlainfer-example.py
FRAMES=${GPU_HOST_PYTHON_FRAMES:-8}
failures=()
fail() { echo "== python FAIL $*"; failures+=("$*"); }
pass() { echo "== python ok   $*"; }

archives=(.gpu-python.tar.gz)
if [ "${GPU_HOST_UNPACKED:-0}" != 1 ]; then
  if [ -f .gpu-carry-122.tar.xz ]; then archives+=(.gpu-carry-122.tar.xz); else archives+=(.gpu-carry.tar.xz); fi
fi
for a in "${archives[@]}"; do
  [ ! -f "$a" ] || tar xf "$a" || fail "cannot unpack $a"
done
if [ ! -f .gpu-bundle/env.sh ] || [ ! -f build/gst/libgstdlainfer.so ]; then
  echo "gpu-host-python: build/ and .gpu-bundle/ missing: carry .gpu-carry-122.tar.xz (GPU_BUNDLE_BUILDS=122 bash .ci/gpu-bundle.sh)" >&2
  exit 1
fi
if [ ! -x .gpu-python/bin/python3.11 ] || [ ! -f .gpu-python/env.sh ]; then
  echo "gpu-host-python: .gpu-python/ missing: carry .gpu-python.tar.gz (bash .ci/python-bundle.sh)" >&2
  exit 1
fi

# shellcheck source=/dev/null
. .gpu-bundle/env.sh
# shellcheck source=/dev/null
. .gpu-python/env.sh
PY=$BUNDLE_PYTHON
# For this script's Python runs (none of the host's python3 here).
export PYTHONHOME=$ROOT/.gpu-python PYTHONNOUSERSITE=1
unset PYTHONPATH PYTHONSTARTUP
SYSGIR=$GI_TYPELIB_PATH   # the bundle's typelibs, without ours
export GI_TYPELIB_PATH="$ROOT/build/gst/meta:$GI_TYPELIB_PATH"
export LD_LIBRARY_PATH="$ROOT/build/gst/meta:$LD_LIBRARY_PATH"
export GST_PLUGIN_PATH_1_0="$ROOT/build/gst"
export DLAINFER_CUDLA_LIBRARY="$ROOT/build/tests/swdla/libcudla.so.1"
export GST_REGISTRY="$OUT/python-registry.bin"
rm -f "$GST_REGISTRY" "$OUT"/python-*.out "$OUT"/python-*.err
MODEL=$ROOT/build/tests/data/colours.swdla
LABELS=$ROOT/build/tests/data/colours.labels
for f in "$MODEL" "$LABELS" "$DLAINFER_CUDLA_LIBRARY" "$ROOT/build/gst/meta/GstDlaInfer-1.0.typelib"; do
  [ -f "$f" ] || fail "setup: $f missing (the native build was not carried whole)"
done

# check_json NAME FILE N LABEL: N ("+" for at least one) JSON lines, each the example's record of one
# frame with LABEL first at confidence > 0.9 from element infer, backend swdla. Prints a summary.
check_json() {
  "$PY" - "$@" <<'PY'
import json, sys
name, path, want, label = sys.argv[1:5]
lines = open(path, encoding="utf-8").read().splitlines()
errors, confs = [], []
for i, line in enumerate(lines):
    try:
        rec = json.loads(line)
    except ValueError as e:
        errors.append(f"line {i} is no JSON ({e}): {line!r}")
        continue
    res = rec.get("results") or []
    if rec.get("frame") != i:
        errors.append(f"line {i}: frame {rec.get('frame')}")
    if rec.get("element") != "infer" or rec.get("backend") != "swdla":
        errors.append(f"line {i}: element {rec.get('element')!r}, backend {rec.get('backend')!r}")
    if not res or "label" not in res[0] or "confidence" not in res[0]:
        errors.append(f"line {i}: no label and confidence: {line}")
        continue
    if res[0]["label"] != label or not res[0]["confidence"] > 0.9:
        errors.append(f"line {i}: {res[0]['label']!r} at {res[0]['confidence']}, want {label!r} > 0.9")
    confs.append(res[0]["confidence"])
count_ok = len(lines) >= 1 if want == "+" else len(lines) == int(want)
if not count_ok:
    errors.insert(0, f"{len(lines)} JSON lines, want {'at least 1' if want == '+' else want}")
if errors:
    print(f"{name}: " + "; ".join(errors[:3]) + (f" (+{len(errors) - 3} more)" if len(errors) > 3 else ""))
    sys.exit(1)
print(f"{name}: {len(lines)} JSON lines, label {label}, confidence {min(confs)}..{max(confs)}, backend swdla")
PY
}

# runtime
if msg=$("$PY" -c 'import sys, gi; gi.require_version("Gst", "1.0"); gi.require_version("GstDlaInfer", "1.0")
from gi.repository import Gst, GstDlaInfer; Gst.init(None)
print(f"Python {sys.version.split()[0]} ({sys.prefix}), PyGObject {gi.__version__}, {Gst.version_string()}")' \
  2> "$OUT/python-runtime.err"); then
  pass "runtime: $msg"
else
  fail "runtime: the bundled Python cannot load gi and the typelibs: $(tail -3 "$OUT/python-runtime.err" | tr '\n' ' ')"
fi

# frames-COLOUR: foreground-color is ARGB.
for spec in blue:0xff0000ff yellow:0xffffff00; do
  colour=${spec%%:*} argb=${spec#*:} log=$OUT/python-frames-$colour
  timeout 120 "$PY" "$EXAMPLE" --model "$MODEL" --labels "$LABELS" --source \
    "videotestsrc num-buffers=$FRAMES pattern=solid-color foreground-color=$argb ! video/x-raw,format=NV12,width=320,height=180" \
    > "$log.out" 2> "$log.err"
  rc=$?
  if [ $rc != 0 ]; then
    fail "frames-$colour: exit $rc, $(wc -l < "$log.out") lines: $(grep -m2 -v '^$' "$log.err" | tr '\n' ' ')"
  elif summary=$(check_json "frames-$colour" "$log.out" "$FRAMES" "$colour"); then
    pass "$summary, exit 0"
  else
    fail "$summary"
  fi
done

# ctrl-c: a live source that never ends; SIGINT as a terminal's Ctrl-C sends it (a background job
# of a script would start with SIGINT ignored: env --default-signal undoes that).
log=$OUT/python-ctrl-c
env --default-signal=INT "$PY" "$EXAMPLE" --model "$MODEL" --labels "$LABELS" --source \
  "videotestsrc is-live=true pattern=solid-color foreground-color=0xff00ff00 ! video/x-raw,format=NV12,width=320,height=180,framerate=30/1" \
  > "$log.out" 2> "$log.err" &
pid=$!
# Ctrl-C 2 s after the first frame's line (start-up, CUDA and the model load come first).
for _ in $(seq 1 300); do
  if [ -s "$log.out" ] || ! kill -0 "$pid" 2>/dev/null; then break; fi
  sleep 0.1
done
[ ! -s "$log.out" ] || sleep 2
kill -INT "$pid" 2>/dev/null
for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
  kill -KILL "$pid"; wait "$pid" 2>/dev/null
  fail "ctrl-c: still running 20 s after SIGINT (killed)"
else
  wait "$pid"; rc=$?
  if [ $rc != 0 ]; then
    fail "ctrl-c: exit $rc, $(wc -l < "$log.out") lines: $(grep -m2 -v '^$' "$log.err" | tr '\n' ' ')"
  elif ! grep -q 'interrupted, sending end-of-stream' "$log.err"; then
    fail "ctrl-c: exit 0 but no 'interrupted, sending end-of-stream' on stderr"
  elif summary=$(check_json ctrl-c "$log.out" + green); then
    pass "$summary, drained and exit 0 after SIGINT"
  else
    fail "$summary"
  fi
fi

# no-typelib: the bundle's typelibs (Gst-1.0 loads) but not build/gst/meta.
log=$OUT/python-no-typelib
GI_TYPELIB_PATH=$SYSGIR timeout 60 "$PY" "$EXAMPLE" --model "$MODEL" > "$log.out" 2> "$log.err"
rc=$?
if [ $rc = 1 ] && grep -q GI_TYPELIB_PATH "$log.err" && grep -q GstDlaInfer "$log.err" && [ ! -s "$log.out" ]; then
  pass "no-typelib: exit 1, $(head -c 110 "$log.err")..."
else
  fail "no-typelib: exit $rc (want 1 naming GI_TYPELIB_PATH): $(head -c 300 "$log.err")"
fi

# no-plugin: the bundle's plugins only (a fresh registry), not build/gst.
log=$OUT/python-no-plugin
GST_PLUGIN_PATH_1_0=$OUT/no-plugins GST_REGISTRY=$OUT/python-no-plugin.bin timeout 60 \
  "$PY" "$EXAMPLE" --model "$MODEL" > "$log.out" 2> "$log.err"
rc=$?
if [ $rc = 1 ] && grep -q 'dlainfer element is missing' "$log.err" && grep -q GST_PLUGIN_PATH "$log.err"; then
  pass "no-plugin: exit 1, $(head -c 90 "$log.err")..."
else
  fail "no-plugin: exit $rc (want 1 naming GST_PLUGIN_PATH): $(head -c 300 "$log.err")"
fi

if [ ${#failures[@]} -gt 0 ]; then
  echo "gpu-host-python: ${#failures[@]} failure(s), logs in $OUT/python-*"; exit 1
fi
echo "gpu-host-python: all passed (the example with the bundled Python, swdla, logs in $OUT/python-*)"
