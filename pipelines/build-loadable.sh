#!/bin/bash
# build-loadable.sh MODEL.onnx [OUT.loadable] [DLA_CORE]
#
# Turns a fixed-shape FP16 ONNX classifier into a cuDLA loadable for dlainfer, on a Jetson AGX
# Orin with JetPack 7.2.2+ (TensorRT 11.4.1 brings DLA back; 11.0-11.3 have none).
#
#  - TensorRT 11 infers precision from the model (no --fp16/--int8): export the ONNX in FP16
#    (or with Q/DQ nodes for INT8) and with fixed shapes (batch 1 for full-frame classification).
#  - --buildDLAStandalone writes a raw DLA loadable for cuDLA, not a TensorRT engine; it implies no
#    GPU fallback, so every layer must run on the DLA. DLA supports fewer layers than the GPU: cut
#    unsupported first/last layers (e.g. a Softmax or a Reshape at the end, a Cast or a
#    normalisation at the start) out of the graph, for instance with
#      python3 -c "import onnx.utils; onnx.utils.extract_model('in.onnx', 'cut.onnx', ['input'], ['logits'])"
#    dlainfer does the resize/colour/normalisation itself and applies softmax on the host.
#  - I/O formats are baked in: fp16:chw16 is what dlainfer's kernel writes first; fp16:dla_linear,
#    fp16:dla_hwc4 (input) and int8 variants work too (see the README): IN_FORMAT=int8:dla_hwc4
#    OUT_FORMAT=fp16:dla_linear choose them (the type must match the strongly typed ONNX's).
set -euo pipefail
onnx=${1:?usage: build-loadable.sh MODEL.onnx [OUT.loadable] [DLA_CORE]}
out=${2:-${onnx%.onnx}.loadable}
core=${3:-0}
TRTEXEC=${TRTEXEC:-/usr/src/tensorrt/bin/trtexec}
command -v "$TRTEXEC" >/dev/null || { echo "trtexec not found at $TRTEXEC (set TRTEXEC); it ships with TensorRT on JetPack" >&2; exit 1; }
set -x
"$TRTEXEC" --onnx="$onnx" --useDLACore="$core" \
  --inputIOFormats="${IN_FORMAT:-fp16:chw16}" --outputIOFormats="${OUT_FORMAT:-fp16:chw16}" \
  --buildDLAStandalone --saveEngine="$out"
