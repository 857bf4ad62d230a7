#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# gst-1.24.2-env.sh COMMAND...  — runs COMMAND with GStreamer 1.24.2 (the target's version, built by
# .ci/gst-1.24.2.sh into /opt/gst-1.24.2 inside the Debian 13 root) and nothing of the root's 1.26:
# pkg-config, libraries, plugins, the plugin scanner, tools and typelibs all come from the prefix.
#
# From the host (Debian 12) it builds the prefix when needed and re-runs itself inside the root
# through .ci/debian13.sh (the checkout at the same path); inside the root it sets the environment
# and runs COMMAND from the current directory. For example, from the checkout:
#   bash .ci/gst-1.24.2-env.sh meson setup build-1242
#   bash .ci/gst-1.24.2-env.sh meson test -C build-1242 --suite unit
#   bash .ci/gst-1.24.2-env.sh --check build-1242   (verifies the environment and the build's links)
set -euo pipefail
PREFIX=/opt/gst-1.24.2
if [ ! -f "$PREFIX/.dlainfer-stamp" ]; then
  if grep -q '^12' /etc/debian_version 2>/dev/null; then   # on the host: enter the root
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    bash "$here/gst-1.24.2.sh" >&2
    exec bash "$here/debian13.sh" bash "$here/gst-1.24.2-env.sh" "$@"
  fi
  echo "gst-1.24.2-env: $PREFIX has no finished GStreamer 1.24.2 build (no .dlainfer-stamp); run .ci/gst-1.24.2.sh on the host" >&2
  exit 1
fi
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
export LD_LIBRARY_PATH=$PREFIX/lib
export PATH=$PREFIX/bin:$PATH
export GST_PLUGIN_SYSTEM_PATH_1_0=$PREFIX/lib/gstreamer-1.0
export GST_PLUGIN_SCANNER_1_0=$PREFIX/libexec/gstreamer-1.0/gst-plugin-scanner
export GST_REGISTRY_1_0=${GST_REGISTRY_1_0:-$HOME/.cache/gstreamer-1.0/registry-1.24.2.bin}
export GI_TYPELIB_PATH=$PREFIX/lib/girepository-1.0
export XDG_DATA_DIRS=$PREFIX/share:/usr/share
unset GST_PLUGIN_PATH GST_PLUGIN_SYSTEM_PATH GST_PLUGIN_SCANNER

if [ "${1:-}" = --check ]; then
  # The environment gives 1.24.2 everywhere; with a build dir, its programs load the prefix's libs.
  fail() { echo "gst-1.24.2-env: $*" >&2; exit 1; }
  v=$(gst-inspect-1.0 --version | awk 'NR==1 {print $NF}')
  [ "$v" = 1.24.2 ] || fail "gst-inspect-1.0 reports $v, not 1.24.2 (PATH/LD_LIBRARY_PATH do not reach $PREFIX)"
  [ "$(command -v gst-inspect-1.0)" = "$PREFIX/bin/gst-inspect-1.0" ] || fail "gst-inspect-1.0 is not the prefix's"
  for pc in gstreamer-1.0 gstreamer-cuda-1.0 gstreamer-analytics-1.0 gstreamer-check-1.0; do
    pv=$(pkg-config --modversion $pc) || fail "pkg-config finds no $pc in $PREFIX (rebuild with .ci/gst-1.24.2.sh)"
    [ "$pv" = 1.24.2 ] || fail "pkg-config gives $pc $pv, not 1.24.2"
  done
  # Every plugin the tests use loads from the prefix (a 1.26 plugin would show its own version).
  for p in coreelements videotestsrc videoconvertscale app nvcodec videoparsersbad isomp4 x264 pango png multifile; do
    f=$(gst-inspect-1.0 "$p" 2>/dev/null | awk '/^  Filename/ {print $2}')
    case "$f" in "$PREFIX"/*) ;; *) fail "plugin $p is not loaded from $PREFIX (got '${f:-nothing}')";; esac
  done
  # The typelibs (what the target's Python users load): Gst and GstCuda through PyGObject.
  if python3 -c 'import gi' 2>/dev/null; then
    python3 -c 'import gi; gi.require_version("Gst", "1.0"); gi.require_version("GstCuda", "1.0")
from gi.repository import Gst, GstCuda
Gst.init(None); v = Gst.version(); assert tuple(v)[:3] == (1, 24, 2), v' \
      || fail "PyGObject does not load Gst/GstCuda 1.24.2 from $PREFIX/lib/girepository-1.0 (GI_TYPELIB_PATH)"
  else
    echo "gst-1.24.2-env: note: no python3-gi in the root; the typelibs were not loaded" >&2
  fi
  [ -f "$PREFIX/lib/girepository-1.0/Gst-1.0.typelib" ] && [ -f "$PREFIX/lib/girepository-1.0/GstCuda-1.0.typelib" ] \
    || fail "no typelibs in $PREFIX/lib/girepository-1.0 (introspection must be on in .ci/gst-1.24.2.sh)"
  if [ -n "${2:-}" ]; then
    n=0 build=$(realpath "$2")
    for exe in "$2"/tests/unit-* "$2"/tests/gpu-* "$2"/gst/libgstdlainfer.so; do
      [ -f "$exe" ] && [ -x "$exe" ] || continue
      libs=$(ldd "$exe" | awk '/libgst[a-z]*-1.0.so/ {print $3}')
      bad=$(echo "$libs" | grep -v -e "^$PREFIX/" -e "^$build/" | grep . || true)   # the build's own: fine
      [ -z "$bad" ] || fail "$exe loads GStreamer libraries outside $PREFIX: $bad"
      [ -n "$libs" ] || fail "$exe loads no GStreamer library at all (ldd)"
      n=$((n + 1))
    done
    [ $n -gt 0 ] || fail "no test programs in $2/tests to check"
    echo "gst-1.24.2-env: GStreamer $v from $PREFIX; $n programs of $2 load only its GStreamer libraries"
  else
    echo "gst-1.24.2-env: GStreamer $v from $PREFIX"
  fi
  exit 0
fi
exec "$@"
