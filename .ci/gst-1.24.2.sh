#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# gst-1.24.2.sh — builds upstream GStreamer 1.24.2 (the target's version) inside the Debian 13 root
# (.ci/debian13.sh) into the prefix /opt/gst-1.24.2 there, once: a stamp file in the prefix records
# the source tarball's checksum and the configure options below, and the build runs again only when
# either changes (or the prefix is missing). Run as root from any checkout; the prefix is shared by
# every checkout that uses the same root, and a lock keeps two builds from overlapping.
#
# The sources are the only thing taken from outside the repository: DLAINFER_GST_1242_TARBALL, by
# default ../shared/gstreamer-1.24.2-src.tar.xz next to the checkout (upstream tag 1.24.2, the folders
# gstreamer/ gst-plugins-base/ -good/ -bad/ -ugly/, each a Meson project).
#
# Only what the project, its tests and pipelines/ use is built (every other feature disabled): core
# with its tools and gst-check; -base's libraries with app, videotestsrc, videoconvertscale, videorate,
# pbtypes, pango (textoverlay) and rawparse (the face-api suite's raw RGBA frames); -good's isomp4,
# png, multifile, videofilter; -bad's nvcodec (cudaupload/cudadownload/nvh264dec; brings the cuda and
# analytics libraries), videoparsers, debugutils, analyticsoverlay; -ugly's x264. GObject introspection is on (the target's Python users
# have the typelibs). Use the result through .ci/gst-1.24.2-env.sh.
#
# Usage: gst-1.24.2.sh            build when needed (prints the prefix's state)
#        gst-1.24.2.sh --check    exit 1 when the prefix is missing or out of date, build nothing
#        gst-1.24.2.sh --sources  exit 1 (saying why) when the source tarball is missing
set -euo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=${DLAINFER_DEBIAN13_ROOT:-/var/cache/gst-dlainfer/trixie}
PREFIX=/opt/gst-1.24.2
TARBALL=${DLAINFER_GST_1242_TARBALL:-$SRC/../shared/gstreamer-1.24.2-src.tar.xz}
# Packages the build needs inside the root (beside debian13.sh's).
# (python3-gi: gst-1.24.2-env.sh --check loads the typelibs through it.)
PKGS="bison flex xz-utils gobject-introspection libgirepository1.0-dev libpango1.0-dev libcairo2-dev \
  libpng-dev libx264-dev zlib1g-dev python3-gi"
COMMON="--libdir=lib -Dauto_features=disabled -Dtests=disabled -Dnls=disabled -Ddoc=disabled"
MODULES=(
  "gstreamer -Dexamples=disabled -Dintrospection=enabled -Dtools=enabled -Dcheck=enabled"
  "gst-plugins-base -Dexamples=disabled -Dintrospection=enabled -Dapp=enabled -Dvideotestsrc=enabled
    -Dvideoconvertscale=enabled -Dvideorate=enabled -Dpbtypes=enabled -Dpango=enabled -Drawparse=enabled"
  "gst-plugins-good -Dexamples=disabled -Disomp4=enabled -Dpng=enabled -Dmultifile=enabled
    -Dvideofilter=enabled"
  "gst-plugins-bad -Dexamples=disabled -Dintrospection=enabled -Dnvcodec=enabled -Dvideoparsers=enabled
    -Ddebugutils=enabled -Danalyticsoverlay=enabled"
  "gst-plugins-ugly -Dgpl=enabled -Dx264=enabled"
)
# What the stamp records besides the tarball's checksum: the configure options.
options_id() { printf '%s\n' "$COMMON" "${MODULES[@]}" | tr -s ' \n' ' ' | sha256sum | cut -c1-16; }

if [ "${1:-}" = --inside ]; then
  # Inside the root (run through debian13.sh): $2 the tarball's path there, $3 the stamp to write.
  tarball=$2 stamp=$3
  apt_retry() {  # colleagues use the same root: wait for their apt/dpkg instead of failing
    for i in 1 2 3 4 5 6 7 8 9 10; do
      env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 "$@" && return 0
      echo "gst-1.24.2: apt-get $1 failed (attempt $i; the dpkg lock is likely held by another run of this root); retrying" >&2
      sleep 15
    done
    echo "gst-1.24.2: apt-get $* kept failing inside the root; see the messages above" >&2; return 1
  }
  missing=$(dpkg-query -W -f='${Package} ${Status}\n' $PKGS 2>/dev/null | grep -c 'install ok installed' || true)
  if [ "$missing" != "$(echo $PKGS | wc -w)" ]; then
    echo "gst-1.24.2: installing $PKGS"
    apt_retry update -qq && apt_retry install -y -qq --no-install-recommends $PKGS >/dev/null
  fi
  work=/var/tmp/gst-1.24.2-build
  rm -rf "$work" "$PREFIX"; mkdir -p "$work"
  tar xJf "$tarball" -C "$work"
  export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig LD_LIBRARY_PATH=$PREFIX/lib PATH=$PREFIX/bin:$PATH
  # The root's 1.26 .gir files must not stand in for the prefix's (g-ir-scanner searches these first).
  export XDG_DATA_DIRS=$PREFIX/share:/usr/share GI_TYPELIB_PATH=$PREFIX/lib/girepository-1.0
  for m in "${MODULES[@]}"; do
    read -r -a args <<< "$(echo $m)"
    name=${args[0]}; t=$(date +%s)
    [ -f "$work/$name/meson.build" ] || { echo "gst-1.24.2: $tarball has no $name/ folder; it must hold the upstream 1.24.2 folders gstreamer/ gst-plugins-{base,good,bad,ugly}/" >&2; exit 1; }
    echo "gst-1.24.2: $name: configure, build, install into $PREFIX"
    meson setup "$work/$name/_build" "$work/$name" --prefix="$PREFIX" $COMMON "${args[@]:1}" \
      > "$work/$name.log" 2>&1 \
      && ninja -C "$work/$name/_build" -j"$(nproc)" >> "$work/$name.log" 2>&1 \
      && meson install -C "$work/$name/_build" --strip >> "$work/$name.log" 2>&1 \
      || { tail -40 "$work/$name.log"; echo "gst-1.24.2: building $name failed; its log is $work/$name.log inside the root" >&2; exit 1; }
    echo "gst-1.24.2: $name took $(( $(date +%s) - t )) s"
  done
  v=$(gst-inspect-1.0 --version | awk 'NR==1 {print $NF}')
  [ "$v" = 1.24.2 ] || { echo "gst-1.24.2: the installed gst-inspect-1.0 reports $v, not 1.24.2; is the tarball the 1.24.2 release?" >&2; exit 1; }
  rm -rf "$work" "$tarball"
  echo "$stamp" > "$PREFIX/.dlainfer-stamp"
  exit 0
fi

[ -f "$TARBALL" ] || { echo "gst-1.24.2: the GStreamer 1.24.2 sources are missing: $TARBALL does not exist. \
Put gstreamer-1.24.2-src.tar.xz (upstream tag 1.24.2: gstreamer/ gst-plugins-{base,good,bad,ugly}/) there, \
or set DLAINFER_GST_1242_TARBALL to its path." >&2; exit 1; }
[ "${1:-}" != --sources ] || exit 0
stamp="$(sha256sum < "$TARBALL" | cut -c1-64) options $(options_id)"
current() { [ "$(cat "$ROOT$PREFIX/.dlainfer-stamp" 2>/dev/null)" = "$stamp" ]; }
if [ "${1:-}" = --check ]; then
  current || { echo "gst-1.24.2: $ROOT$PREFIX is missing or was built from other sources/options; run .ci/gst-1.24.2.sh" >&2; exit 1; }
  exit 0
fi
bash "$SRC/.ci/debian13.sh"   # creates the root and its packages when missing
mkdir -p "$ROOT/opt"
exec 9> "$ROOT/opt/.gst-1.24.2.lock"
flock 9   # another checkout building the prefix right now: wait for it, then use its result
if current; then echo "gst-1.24.2: $ROOT$PREFIX is up to date"; exit 0; fi
echo "gst-1.24.2: building GStreamer 1.24.2 into $ROOT$PREFIX (from $TARBALL)"
t0=$(date +%s)
mkdir -p "$ROOT/var/tmp"
cp "$TARBALL" "$ROOT/var/tmp/gstreamer-1.24.2-src.tar.xz"
bash "$SRC/.ci/debian13.sh" bash .ci/gst-1.24.2.sh --inside /var/tmp/gstreamer-1.24.2-src.tar.xz "$stamp"
echo "gst-1.24.2: built in $(( $(date +%s) - t0 )) s"
