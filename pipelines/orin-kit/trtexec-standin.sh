#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# trtexec stand-in for the Orin kit's dry run (DRY_RUN=1 pipelines/orin-acceptance.sh) on x86 hosts.
# --onnx=DIR/NAME.onnx --saveEngine=OUT: "builds" by copying the swdla model NAME.swdla from
# STANDIN_MODELS (a loadable for swdla); like the DLA, it refuses a twin with a kernel larger than
# 32 (make_twins.py's uneven-cell masks, initializers named cellmask*). --loadEngine: prints a
# throughput line in trtexec's words. Never used on a Jetson.
set -u
onnx='' save='' load=''
for a in "$@"; do
  case $a in
    --onnx=*) onnx=${a#--onnx=} ;;
    --saveEngine=*) save=${a#--saveEngine=} ;;
    --loadEngine=*) load=${a#--loadEngine=} ;;
  esac
done
echo "&&&& RUNNING TensorRT.trtexec [TensorRT v110401] (stand-in) # trtexec $*"
[ -n "$onnx$load" ] || exit 0  # --help: the banner (build-loadable.sh reads the version from it)
if [ -n "$load" ]; then
  [ -f "$load" ] || { echo "[E] cannot read $load"; exit 1; }
  echo "[I] Throughput: 1000.0 qps"
  echo "&&&& PASSED TensorRT.trtexec (stand-in)"
  exit 0
fi
name=$(basename "$onnx" .onnx)
if grep -q cellmask "$onnx"; then
  echo "[E] Error[2]: [standalone] Layer cells: kernel size exceeds the DLA's 32 (stand-in)"
  echo "&&&& FAILED TensorRT.trtexec (stand-in)"
  exit 1
fi
cp "${STANDIN_MODELS:?}/$name.swdla" "$save" || exit 1
echo "&&&& PASSED TensorRT.trtexec (stand-in)"
