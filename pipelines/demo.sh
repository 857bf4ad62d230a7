#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# demo.sh — the README's first command:   sudo bash pipelines/demo.sh
#
# Installs what is missing (.ci/install-deps.sh, apt-get), builds what the demo needs into build/,
# checks for a CUDA device (one line and exit 3 without one: first, in seconds, whether there is an
# NVIDIA GPU and a loaded driver at all; after the build, CUDA itself), then runs one of three demos.
#
# Default, DEMO=faces: a clip made from face-api's sample photographs (pans and zooms, faces
# entering and leaving; tools/models/face_api_prepare.py makes it, converts face-api's networks and
# runs face-api itself in Node on every decoded frame, once, into FACES_DIR), then
# pipelines/faces-demo.cpp:
#
#   filesrc ! qtdemux ! h264parse ! nvh264dec ! dladetect (TinyFaceDetector, DLA core 0) ! dlatrack
#     ! dlainfer inference-region=roi-list (FaceExpressionNet, core 1, reclassify-interval=5)
#     ! cudadownload ! [boxes, track ids, labels] ! tee ! pngenc (every 10th frame), x264enc ! mp4mux
#
# One line per frame (each face's track id and expression), PNG frames in build/demo-frames, the
# clip drawn in build/faces-demo.mp4, then pipelines/faces-check.py: every confirmed track's
# expression must be face-api's majority expression over the track's frames (exit 1 if not).
#
# DEMO=colours (and whenever MODEL is set): videotestsrc (8 solid colours, cycling) ! NV12
# ! cudaupload ! dlainfer (the `colours` model) ! cudadownload ! textoverlay ! pngenc
# (pipelines/demo.cpp): one line per frame, the first frame of each colour as a PNG, every label
# checked against the colour painted.
# On a Jetson, with a loadable:  sudo MODEL=net.loadable LABELS=labels.txt bash pipelines/demo.sh
# runs that demo on the real DLA through JetPack's libcudla.so.1 (optional MEAN="<...>" STD="<...>"
# DLA_CORE=1 for the model's normalisation and the second core).
#
# DEMO=objects (or OBJECTS=1): the objects demo (pipelines/objects-demo.cpp, docs/objects.md): an
# example detector boxes the seven bars of videotestsrc pattern=smpte, dlainfer
# inference-region=roi-list classifies each box, every PNG_EVERY'th frame (8) is written.
#
# Without MODEL the networks run on swdla, the software DLA of tests/swdla, with CUDA kernels: the
# answers come from the GPU, not from a DLA.
#
# Environment: FRAMES (32; 16 for objects), PER_COLOUR (4), PNG_DIR (build/demo-frames), PNG_EVERY,
# FACES_DIR (build/faces-demo), BUILD_DIR (build), DEMO_SKIP_SETUP=1 (no install, no build, no
# preparation: for machines without package access, the GPU host, and the tests).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=$(realpath -m "${BUILD_DIR:-build}")
demo=${DEMO:-faces}
[ "${OBJECTS:-0}" != 1 ] || demo=objects
[ -z "${MODEL:-}" ] || [ "$demo" = objects ] || demo=colours
case $demo in
  faces | colours | objects) ;;
  *) echo "demo: DEMO=$demo is none of faces (the default), colours, objects"; exit 2 ;;
esac
FACES_DIR=$(realpath -m "${FACES_DIR:-$BUILD/faces-demo}")

# Seconds, before any install or build: is there an NVIDIA GPU at all, and is its driver loaded?
# (The build takes minutes; cuda-probe below then asks CUDA itself.) DEMO_PROBE_ROOT: a folder
# standing in for / (the tests).
works_anyway="the tests run without a GPU (sudo bash tests/run-tests.sh), as do gst-inspect-1.0 dlainfer and dlainfer-inspect"
gpu_probe() {
  local root=${DEMO_PROBE_ROOT:-} f nvidia_pci=0
  # Jetson: the integrated GPU has no PCI entry and no /dev/nvidia0.
  for f in /etc/nv_tegra_release /dev/nvhost-ctrl-gpu /dev/nvgpu; do
    [ ! -e "$root$f" ] || return 0
  done
  for f in "$root"/sys/bus/pci/devices/*; do
    [ "$(cat "$f/vendor" 2>/dev/null)" = 0x10de ] && [[ $(cat "$f/class" 2>/dev/null) == 0x03* ]] && nvidia_pci=1
  done
  local nodes=("$root"/dev/nvidia[0-9]*)
  if [ -e "${nodes[0]}" ] || [ -d "$root/proc/driver/nvidia" ]; then
    return 0
  fi
  if [ "$nvidia_pci" = 1 ]; then
    echo "demo: needs a CUDA device: this machine has an NVIDIA GPU but its driver is not loaded (no /dev/nvidia0, no /proc/driver/nvidia): install the NVIDIA driver (nvidia-smi must list the GPU); meanwhile $works_anyway"
  else
    echo "demo: needs a CUDA device: this machine has no NVIDIA GPU (no NVIDIA PCI device, no /dev/nvidia*); $works_anyway"
  fi
  exit 3
}
gpu_probe

if [ "${DEMO_SKIP_SETUP:-0}" != 1 ]; then
  bash .ci/install-deps.sh
  export PATH=/usr/local/cuda/bin:$PATH
  mkdir -p "$BUILD"
  log=$BUILD/demo-build.log
  echo "demo: building into ${BUILD_DIR:-build} (log: $log)"
  targets=(gst/libgstdlainfer.so pipelines/dlainfer-demo pipelines/dlainfer-objects-demo pipelines/dlainfer-faces-demo
    pipelines/cuda-probe)
  [ -n "${MODEL:-}" ] || targets+=(tests/swdla/libcudla.so.1 tests/swdla/swdla-models.stamp)
  if ! { [ -f "$BUILD/build.ninja" ] || bash tools/setup-build.sh "$BUILD"; } >"$log" 2>&1 \
     || ! ninja -C "$BUILD" "${targets[@]}" >>"$log" 2>&1; then
    tail -n 30 "$log"
    echo "demo: the build failed (full log: $log)"
    exit 1
  fi
fi

declare -A PROGRAM=([faces]=dlainfer-faces-demo [colours]=dlainfer-demo [objects]=dlainfer-objects-demo)
program=${PROGRAM[$demo]}
for f in "$BUILD/pipelines/cuda-probe" "$BUILD/pipelines/$program"; do
  [ -x "$f" ] || { echo "demo: $f is missing: build first (bash tools/setup-build.sh $BUILD && ninja -C $BUILD)"; exit 1; }
done
# (A GPU-host bundle built in another C library's root runs binaries through its loader.)
run=${BUNDLE_EXE_WRAPPER:-}
probe=$($run "$BUILD/pipelines/cuda-probe" 2>&1) ||
  { echo "demo: needs a CUDA device: ${probe#no CUDA device: }; meanwhile $works_anyway"; exit 3; }

export GST_PLUGIN_PATH_1_0=$BUILD/gst${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}
[ -n "${MODEL:-}" ] || export DLAINFER_CUDLA_LIBRARY=${DLAINFER_CUDLA_LIBRARY:-$BUILD/tests/swdla/libcudla.so.1}
if [ "$demo" = faces ]; then
  . pipelines/faces-demo.sh
  exit
fi
args=(--png-dir "${PNG_DIR:-$BUILD/demo-frames}")
if [ "$demo" = objects ]; then
  args+=(--frames "${FRAMES:-16}" --png-every "${PNG_EVERY:-8}")
else
  args+=(--frames "${FRAMES:-32}" --per-colour "${PER_COLOUR:-4}")
fi
if [ -n "${MODEL:-}" ]; then
  args+=(--model "$MODEL")
  [ -z "${LABELS:-}" ] || args+=(--labels "$LABELS")
  [ -z "${MEAN:-}" ] || args+=(--set "mean=$MEAN")
  [ -z "${STD:-}" ] || args+=(--set "std=$STD")
  echo "demo: $MODEL on DLA core ${DLA_CORE:-0} (${DLAINFER_CUDLA_LIBRARY:-libcudla.so.1 from JetPack})"
else
  data=$BUILD/tests/data
  args+=(--model "$data/colours.swdla" --labels "$data/colours.labels" --expect-colours)
  echo "demo: the colours model on swdla (software DLA on the GPU: not hardware results)"
fi
args+=(--set "dla-core=${DLA_CORE:-0}")
exec $run "$BUILD/pipelines/$program" "${args[@]}"
