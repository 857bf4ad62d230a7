#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# x86-h264.sh [CLIP.mp4] — an x86 host with an NVIDIA GPU: H.264 decoded by NVDEC straight into
# CUDA memory and classified by dlainfer.
#
#   filesrc ! qtdemux ! h264parse ! nvh264dec ! video/x-raw(memory:CUDAMemory) ! dlainfer ! fakesink
#
# Shows: the decoder's output stays on the GPU (CUDA memory, in the primary context dlainfer offers
# to its neighbours), dlainfer reads it in place and attaches a result to every frame; printed per
# frame (-m with post-messages=true, or the meta's name with -v).
# Without CLIP it first makes one, CLIP_DIR/test-clip-PATTERN.mp4 (CLIP_DIR: $BUILD/pipelines;
# FRAMES frames of videotestsrc pattern PATTERN, default red, 640x360) with x264enc (Debian:
# gstreamer1.0-plugins-ugly).
# MODEL/LABELS: a cuDLA loadable; unset: the colours model on swdla (software DLA: an x86 GPU has no
# DLA, so these are not hardware results). DRY_RUN=print: print the two command lines that the same
# environment would run, and run neither.
# RESULTS=FILE: each frame's results also appended to FILE as one JSON line (dlapublish method=file,
# docs/publish.md), for a program that reads them; post-messages printing stays.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FRAMES=${FRAMES:-60}
PATTERN=${PATTERN:-red}
use_model
clip=${1:-}
if [ -z "$clip" ]; then
  clip=${CLIP_DIR:-$BUILD/pipelines}/test-clip-$PATTERN.mp4
  if [ "$DRY_RUN" != print ]; then
    have_element x264enc || { echo "x86-h264.sh: x264enc is missing (Debian: gstreamer1.0-plugins-ugly), needed for the test clip" >&2; exit 4; }
    mkdir -p "$(dirname "$clip")"
  fi
  LAUNCH_SAVED=("${LAUNCH_OPTS[@]}") LAUNCH_OPTS=(-q)
  run_pipeline videotestsrc "num-buffers=$FRAMES" "pattern=$PATTERN" ! video/x-raw,width=640,height=360,framerate=30/1 \
    ! videoconvert ! x264enc speed-preset=ultrafast key-int-max=30 ! video/x-h264,profile=high ! h264parse \
    ! mp4mux ! filesink "location=$clip"
  LAUNCH_OPTS=("${LAUNCH_SAVED[@]}")
fi
if [ "$DRY_RUN" != print ]; then
  have_element nvh264dec || { echo "x86-h264.sh: nvh264dec is missing (GStreamer's nvcodec plugin found no NVDEC here)" >&2; exit 4; }
fi
infer_element
run_pipeline filesrc "location=$clip" ! qtdemux ! h264parse ! nvh264dec ! 'video/x-raw(memory:CUDAMemory)' \
  ! "${INFER[@]}" ! fakesink sync=false
