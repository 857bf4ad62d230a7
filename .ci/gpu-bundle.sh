#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# gpu-bundle.sh — packs the builds for a GPU host without GStreamer (.ci/make-bundle.sh):
#   build       (native, GStreamer 1.22)                        -> .gpu-bundle       (id 122)
#   build-126   (Debian 13 root, its packages' 1.26)            -> .gpu-bundle-126   (id 126)
#   build-1242  (Debian 13 root, /opt/gst-1.24.2 of gst-1.24.2.sh) -> .gpu-bundle-1242 (id 1242)
# Each build present (or those GPU_BUNDLE_BUILDS="122 126 1242" names) goes into its own archive
# .gpu-carry-ID.tar.xz, and all of them into .gpu-carry.tar.xz when together they fit the 64 MiB a
# device call carries; else carry one build's archive per call and run .ci/gpu-host-run.sh there
# with GPU_HOST_BUILDS=ID. xz -9, not gzip: each test program holds its own copy of the kernels' GPU
# code, which -9's 64 MiB window finds again; the native build packs to 51 MiB with xz -9, 59 MiB
# with xz -6, 93 MiB with gzip. The call carries the working tree too (about 4 MiB). Test binaries
# are stripped of debug info.
set -euo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MAKE_BUNDLE=$SRC/.ci/make-bundle.sh
ROOT=${DLAINFER_DEBIAN13_ROOT:-/var/cache/gst-dlainfer/trixie}
cd "$SRC"
# A device call carries 64 MiB: the archive and the working tree's tracked files.
LIMIT=$((64 * 1024 * 1024 - $(git ls-files -z | xargs -0 cat | wc -c)))
# pipelines/ and their tests: x264enc (test clip), textoverlay (pango) and pngenc/multifilesink (demo).
# The faces demo: openh264 (its decoder where NVDEC is not), analyticsoverlay (1.26's
# objectdetectionoverlay). The face-api suite: rawparse (rawvideoparse reads its RGBA frames).
export GPU_BUNDLE_PLUGINS="${GPU_BUNDLE_PLUGINS:-} x264 pango png multifile openh264 analyticsoverlay rawparse"
declare -A DIR=([122]=build [126]=build-126 [1242]=build-1242)
declare -A BUNDLE=([122]=.gpu-bundle [126]=.gpu-bundle-126 [1242]=.gpu-bundle-1242)
ids=()
for id in ${GPU_BUNDLE_BUILDS:-122 126 1242}; do
  [ -n "${DIR[$id]:-}" ] || { echo "gpu-bundle: unknown build id $id in GPU_BUNDLE_BUILDS (122, 126 or 1242)" >&2; exit 1; }
  if [ -d "${DIR[$id]}" ]; then ids+=("$id")
  elif [ -n "${GPU_BUNDLE_BUILDS:-}" ]; then echo "gpu-bundle: ${DIR[$id]} (build $id) does not exist; build it first (.ci/run)" >&2; exit 1
  fi
done
[ ${#ids[@]} -gt 0 ] || { echo "gpu-bundle: no build directory (build, build-126, build-1242) to pack; run .ci/run first" >&2; exit 1; }

# The faces demo's networks, clip and face-api's answers for it (tools/models/face_api_prepare.py;
# the GPU host has no Node, no onnx): prepared once here, a copy in each build as faces-demo/.
faces=${DLAINFER_FACES_DIR:-/var/cache/gst-dlainfer/faces-demo}
/usr/bin/python3 tools/models/face_api_prepare.py "$faces" ||
  { echo "gpu-bundle: could not prepare the faces demo in $faces (the line above says why): the demo will fail on the GPU host" >&2; faces=""; }

strip_build() {
  find "$1" -type f \( -perm -u+x -o -name '*.so*' \) -not -path '*/meson-private/*' -not -name '*.py' \
    -not -name '*.sh' -exec sh -c 'head -c4 "$1" | grep -q ELF && strip --strip-debug "$1"' _ {} \;
}
# The oracle's photographs travel in each build's test data: the GPU host cannot apt-get them.
photos=${DLAINFER_PHOTOS:-/var/cache/gst-dlainfer/skimage}
# The face-api suite's folder (tests/models/face_api_gpu_data.py: swdla models, frames, face-api's
# results from Node), made once here from the face-api cache: the host has no Node, onnx or cache.
# GPU_HOST_NO_SUITE="face-api" leaves it out (about 16 MiB compressed).
face_api=""
if [[ " ${GPU_HOST_NO_SUITE:-} " != *" face-api "* ]]; then
  face_api=$(mktemp -d)/face-api
  /usr/bin/python3 tests/models/face_api_gpu_data.py "$face_api" --skimage "$photos" || {
    echo "gpu-bundle: tests/models/face_api_gpu_data.py failed (above); fetch face-api (bash tests/models/fetch-face-api.sh) \
or leave the suite out with GPU_HOST_NO_SUITE=face-api" >&2; exit 1; }
fi
mounted=""
for id in "${ids[@]}"; do
  # CI's builds leave the GPU programs out (-Dgpu-suite=false) or compile for Orin alone (8.7): not
  # for the host, whose H200 runs 9.0 code (or PTX).
  /usr/bin/python3 - "${DIR[$id]}/meson-info/intro-buildoptions.json" <<'PY' || {
import json, sys
opts = {o['name']: o['value'] for o in json.load(open(sys.argv[1]))}
arch = opts.get('nvcc-arch', '')
sys.exit(0 if opts.get('gpu-suite', True) and opts.get('benchmarks') == 'enabled'
         and (arch == 'auto' or '9.0' in arch or 'PTX' in arch) else 1)
PY
    echo "gpu-bundle: ${DIR[$id]} is not a build for the GPU host (-Dgpu-suite=false, GPU code for 8.7 alone, \
or the GPU benchmarks left out on this machine without a device): \
bash tools/setup-build.sh ${DIR[$id]} -Dgpu-suite=true -Dnvcc-arch=auto -Dbenchmarks=enabled, build it, then bundle" >&2; exit 1; }
  strip_build "${DIR[$id]}"
  rm -rf "${DIR[$id]}/faces-demo"
  [ -z "$faces" ] || cp -r "$faces" "${DIR[$id]}/faces-demo"
  if ls "$photos"/*.png >/dev/null 2>&1; then
    mkdir -p "${DIR[$id]}/tests/data/skimage" && cp "$photos"/*.png "${DIR[$id]}/tests/data/skimage/"
  else
    echo "gpu-bundle: no oracle photographs in $photos (bash .ci/install-deps.sh fetches them): preprocess-oracle-gpu will fail there" >&2
  fi
  rm -rf "${DIR[$id]}/tests/data/face-api"
  [ -z "$face_api" ] || { mkdir -p "${DIR[$id]}/tests/data" && cp -r "$face_api" "${DIR[$id]}/tests/data/face-api"; }
  case $id in
    122) bash "$MAKE_BUNDLE" build .gpu-bundle ;;
    *)
      if [ -z "$mounted" ]; then
        mkdir -p "$ROOT$SRC"
        mountpoint -q "$ROOT$SRC" || { mount --bind "$SRC" "$ROOT$SRC"; trap 'umount -l "$ROOT$SRC"' EXIT; }
        mounted=1
      fi
      if [ "$id" = 126 ]; then bash "$MAKE_BUNDLE" --root "$ROOT" build-126 .gpu-bundle-126
      else
        [ -f "$ROOT/opt/gst-1.24.2/.dlainfer-stamp" ] || { echo "gpu-bundle: $ROOT/opt/gst-1.24.2 is no finished \
GStreamer 1.24.2 build (no .dlainfer-stamp), so build-1242 cannot have been built against it; run .ci/gst-1.24.2.sh" >&2; exit 1; }
        bash "$MAKE_BUNDLE" --root "$ROOT" --prefix /opt/gst-1.24.2 build-1242 .gpu-bundle-1242
      fi ;;
  esac
done

[ -z "$face_api" ] || rm -rf "$(dirname "$face_api")"

# GPU_HOST_BENCH="name ..." (as for gpu-host-run.sh): only those benchmarks' programs travel.
skip=()
if [ -n "${GPU_HOST_BENCH:-}" ]; then
  for exe in build*/tests/bench-*; do
    name=${exe##*/bench-}
    [[ ! -f $exe || $name == *.* || " $GPU_HOST_BENCH " == *" $name "* ]] \
      || skip+=(--exclude="tests/bench-$name")
  done
fi
# GPU_HOST_SUITE=0 (as for gpu-host-run.sh: no gpu suite, e.g. a call for the demos): the gpu test
# programs stay here, about half of a build's archive.
[ "${GPU_HOST_SUITE:-1}" = 1 ] || skip+=(--exclude='tests/gpu-*' --exclude='tests/*/gpu-*')
# GPU_HOST_NO_SUITE="orin-kit" (as for gpu-host-run.sh): the Orin kit's data stays here too (and
# with "face-api", the face-api folder, above).
[[ " ${GPU_HOST_NO_SUITE:-} " != *" orin-kit "* ]] || skip+=(--exclude='orin-kit')
# What the GPU suites need (object files, CPU test programs, logs, and the ONNX twins' copy that only
# the CPU test onnx-twins reads, left out: the orin kit's copy travels).
pack() {  # pack ARCHIVE DIR...
  tar cf - "${skip[@]}" --exclude='*.o' --exclude='*.a' --exclude='tests/unit-*' \
    --exclude='tests/tools/onnx-twins' --exclude='tests/models/face-api' --exclude='tests/fuzz/fuzz-*' \
    --exclude='meson-private/cmake_*' --exclude='meson-private/__CMake*' --exclude='meson-logs/*' \
    --exclude='*.p/*.cu.o' "${@:2}" | xz -9 -T0 >"$1"
  local size; size=$(stat -c %s "$1")
  echo "gpu-bundle: $1 $((size / 1024 / 1024)) MiB ($size bytes)$([ "$size" -le $LIMIT ] || echo ': OVER what one device call carries beside the working tree; carry the per-build archives instead')"
}
all=() total=0
rm -f .gpu-carry.tar.xz .gpu-carry-*.tar.xz
for id in "${ids[@]}"; do
  pack ".gpu-carry-$id.tar.xz" "${DIR[$id]}" "${BUNDLE[$id]}"
  all+=("${DIR[$id]}" "${BUNDLE[$id]}") total=$((total + $(stat -c %s ".gpu-carry-$id.tar.xz")))
done
if [ ${#ids[@]} -gt 1 ] && [ $total -le $LIMIT ]; then
  pack .gpu-carry.tar.xz "${all[@]}"
elif [ ${#ids[@]} -gt 1 ]; then
  echo "gpu-bundle: no .gpu-carry.tar.xz: the builds together ($((total / 1024 / 1024)) MiB) exceed the 64 MiB one device call carries; carry .gpu-carry-ID.tar.xz per call with GPU_HOST_BUILDS=ID"
else
  cp ".gpu-carry-${ids[0]}.tar.xz" .gpu-carry.tar.xz
fi
