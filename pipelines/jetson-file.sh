#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# jetson-file.sh CLIP.mp4 — Jetson AGX Orin: an H.264 file through the hardware decoder into dlainfer.
#
#   filesrc ! qtdemux ! h264parse ! nvv4l2decoder ! video/x-raw(memory:NVMM),format=NV12
#     ! dlainfer ! fakesink
#
# Shows: NVDEC decodes into NVMM buffers (block-linear), which dlainfer reads in place: its one
# CUDA kernel samples the decoder's surface through textures (docs/nvmm.md), no copy; it classifies
# each frame on DLA core DLA_CORE; the result of every frame is printed (gst-launch-1.0 -m with
# post-messages=true, or the meta's name with -v). NVMM=0: the copy path instead,
# nvvidconv ! video/x-raw,format=NV12 ! cudaupload (to compare the CPU per frame).
#
#   MODEL=net.loadable LABELS=labels.txt [MEAN="<0.485,0.456,0.406>" STD="<0.229,0.224,0.225>"]
#   [DLA_CORE=1] [NVMM=0] bash pipelines/jetson-file.sh clip.mp4
#
# DRY_RUN=1: on any CUDA machine, videotestsrc stands in for filesrc..nvv4l2decoder and identity for
# nvvidconv, with the colours model on swdla, through cudaupload (no NVMM off a Jetson). (This is how the
# script is tested; it was not run on a Jetson here.) DRY_RUN=print: print the command line that the
# same environment would run (MODEL and CLIP are needed as for a run), and do not run it.
# RESULTS=FILE: each frame's results also appended to FILE as one JSON line (dlapublish method=file,
# docs/publish.md), for a program that reads them; post-messages printing stays.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FRAMES=${FRAMES:-60}
if [ "$DRY_RUN" = 1 ]; then
  use_model
  head=(videotestsrc "num-buffers=$FRAMES" "pattern=${PATTERN:-green}" ! video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1
        ! identity name=nvv4l2decoder-standin ! identity name=nvvidconv-standin)
else
  clip=${1:?usage: MODEL=... LABELS=... jetson-file.sh CLIP.mp4 (H.264 in MP4)}
  [ -n "${MODEL:-}" ] || { echo "jetson-file.sh: set MODEL to a cuDLA loadable (pipelines/build-loadable.sh)" >&2; exit 2; }
  head=(filesrc "location=$clip" ! qtdemux ! h264parse ! nvv4l2decoder)
  [ "${NVMM:-1}" = 0 ] && head+=(! nvvidconv)
fi
if [ "$DRY_RUN" = 1 ] || [ "${NVMM:-1}" = 0 ]; then
  into=(! video/x-raw,format=NV12 ! cudaupload ! 'video/x-raw(memory:CUDAMemory)')
else
  into=(! 'video/x-raw(memory:NVMM),format=NV12')
fi
infer_element
run_pipeline "${head[@]}" "${into[@]}" ! "${INFER[@]}" ! fakesink sync=false
