#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make-bundle.sh [--root DIR [--prefix PREFIX]] BUILD_DIR OUT_DIR
#
# (Kept in the repository from the GPU host notes, with --prefix added; .ci/gpu-bundle.sh uses it.)
# Packs what a meson build directory needs to run its tests and pipelines on a
# GPU host that has the NVIDIA driver and CUDA runtime but no GStreamer and no
# package access (x86-64). Without --root the build is a native Debian 12 one:
# the host's own libc/libstdc++ are used there (they are newer). With --root DIR
# the build was made inside a Debian root at DIR (e.g. a Debian 13 root with
# GStreamer 1.26, the build directory bind-mounted at the same absolute path):
# then that root's C library and dynamic loader travel too, and every binary runs
# through the bundled loader (env.sh defines how). With --prefix PREFIX as well (a
# path inside the root, e.g. /opt/gst-1.24.2 from .ci/gst-1.24.2.sh), GStreamer comes
# from that prefix instead of the root's packages: its plugins, tools, scanner and
# libraries travel (the root's glibc and loader still do), nothing of the root's own
# GStreamer.
#
#   OUT_DIR/lib       shared libraries the build's binaries and plugins load
#                     (never libcuda / libnvidia-* / libcudla: the host has its own)
#   OUT_DIR/plugins   GStreamer plugins used by tests and example pipelines
#   OUT_DIR/bin       gst-launch-1.0, gst-inspect-1.0, gst-plugin-scanner
#   OUT_DIR/wrap      (--root) gst-launch-1.0, gst-inspect-1.0: scripts that run bin's through
#                     the bundled loader
#   OUT_DIR/python    the mesonbuild module that configured BUILD_DIR
#   OUT_DIR/env.sh    source it on the GPU host
#
# Extra plugins: GPU_BUNDLE_PLUGINS="name1 name2" (file names without libgst/.so).
set -euo pipefail
ROOT="" PREFIX=""
usage="usage: make-bundle.sh [--root DIR [--prefix PREFIX]] BUILD_DIR OUT_DIR"
if [ "${1:-}" = "--root" ]; then ROOT=$(realpath "$2"); shift 2; fi
if [ "${1:-}" = "--prefix" ]; then PREFIX=$2; shift 2; fi
BUILD=$(realpath "${1:?$usage}")
OUT=${2:?$usage}
ARCHLIB=/usr/lib/x86_64-linux-gnu
PLUGDIR=$ARCHLIB/gstreamer-1.0
TOOLS="/usr/bin/gst-launch-1.0 /usr/bin/gst-inspect-1.0 $ARCHLIB/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner"
LIBPATH=""   # extra library directory (inside the root) for ldd
if [ -n "$PREFIX" ]; then
  [ -n "$ROOT" ] || { echo "make-bundle: --prefix needs --root (the prefix is a path inside the root)" >&2; exit 1; }
  [ -f "$ROOT$PREFIX/lib/libgstreamer-1.0.so.0" ] \
    || { echo "make-bundle: $ROOT$PREFIX has no GStreamer (lib/libgstreamer-1.0.so.0); build it first (.ci/gst-1.24.2.sh)" >&2; exit 1; }
  PLUGDIR=$PREFIX/lib/gstreamer-1.0
  TOOLS="$PREFIX/bin/gst-launch-1.0 $PREFIX/bin/gst-inspect-1.0 $PREFIX/libexec/gstreamer-1.0/gst-plugin-scanner"
  LIBPATH=$PREFIX/lib
fi
PLUGINS="coreelements videotestsrc videoconvertscale app nvcodec debugutilsbad
  videorate videoparsersbad isomp4 videofilter pbtypes ${GPU_BUNDLE_PLUGINS:-}"

rm -rf "$OUT"
mkdir -p "$OUT/lib" "$OUT/plugins" "$OUT/bin" "$OUT/python"
targets=()   # ELF files whose libraries travel, as paths seen inside the root
for p in $PLUGINS; do
  if [ -f "$ROOT$PLUGDIR/libgst$p.so" ]; then
    cp "$ROOT$PLUGDIR/libgst$p.so" "$OUT/plugins/"; targets+=("$PLUGDIR/libgst$p.so")
  else echo "make-bundle: plugin $p not installed, skipped" >&2; fi
done
for b in $TOOLS; do
  cp "$ROOT$b" "$OUT/bin/"; targets+=("$b")
done
cp -r "$ROOT/usr/lib/python3/dist-packages/mesonbuild" "$OUT/python/"

# The build directory must be visible at the same absolute path inside the root.
[ -z "$ROOT" ] || [ -d "$ROOT$BUILD" ] || { echo "make-bundle: $BUILD is not visible inside $ROOT" >&2; exit 1; }
while IFS= read -r f; do targets+=("$f"); done < <(find "$ROOT$BUILD" -type f \( -perm -u+x -o -name '*.so*' \) \
  -not -path '*/meson-private/*' -exec sh -c 'head -c4 "$1" | grep -q ELF && echo "$1"' _ {} \; | sed "s#^$ROOT##")

if [ -n "$ROOT" ]; then
  skip='/(libcuda|libnvidia-[a-z-]*|libcudla)\.so'
  lister() { chroot "$ROOT" env ${LIBPATH:+LD_LIBRARY_PATH=$LIBPATH} ldd "$1"; }
else
  skip='/(libc|libm|libpthread|libdl|librt|ld-linux-x86-64|libstdc\+\+|libgcc_s|libcuda|libnvidia-[a-z-]*|libcudla)\.so'
  lister() { ldd "$1"; }
fi
for f in "${targets[@]}"; do
  lister "$f" 2>/dev/null | awk '/=> \// {print $3}'
done | sort -u | grep -v -E "$skip" | grep -v "^$BUILD" | while read -r l; do
  cp -L "$ROOT$l" "$OUT/lib/"
done
[ -z "$ROOT" ] || cp -L "$ROOT/lib64/ld-linux-x86-64.so.2" "$OUT/lib/"
if [ -n "$PREFIX" ]; then
  # Nothing of the root's own GStreamer may travel beside the prefix's.
  for l in "$OUT"/lib/libgst*.so*; do
    [ -f "$ROOT$PREFIX/lib/${l##*/}" ] || { echo "make-bundle: ${l##*/} does not come from $PREFIX (a build or plugin links the root's GStreamer)" >&2; exit 1; }
  done
fi

if [ -n "$ROOT" ]; then
  mkdir -p "$OUT/wrap"
  for t in gst-launch-1.0 gst-inspect-1.0; do
    printf '#!/bin/sh\n# %s of the bundle, through its loader (env.sh puts this folder on PATH).\nb=$(cd "$(dirname "$0")/.." && pwd)\nexec "$b/lib/ld-linux-x86-64.so.2" --library-path "$b/lib" "$b/bin/%s" "$@"\n' "$t" "$t" > "$OUT/wrap/$t"
    chmod +x "$OUT/wrap/$t"
  done
fi
{
  echo '# Source this on the GPU host: . OUT_DIR/env.sh'
  echo '_b=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)'
  echo 'export GST_PLUGIN_SYSTEM_PATH_1_0="$_b/plugins"'
  echo 'export GST_REGISTRY="${TMPDIR:-/tmp}/gpu-bundle-registry.bin"'
  if [ -n "$ROOT" ]; then
    cat <<'ENV'
# Binaries come from another C library: run each through the bundled loader.
export BUNDLE_EXE_WRAPPER="$_b/lib/ld-linux-x86-64.so.2 --library-path $_b/lib"
export GST_REGISTRY_FORK=no
# The tools as commands on PATH (wrap/: scripts that run them through the loader), so that
# timeout, Python's subprocess and the tests' scripts find them too.
export PATH="$_b/wrap:$PATH"
bundle-run() { $BUNDLE_EXE_WRAPPER "$@"; }
# meson test needs: --wrapper "$BUNDLE_EXE_WRAPPER" (ELF test programs only)
ENV
  else
    cat <<'ENV'
export LD_LIBRARY_PATH="$_b/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GST_PLUGIN_SCANNER="$_b/bin/gst-plugin-scanner"
export PATH="$_b/bin:$PATH"
export BUNDLE_EXE_WRAPPER=""
bundle-run() { "$@"; }
ENV
  fi
  echo 'meson() { PYTHONPATH="$_b/python" python3 -c "import sys; from mesonbuild import mesonmain; sys.exit(mesonmain.main())" "$@"; }'
} > "$OUT/env.sh"
du -sh "$OUT" | awk '{print "make-bundle: " $1 " in " $2}'
