#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# build-loadable.sh MODEL.onnx [OUT.loadable] [DLA_CORE]
#
# Turns a fixed-shape ONNX classifier into a cuDLA loadable for dlainfer with TensorRT's trtexec on
# a Jetson (OUT: MODEL.loadable, DLA_CORE: 0). It prints the TensorRT version it found and the exact
# trtexec command line, then runs it. One recipe per TensorRT generation:
#
#  - TensorRT 11 (JetPack 7.2.2+: TensorRT 11.4.1 brings DLA back; 11.0-11.3 have none): networks
#    are strongly typed, so the precision comes from the ONNX itself (no --fp16/--int8: TensorRT 11
#    removed them). Export the ONNX in FP16, or with Q/DQ nodes for INT8; the I/O types must match
#    IN_FORMAT/OUT_FORMAT:
#      trtexec --onnx=M.onnx --useDLACore=0 --inputIOFormats=fp16:chw16 --outputIOFormats=fp16:chw16
#              --buildDLAStandalone --saveEngine=M.loadable
#  - TensorRT 8.5 to 10 (JetPack 5.1 and 6): the precision comes from flags: always --fp16, and
#    --int8 as well when a format is int8, when CALIB names a calibration cache (--calib=CALIB) or
#    when INT8=1 (an ONNX with Q/DQ nodes and FP16 I/O):
#      trtexec --onnx=M.onnx --useDLACore=0 --fp16 --inputIOFormats=fp16:chw16
#              --outputIOFormats=fp16:chw16 --buildDLAStandalone --saveEngine=M.loadable
#
# Environment:
#   IN_FORMAT, OUT_FORMAT  the loadable's I/O formats (default fp16:chw16, what dlainfer's kernel
#                          writes first). Inputs: fp16:chw16 fp16:dla_linear fp16:dla_hwc4 int8:chw32
#                          int8:dla_linear int8:dla_hwc4; outputs: the same without dla_hwc4. An INT8
#                          model needs dlainfer's input-scale/output-scale (README).
#   TRTEXEC                trtexec (default: trtexec on PATH, else /usr/src/tensorrt/bin/trtexec)
#   TRT_VERSION            TensorRT's version (10, 10.3, 11.4.1...) instead of reading it from the
#                          banner of `trtexec --help` ("[TensorRT v110401]")
#   CALIB, INT8            TensorRT <= 10 only (above)
#   HEAD_FP16              TensorRT <= 10: layers (ONNX node names, comma-separated) kept FP16 in an
#                          INT8 build (--precisionConstraints=obey --layerPrecisions=L:fp16,...), as
#                          cuDLA-samples keeps a detector's head convolutions; dlainfer-prep prints it
# Exit: 0 written; 2 bad usage (no such ONNX file, unknown format, bad core); 3 trtexec missing or
# a TensorRT that cannot build loadables; else trtexec's own status.
#
# Either way: fixed shapes (batch 1 for full-frame classification). --buildDLAStandalone writes a
# raw DLA loadable for cuDLA, not a TensorRT engine; it implies no GPU fallback, so every layer must
# run on the DLA. DLA supports fewer layers than the GPU: cut unsupported first/last layers (e.g. a
# Softmax or a Reshape at the end, a Cast or a normalisation at the start) out of the graph, e.g.
#   python3 -c "import onnx.utils; onnx.utils.extract_model('in.onnx', 'cut.onnx', ['input'], ['logits'])"
# dlainfer does the resize/colour/normalisation itself and applies softmax on the host.
set -euo pipefail
me=build-loadable.sh
die() { echo "$me: $2" >&2; exit "$1"; }

[ $# -ge 1 ] && [ $# -le 3 ] || die 2 "usage: [IN_FORMAT=...] [OUT_FORMAT=...] $me MODEL.onnx [OUT.loadable] [DLA_CORE]"
onnx=$1
out=${2:-${onnx%.onnx}.loadable}
core=${3:-0}
[ -f "$onnx" ] || die 2 "no such ONNX file: $onnx"
[[ $core =~ ^[0-9]+$ ]] || die 2 "DLA_CORE must be a number (Orin: 0 or 1), not '$core'"
in_format=${IN_FORMAT:-fp16:chw16}
out_format=${OUT_FORMAT:-fp16:chw16}
inputs='fp16:chw16 fp16:dla_linear fp16:dla_hwc4 int8:chw32 int8:dla_linear int8:dla_hwc4'
outputs='fp16:chw16 fp16:dla_linear int8:chw32 int8:dla_linear'
[[ " $inputs " == *" $in_format "* ]] || die 2 "unknown IN_FORMAT '$in_format': one of $inputs"
[[ " $outputs " == *" $out_format "* ]] || die 2 "unknown OUT_FORMAT '$out_format': one of $outputs (dla_hwc4 is for inputs only)"

# The version's own checks: what it cannot build, and the arguments it does not take.
check_version() {
  if [ "$major" -lt 8 ] || { [ "$major" -eq 8 ] && [ -n "$minor" ] && [ "$minor" -lt 5 ]; }; then
    die 3 "TensorRT $version has no --buildDLAStandalone (TensorRT 8.5 or later is needed)"
  fi
  if [ "$major" -ge 11 ]; then
    [ -z "${CALIB:-}" ] || die 2 "CALIB: TensorRT $version has no calibration (strongly typed): quantise the ONNX with Q/DQ nodes"
    [ -z "${INT8:-}" ] || die 2 "INT8: TensorRT $version has no --int8: the precision comes from the ONNX"
    [ -z "${HEAD_FP16:-}" ] || die 2 "HEAD_FP16: TensorRT $version takes each layer's precision from the ONNX (leave the head layers unquantised)"
  fi
  if [ "$major" -eq 11 ] && [ -n "$minor" ] && [ "$minor" -lt 4 ]; then
    echo "$me: warning: TensorRT $version: DLA is supported again from 11.4.1 (11.0-11.3 have none)" >&2
  fi
}

# TensorRT's version: TRT_VERSION (checked with the other arguments, before trtexec is looked
# for), or the banner of `trtexec --help`, read whole (no early-exiting reader in a pipe):
# [TensorRT v110401] is 11.4.1, [TensorRT v100300] 10.3.0, [TensorRT v8601] 8.6.1.
if [ -n "${TRT_VERSION:-}" ]; then
  [[ $TRT_VERSION =~ ^([0-9]+)(\.([0-9]+))?(\.[0-9]+)?$ ]] ||
    die 2 "TRT_VERSION must look like 10, 10.3 or 11.4.1, not '$TRT_VERSION'"
  major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[3]:-}
  version=$TRT_VERSION source="TRT_VERSION"
  check_version
fi

if [ -z "${TRTEXEC:-}" ]; then
  TRTEXEC=$(command -v trtexec || echo /usr/src/tensorrt/bin/trtexec)
fi
command -v "$TRTEXEC" >/dev/null ||
  die 3 "trtexec not found at $TRTEXEC (set TRTEXEC; it ships with TensorRT: JetPack's is /usr/src/tensorrt/bin/trtexec)"

if [ -z "${TRT_VERSION:-}" ]; then
  banner=$("$TRTEXEC" --help 2>&1 || true)
  [[ $banner =~ \[TensorRT\ v([0-9]+)\] ]] ||
    die 3 "cannot tell TensorRT's version: \`$TRTEXEC --help\` prints no [TensorRT vNNNNNN]; set TRT_VERSION (e.g. 10 or 11.4.1)"
  code=$((10#${BASH_REMATCH[1]}))
  if [ "$code" -ge 100000 ]; then
    major=$((code / 10000)) minor=$((code / 100 % 100)) patch=$((code % 100))
  else
    major=$((code / 1000)) minor=$((code / 100 % 10)) patch=$((code % 100))
  fi
  version=$major.$minor.$patch source="$TRTEXEC --help"
  check_version
fi

cmd=("$TRTEXEC" "--onnx=$onnx" "--useDLACore=$core")
if [ "$major" -ge 11 ]; then
  recipe="TensorRT 11 (strongly typed: precision from the ONNX)"
else
  cmd+=(--fp16)
  if [[ $in_format == int8:* || $out_format == int8:* || -n ${CALIB:-} || ${INT8:-} == 1 ]]; then
    cmd+=(--int8)
    [ -z "${CALIB:-}" ] || cmd+=("--calib=$CALIB")
  fi
  recipe="TensorRT <= 10 (precision from --fp16/--int8)"
fi
cmd+=("--inputIOFormats=$in_format" "--outputIOFormats=$out_format")
if [ -n "${HEAD_FP16:-}" ]; then
  [[ $HEAD_FP16 =~ ^[^,:[:space:]]+(,[^,:[:space:]]+)*$ ]] ||
    die 2 "HEAD_FP16 must be layer names separated by commas (no spaces or colons), not '$HEAD_FP16'"
  cmd+=(--precisionConstraints=obey "--layerPrecisions=$(sed 's/,/:fp16,/g; s/$/:fp16/' <<<"$HEAD_FP16")")
fi
cmd+=(--buildDLAStandalone "--saveEngine=$out")

echo "$me: TensorRT $version (from $source): $recipe"
line=$(printf '%q ' "${cmd[@]}")
echo "$me: ${line% }"
"${cmd[@]}"
[ -s "$out" ] || die 1 "trtexec succeeded but wrote no $out"
echo "$me: wrote $out ($(stat -c %s "$out") bytes)"
