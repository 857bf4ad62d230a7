#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# python-bundle.sh [BUILD_DIR] — packs a Python runtime with PyGObject for a GPU host whose own
# Python has none, so that pipelines/dlainfer-example.py runs there against the native build
# (default build/, GStreamer 1.22) and its bundle (.gpu-bundle, from `GPU_BUNDLE_BUILDS=122 bash
# .ci/gpu-bundle.sh`, run first). The archive .gpu-python.tar.gz unpacks beside the native one:
#
#   .gpu-python/bin/python3.11               Debian 12's interpreter (libpython linked in statically;
#                                            a shared one would go to lib/ with the other libraries)
#   .gpu-python/lib/python3.11/              the standard library modules the example and gi import
#                                            (traced here by running the example), lib-dynload too
#   .gpu-python/lib/python3/dist-packages/gi PyGObject (site.py finds it under the prefix)
#   .gpu-python/lib/girepository-1.0/        the typelibs the example loads, except ours:
#                                            GstDlaInfer-1.0 stays in BUILD_DIR/gst/meta
#   .gpu-python/lib/*.so*                    libgirepository and every other library these load
#                                            that .gpu-bundle/lib lacks (never the C library's own)
#   .gpu-python/env.sh                       source it after .gpu-bundle/env.sh
#
# Like the native build's programs, the interpreter runs on the host's C library and loader (the
# 122 bundle carries none; Debian 12's Python needs glibc >= 2.35). .ci/gpu-host-python.sh runs the
# example with it. Fails when the archive exceeds 15 MiB (with the native archive, about 45 MiB, a
# device call carries 64 MiB at most).
set -euo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$SRC"
BUILD=${1:-build}
PY=${PYTHON_BUNDLE_PYTHON:-/usr/bin/python3.11}
DIST=/usr/lib/python3/dist-packages
OUT=.gpu-python
ARCHIVE=.gpu-python.tar.gz
LIMIT=$((15 * 1024 * 1024))
die() { echo "python-bundle: $*" >&2; exit 1; }

[ -x "$PY" ] || die "$PY not found (Debian 12's python3.11: apt install python3.11)"
ver=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
[ "$ver" = 3.11 ] || die "$PY is Python $ver; PyGObject in $DIST is built for 3.11"
[ -d "$DIST/gi" ] || die "no PyGObject in $DIST/gi (apt install python3-gi)"
[ -f "$BUILD/gst/meta/GstDlaInfer-1.0.typelib" ] \
  || die "$BUILD/gst/meta/GstDlaInfer-1.0.typelib missing: build $BUILD with introspection (ninja -C $BUILD)"
[ -f "$BUILD/gst/libgstdlainfer.so" ] || die "$BUILD/gst/libgstdlainfer.so missing: build $BUILD first"
[ -f .gpu-bundle/env.sh ] || die ".gpu-bundle/env.sh missing: run GPU_BUNDLE_BUILDS=122 bash .ci/gpu-bundle.sh first"
if grep -q '^export BUNDLE_EXE_WRAPPER="\$' .gpu-bundle/env.sh; then
  die ".gpu-bundle is not the native (122) bundle: this Python is Debian 12's, for the 1.22 build"
fi

# 1. Trace, with gi and GStreamer as on the host: the example's JSON formatting, what its pipeline
# does once running (probe, bus watch, main loop, SIGINT source) on a CPU pipeline, then the example
# itself (without a CUDA driver nvcodec has no cudaupload and it stops there, exit 2); record every
# module file imported and every typelib loaded. Startup, site and traceback modules are added below.
trace=$(mktemp -d)
trap 'rm -rf "$trace"' EXIT
cat > "$trace/trace.py" <<'PY'
import os, runpy, sys
example, out = sys.argv[1], sys.argv[2]


def record():
    mods = set()
    for m in list(sys.modules.values()):
        f = getattr(m, "__file__", None)
        if f:
            mods.add(os.path.realpath(f))
    typelibs = set()
    try:
        import gi
        repo = gi.Repository.get_default()
        for ns in repo.get_loaded_namespaces():
            typelibs.add(ns + "-" + repo.get_version(ns))
    except Exception as e:  # the trace must say why rather than pack too little
        print(f"trace: typelibs not listed: {e}", file=sys.stderr)
        os._exit(3)
    with open(out, "w") as f:
        for p in sorted(mods):
            f.write("module " + p + "\n")
        for t in sorted(typelibs):
            f.write("typelib " + t + "\n")


# The probe's formatting (frame_json) on a buffer without meta, then the example itself.
import importlib.util
spec = importlib.util.spec_from_file_location("dlainfer_example", example)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
Gst, GLib, GstDlaInfer, analytics = mod.load_gi()
Gst.init(None)
mod.frame_json(GstDlaInfer, Gst, Gst.Buffer.new(), 0, analytics)
# What the example does once its pipeline runs, without CUDA: a buffer probe that formats JSON, a
# bus watch, the main loop with a SIGINT source, end-of-stream.
import signal
p = Gst.parse_launch("videotestsrc num-buffers=3 ! identity name=i ! fakesink")
p.get_by_name("i").get_static_pad("src").add_probe(
    Gst.PadProbeType.BUFFER,
    lambda pad, info: (mod.frame_json(GstDlaInfer, Gst, info.get_buffer(), 0, analytics), Gst.PadProbeReturn.OK)[1])
loop = GLib.MainLoop()
bus = p.get_bus()
bus.add_signal_watch()
bus.connect("message", lambda b, m: loop.quit() if m.type in (Gst.MessageType.EOS, Gst.MessageType.ERROR) else None)
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGINT, lambda: GLib.SOURCE_CONTINUE)
GLib.timeout_add_seconds(20, loop.quit)
p.set_state(Gst.State.PLAYING)
loop.run()
bus.remove_signal_watch()
p.set_state(Gst.State.NULL)
sys.argv = [example, "--model", os.environ["TRACE_MODEL"], "--frames", "2"]
try:
    runpy.run_path(example, run_name="__main__")
except SystemExit as e:
    print(f"trace: the example exited {e.code}", file=sys.stderr)
record()
PY
model=$BUILD/tests/data/colours.swdla
[ -f "$model" ] || die "$model missing: build $BUILD whole (ninja -C $BUILD)"
(
  # shellcheck source=/dev/null
  . .gpu-bundle/env.sh
  export GI_TYPELIB_PATH="$SRC/$BUILD/gst/meta" LD_LIBRARY_PATH="$SRC/$BUILD/gst/meta:$LD_LIBRARY_PATH"
  export GST_PLUGIN_PATH_1_0="$SRC/$BUILD/gst" DLAINFER_CUDLA_LIBRARY="$SRC/$BUILD/tests/swdla/libcudla.so.1"
  export GST_REGISTRY="$trace/registry.bin" TRACE_MODEL=$model
  timeout 60 "$PY" -s "$trace/trace.py" "$SRC/pipelines/dlainfer-example.py" "$trace/list" \
    > "$trace/stdout" 2> "$trace/stderr"
) || { cat "$trace/stderr" >&2; die "the import trace failed (see above)"; }
echo "python-bundle: traced: $(grep -m1 '^trace: the example' "$trace/stderr" || echo 'the example ran'): $(grep -v '^trace:' "$trace/stderr" | head -1)"

# 2. The interpreter, the traced modules and a few more (startup, site, tracebacks).
rm -rf "$OUT"
stdlib=/usr/lib/python3.11
mkdir -p "$OUT/bin" "$OUT/lib/python3.11/lib-dynload" "$OUT/lib/python3/dist-packages" "$OUT/lib/girepository-1.0"
cp -L "$PY" "$OUT/bin/python3.11"
ln -s python3.11 "$OUT/bin/python3"
elfs=("$OUT/bin/python3.11")
n_mod=0
add_module() {  # add_module FILE (under $stdlib)
  local rel=${1#"$stdlib"/}
  mkdir -p "$OUT/lib/python3.11/$(dirname "$rel")"
  cp -L "$1" "$OUT/lib/python3.11/$rel"
  case $1 in *.so) elfs+=("$OUT/lib/python3.11/$rel") ;; esac
  n_mod=$((n_mod + 1))
}
while read -r kind path; do
  [ "$kind" = module ] || continue
  case $path in
    "$stdlib"/*) add_module "$path" ;;
    "$DIST"/gi/*) ;;   # the whole package below
    "$SRC"/*|"$trace"/*) ;;
    *) echo "python-bundle: note: not packed (neither standard library nor gi): $path" >&2 ;;
  esac
done < "$trace/list"
# Startup and site (os.py is getpath's landmark for the prefix), the codecs a locale may ask for,
# and what a traceback or a warning imports.
for m in os.py site.py _sitebuiltins.py stat.py posixpath.py genericpath.py _collections_abc.py io.py \
  abc.py codecs.py traceback.py linecache.py tokenize.py token.py warnings.py contextlib.py \
  collections/__init__.py keyword.py operator.py reprlib.py functools.py types.py; do
  [ -f "$OUT/lib/python3.11/$m" ] || add_module "$stdlib/$m"
done
for f in "$stdlib"/encodings/*.py; do [ -f "$OUT/lib/python3.11/${f#"$stdlib"/}" ] || add_module "$f"; done
cp -r "$DIST/gi" "$OUT/lib/python3/dist-packages/"
find "$OUT" -name __pycache__ -prune -exec rm -rf {} +
rm -rf "$OUT/lib/python3/dist-packages/gi/pygtkcompat.py"
elfs+=("$OUT"/lib/python3/dist-packages/gi/*.so)

# 3. Typelibs: those loaded in the trace (ours stays in the build directory).
sysgir=/usr/lib/x86_64-linux-gnu/girepository-1.0
typelibs=()
while read -r kind t; do
  [ "$kind" = typelib ] || continue
  [ "$t" != GstDlaInfer-1.0 ] || continue
  [ -f "$sysgir/$t.typelib" ] || die "typelib $t was loaded but is not in $sysgir"
  cp "$sysgir/$t.typelib" "$OUT/lib/girepository-1.0/"
  typelibs+=("$t")
done < "$trace/list"
if ! grep -q '^typelib Gst-1.0$' "$trace/list" || ! grep -q '^typelib GstDlaInfer-1.0$' "$trace/list"; then
  cat "$trace/stderr" >&2; die "the trace did not load Gst-1.0 and GstDlaInfer-1.0 (see above)"
fi

# 4. Shared libraries: what the interpreter, the extension modules, libgirepository and the
# typelibs' libraries load, less what .gpu-bundle/lib has and the host's C and C++ runtime.
skip='/(libc|libm|libpthread|libdl|librt|ld-linux-x86-64|libstdc\+\+|libgcc_s|libcuda|libnvidia-[a-z-]*|libcudla)\.so'
girlibs=()
for t in "${typelibs[@]}"; do
  # The shared-library attribute, e.g. libgstreamer-1.0.so.0 (GLib/GObject/GModule name theirs too).
  while read -r l; do girlibs+=("$l"); done < <(strings "$OUT/lib/girepository-1.0/$t.typelib" \
    | tr ',' '\n' | grep -E '^lib[A-Za-z0-9_.+-]*\.so(\.[0-9]+)*$' | sort -u)
done
for l in "${girlibs[@]}"; do
  if [ -f ".gpu-bundle/lib/$l" ]; then continue; fi
  p=$(ldconfig -p | awk -v n="$l" '$1 == n && /x86-64/ {print $NF; exit}')
  [ -n "$p" ] || die "library $l (named by a typelib) is neither in .gpu-bundle/lib nor installed here"
  cp -L "$p" "$OUT/lib/"; elfs+=("$OUT/lib/$l")
done
deps() {  # deps ELF...: the libraries they load, a path per line ("NOTFOUND name" where ldd finds none)
  for f in "$@"; do ldd "$f" | awk '/=> \// {print $3} / => not found/ {print "NOTFOUND " $1}'; done | sort -u
}
copy_missing() {  # reads deps' lines; copies those neither skipped nor in .gpu-bundle/lib
  while read -r l; do
    [ "${l%% *}" != NOTFOUND ] || die "${l#NOTFOUND } (needed by the bundle) is not installed here"
    if grep -qE "$skip" <<< "$l" || [ -f ".gpu-bundle/lib/${l##*/}" ]; then continue; fi
    [ -f "$OUT/lib/${l##*/}" ] || cp -L "$l" "$OUT/lib/"
  done
}
deps "${elfs[@]}" | copy_missing
# What the libraries copied so far load in turn, until nothing is added.
while :; do
  before=$(find "$OUT/lib" -maxdepth 1 -name '*.so*' | wc -l)
  deps "$OUT"/lib/*.so* | copy_missing
  [ "$(find "$OUT/lib" -maxdepth 1 -name '*.so*' | wc -l)" != "$before" ] || break
done
find "$OUT" -name '*.so*' -type f -exec strip --strip-unneeded {} \;

cat > "$OUT/env.sh" <<'ENV'
# Source this after .gpu-bundle/env.sh (the native build's bundle): . .gpu-python/env.sh
# Then `bundle-python SCRIPT ARGS` runs Debian 12's Python 3.11 with PyGObject (the host's own
# python3 is left as it is); add the build's gst/meta to GI_TYPELIB_PATH and LD_LIBRARY_PATH for
# GstDlaInfer-1.0.
_p=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export BUNDLE_PYTHON="$_p/bin/python3.11"
export GI_TYPELIB_PATH="$_p/lib/girepository-1.0${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}"
export LD_LIBRARY_PATH="$_p/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
bundle-python() { PYTHONHOME="$_p" PYTHONNOUSERSITE=1 PYTHONPATH='' PYTHONSTARTUP='' "$BUNDLE_PYTHON" "$@"; }
ENV

tar czf "$ARCHIVE" "$OUT"
size=$(stat -c %s "$ARCHIVE")
echo "python-bundle: $n_mod modules, typelibs ${typelibs[*]}, libraries: $(find "$OUT/lib" -maxdepth 1 -name '*.so*' -printf '%f ')"
echo "python-bundle: $ARCHIVE $((size / 1024)) KiB ($size bytes; limit 15 MiB)"
[ "$size" -le $LIMIT ] || { rm -f "$ARCHIVE"; die "$ARCHIVE (removed) was $((size / 1024 / 1024)) MiB, over the 15 MiB that fit beside the native archive in one device call"; }
