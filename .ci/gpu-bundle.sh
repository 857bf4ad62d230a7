#!/bin/bash
# gpu-bundle.sh — packs both builds for a GPU host without GStreamer (../shared/gpu-host/README.md):
#   build      (native, GStreamer 1.22)  -> .gpu-bundle
#   build-126  (Debian 13 root, 1.26)    -> .gpu-bundle-126
# Test binaries are stripped so build dirs + bundles fit what one device call can carry.
set -euo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MAKE_BUNDLE=${MAKE_BUNDLE:-$SRC/../shared/gpu-host/make-bundle.sh}
ROOT=${DLAINFER_DEBIAN13_ROOT:-/var/cache/gst-dlainfer/trixie}
cd "$SRC"
# pipelines/ and their tests: x264enc (test clip), textoverlay (pango) and pngenc/multifilesink (demo).
export GPU_BUNDLE_PLUGINS="${GPU_BUNDLE_PLUGINS:-} x264 pango png multifile"
strip_build() {
  find "$1" -type f \( -perm -u+x -o -name '*.so*' \) -not -path '*/meson-private/*' -not -name '*.py' \
    -not -name '*.sh' -exec sh -c 'head -c4 "$1" | grep -q ELF && strip --strip-debug "$1"' _ {} \;
}
if [ -d build ]; then
  strip_build build
  bash "$MAKE_BUNDLE" build .gpu-bundle
fi
if [ -d build-126 ]; then
  strip_build build-126
  mkdir -p "$ROOT$SRC"
  mountpoint -q "$ROOT$SRC" || { mount --bind "$SRC" "$ROOT$SRC"; trap 'umount -l "$ROOT$SRC"' EXIT; }
  bash "$MAKE_BUNDLE" --root "$ROOT" build-126 .gpu-bundle-126
fi
# One compressed archive of what the GPU suites need (object files left out), so both builds travel
# in one device call: carry .gpu-carry.tar.gz and run `tar xzf .gpu-carry.tar.gz` there first.
dirs=()
for d in build .gpu-bundle build-126 .gpu-bundle-126; do [ -d "$d" ] && dirs+=("$d"); done
# GPU_HOST_BENCH="name ..." (as for gpu-host-run.sh): only those benchmarks' programs travel, so that
# both builds stay within what one call carries.
skip=()
if [ -n "${GPU_HOST_BENCH:-}" ]; then
  for exe in build*/tests/bench-*; do
    name=${exe##*/bench-}
    [[ ! -f $exe || $name == *.* || " $GPU_HOST_BENCH " == *" $name "* ]] \
      || skip+=(--exclude="tests/bench-$name")
  done
fi
tar czf .gpu-carry.tar.gz "${skip[@]}" --exclude='*.o' --exclude='*.a' --exclude='tests/unit-*' \
  --exclude='meson-private/cmake_*' --exclude='meson-private/__CMake*' --exclude='meson-logs/*' --exclude='*.p/*.cu.o' "${dirs[@]}"
du -sh .gpu-carry.tar.gz | awk '{print "gpu-bundle: " $1 " in " $2}'
