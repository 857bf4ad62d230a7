#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# jetson-camera.sh — Jetson AGX Orin: a CSI camera (nvarguscamerasrc) classified live on the DLA.
#
#   nvarguscamerasrc ! video/x-raw(memory:NVMM),width=1920,height=1080,framerate=30/1,format=NV12
#     ! dlainfer ! fakesink
#
# dlainfer reads the camera's NVMM surfaces in place (docs/nvmm.md). NVMM=0: the copy path instead,
# nvvidconv ! video/x-raw,format=NV12 ! cudaupload (to compare the CPU per frame).
#
# Shows: a live source at 30 fps (the DLA answers well within a frame period, so no frame is dropped
# and sink synchronisation stays on); the result of each frame is printed (-m with post-messages,
# otherwise the meta's name with -v). FRAMES (default 300) frames, then end of stream (-e).
#
#   MODEL=net.loadable LABELS=labels.txt [SENSOR_ID=0] [DLA_CORE=1] [NVMM=0] bash pipelines/jetson-camera.sh
#
# DRY_RUN=1: on any CUDA machine, a live videotestsrc stands in for nvarguscamerasrc and identity for
# nvvidconv, with the colours model on swdla, through cudaupload (how the script is tested; not run on
# a Jetson here).
# DRY_RUN=print: print the command line that the same environment would run (MODEL is needed as for a
# run), and do not run it.
# RESULTS=FILE: each frame's results also appended to FILE as one JSON line (dlapublish method=file,
# docs/publish.md), for a program that reads them; post-messages printing stays.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FRAMES=${FRAMES:-300}
if [ "$DRY_RUN" = 1 ]; then
  use_model
  head=(videotestsrc is-live=true "num-buffers=$FRAMES" "pattern=${PATTERN:-blue}"
        ! video/x-raw,width=1920,height=1080,framerate=30/1,format=NV12 ! identity name=nvvidconv-standin)
else
  [ -n "${MODEL:-}" ] || { echo "jetson-camera.sh: set MODEL to a cuDLA loadable (pipelines/build-loadable.sh)" >&2; exit 2; }
  head=(nvarguscamerasrc "sensor-id=${SENSOR_ID:-0}" "num-buffers=$FRAMES"
        ! 'video/x-raw(memory:NVMM),width=1920,height=1080,framerate=30/1,format=NV12')
  [ "${NVMM:-1}" = 0 ] && head+=(! nvvidconv)
fi
into=()
if [ "$DRY_RUN" = 1 ] || [ "${NVMM:-1}" = 0 ]; then
  into=(! video/x-raw,format=NV12 ! cudaupload ! 'video/x-raw(memory:CUDAMemory)')
fi
infer_element
run_pipeline "${head[@]}" "${into[@]}" ! "${INFER[@]}" ! fakesink
