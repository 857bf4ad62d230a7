#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# debian13.sh COMMAND...  — runs COMMAND inside a Debian 13 (trixie) root with GStreamer 1.26.
#
# Creates the root with debootstrap on first use (DLAINFER_DEBIAN13_ROOT, default
# /var/cache/gst-dlainfer/trixie), installs the build packages when missing, bind-mounts the CUDA
# toolkit at /usr/local/cuda and this checkout at the same absolute path, runs COMMAND from the
# checkout, and unmounts again. Run as root.
set -euo pipefail
# Each run gets its own mount namespace: its bind mounts vanish with it, and two runs at once (two
# checkouts, or a build beside a test) never unmount each other's /proc.
if [ -z "${DLAINFER_IN_MOUNT_NS:-}" ]; then
  DLAINFER_IN_MOUNT_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
ROOT=${DLAINFER_DEBIAN13_ROOT:-/var/cache/gst-dlainfer/trixie}
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CUDA=$(realpath /usr/local/cuda)
PKGS="meson ninja-build g++ ccache pkg-config libgtest-dev python3 python3-numpy python3-pil python3-onnx python3-onnxruntime nodejs \
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev \
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad \
  gstreamer1.0-x gstreamer1.0-plugins-ugly fonts-dejavu-core \
  gobject-introspection libgirepository1.0-dev python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0 \
  libmosquitto-dev mosquitto python3-jsonschema openssl clang libclang-rt-dev"

if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
  echo "debian13: creating $ROOT with debootstrap (trixie, minbase)"
  # An interrupted debootstrap can leave its /proc and /sys mounted there: unmount before removing.
  findmnt -Rrno TARGET "$ROOT" 2>/dev/null | sort -r | xargs -r umount -l 2>/dev/null || true
  rm -rf --one-file-system "$ROOT"; mkdir -p "$ROOT"
  t=$(date +%s)
  debootstrap --variant=minbase trixie "$ROOT" http://deb.debian.org/debian >/dev/null
  echo "debian13: debootstrap took $(( $(date +%s) - t )) s"
fi

bind() {  # bind SRC DST-inside-root (private to this run's mount namespace)
  mkdir -p "$ROOT$2"
  mountpoint -q "$ROOT$2" || mount --bind "$1" "$ROOT$2"
}
bind /proc /proc
bind /dev /dev
bind /dev/pts /dev/pts
bind /sys /sys
bind "$CUDA" /usr/local/cuda
bind "$SRC" "$SRC"
# The preprocessing oracle's photographs, fetched by .ci/install-deps.sh (the tests look there).
[ ! -d /var/cache/gst-dlainfer/skimage ] || bind /var/cache/gst-dlainfer/skimage /var/cache/gst-dlainfer/skimage
# face-api and TensorFlow.js (tests/models/fetch-face-api.sh): the real-model checks, run by the root's nodejs.
[ ! -d /var/cache/gst-dlainfer/face-api ] || bind /var/cache/gst-dlainfer/face-api /var/cache/gst-dlainfer/face-api
# ONNX Runtime for Node (tests/tools/fetch-onnxruntime-node.sh): dlainfer-prep's decode check.
[ ! -d /var/cache/gst-dlainfer/onnxruntime-node ] ||
  bind /var/cache/gst-dlainfer/onnxruntime-node /var/cache/gst-dlainfer/onnxruntime-node
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true

missing=$(chroot "$ROOT" dpkg-query -W -f='${Package} ${Status}\n' $PKGS 2>/dev/null | grep -c 'install ok installed' || true)
if [ "$missing" != "$(echo $PKGS | wc -w)" ]; then
  echo "debian13: installing build packages"
  t=$(date +%s)
  # Colleagues' runs may hold the root's dpkg lock: wait for it rather than fail.
  chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive sh -c \
    "apt-get -o DPkg::Lock::Timeout=300 update -qq && apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends $PKGS" >/dev/null
  echo "debian13: packages installed in $(( $(date +%s) - t )) s"
fi
[ $# -gt 0 ] || exit 0
# ccache (found by Meson) is shared by every build in the root: CI's 1.26 and 1.24.2 builds compile
# the same sources apart from the GStreamer-facing ones. Without the directory in the hash, the
# second build hits the first one's objects (their debug info names the first build's directory).
chroot "$ROOT" env -i HOME=/root PATH=/usr/local/cuda/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  CCACHE_DIR=/var/cache/ccache CCACHE_NOHASHDIR=1 CCACHE_BASEDIR="$SRC" \
  LANG=C.UTF-8 CI="${CI:-}" bash -c 'cd "$1" && shift && exec "$@"' _ "$SRC" "$@"
