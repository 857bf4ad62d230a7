# SPDX-License-Identifier: LGPL-2.1-or-later
# lib.sh — sourced by the pipeline scripts: paths, the model, and gst-launch-1.0 (also through a
# GPU-host bundle, .ci/make-bundle.sh, whose tools may need the bundled loader).
PIPELINES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC_ROOT=$(dirname "$PIPELINES_DIR")
BUILD=${DLAINFER_BUILD_ROOT:-$SRC_ROOT/${BUILD_DIR:-build}}
export GST_PLUGIN_PATH_1_0=${GST_PLUGIN_PATH_1_0:-$BUILD/gst}
# DRY_RUN=print: everything as in a run (the same model, the same checks of the element), but each
# command line is printed and not run.
DRY_RUN=${DRY_RUN:-}

# gst_tool_argv NAME: TOOL=(the command that runs gst-launch-1.0 / gst-inspect-1.0): through
# $BUNDLE_EXE_WRAPPER when a bundle built in another C library's root is in use.
TOOL=()
gst_tool_argv() {
  local bundled=${GST_PLUGIN_SYSTEM_PATH_1_0:-}
  bundled=${bundled%/plugins}/bin/$1
  if [ -n "${BUNDLE_EXE_WRAPPER:-}" ] && [ -x "$bundled" ]; then
    # shellcheck disable=SC2206  # the wrapper is a command line: split on blanks
    TOOL=($BUNDLE_EXE_WRAPPER "$bundled")
  else
    TOOL=("$1")
  fi
}
# gst_tool NAME ARGS: runs it.
gst_tool() {
  gst_tool_argv "$1"; shift
  "${TOOL[@]}" "$@"
}
# (--atleast-version: without it, gst-inspect-1.0 --exists also wants the plugin's version to be at
# least the core's (1.22...), which dlainfer's 0.x never is.)
have_element() { gst_tool gst-inspect-1.0 --exists --atleast-version=0.0.0 "$1" 2>/dev/null; }

# have_property ELEMENT PROPERTY: whether gst-inspect-1.0 ELEMENT lists PROPERTY. The whole output is
# read first and searched after: `gst-inspect-1.0 ELEMENT | grep -q ...` under pipefail answered "no"
# at random (grep exits at its match, gst-inspect-1.0 dies of SIGPIPE writing the rest, and pipefail
# reports that 141).
have_property() {
  local text
  text=$(gst_tool gst-inspect-1.0 "$1" 2>/dev/null) || return 1
  grep -q -- "^  $2 " <<< "$text"
}

# MODEL/LABELS as given (a cuDLA loadable: the real DLA through JetPack's libcudla.so.1); when
# MODEL is unset, the colours model on swdla (software DLA on the GPU, for x86 hosts and dry runs).
use_model() {
  if [ -z "${MODEL:-}" ]; then
    MODEL=$BUILD/tests/data/colours.swdla
    LABELS=${LABELS:-$BUILD/tests/data/colours.labels}
    export DLAINFER_CUDLA_LIBRARY=${DLAINFER_CUDLA_LIBRARY:-$BUILD/tests/swdla/libcudla.so.1}
    [ -n "$DRY_RUN" ] || echo "note: MODEL not set: the colours model on swdla (a software DLA: results are not hardware results)" >&2
  fi
}

# The dlainfer element and the results on stdout: with the element's post-messages property
# (gst-launch-1.0 -m prints each message: labels and confidences), otherwise (a dlainfer without
# the property) an identity after it whose last-message (gst-launch-1.0 -v) names the meta on each
# buffer, and a note saying that no labels will be shown. RESULTS=FILE: each frame's results also
# as one JSON line appended to FILE, by dlapublish method=file (docs/publish.md).
INFER=() LAUNCH_OPTS=()
infer_element() {
  INFER=(dlainfer name=infer "model=$MODEL")
  [ -z "${LABELS:-}" ] || INFER+=("labels=$LABELS")
  [ -z "${DLA_CORE:-}" ] || INFER+=("dla-core=$DLA_CORE")
  [ -z "${MEAN:-}" ] || INFER+=("mean=$MEAN")
  [ -z "${STD:-}" ] || INFER+=("std=$STD")
  if have_property dlainfer post-messages; then
    INFER+=(post-messages=true)
    LAUNCH_OPTS=(-m)
  else
    echo "note: gst-inspect-1.0 finds no dlainfer with post-messages (GST_PLUGIN_PATH_1_0=$GST_PLUGIN_PATH_1_0): results shown as the meta's name only (identity, -v)" >&2
    INFER+=(! identity name=results silent=false)
    LAUNCH_OPTS=(-v)
  fi
  [ -z "${RESULTS:-}" ] || INFER+=(! dlapublish name=publish method=file "file-path=$RESULTS")
}

# shell_words ARGS: the arguments as one line that bash reads back as the same arguments (quoted
# only where needed).
shell_words() {
  local a line=''
  for a in "$@"; do
    if [ "$a" = '!' ] || [[ -n $a && $a != *[!A-Za-z0-9_./:=,+@%^-]* ]]; then
      line+=" $a"
    else
      line+=" '${a//\'/\'\\\'\'}'"
    fi
  done
  echo "${line# }"
}

# launch_command ELEMENTS...: LAUNCH=(the one command line that runs the pipeline): the environment
# these scripts set (env GST_PLUGIN_PATH_1_0=... [DLAINFER_CUDLA_LIBRARY=...]), gst-launch-1.0,
# -e, LAUNCH_OPTS, ELEMENTS. Printed and run as it is, so a printed line runs the same pipeline.
LAUNCH=()
launch_command() {
  LAUNCH=(env "GST_PLUGIN_PATH_1_0=$GST_PLUGIN_PATH_1_0")
  [ -z "${DLAINFER_CUDLA_LIBRARY:-}" ] || LAUNCH+=("DLAINFER_CUDLA_LIBRARY=$DLAINFER_CUDLA_LIBRARY")
  gst_tool_argv gst-launch-1.0
  LAUNCH+=("${TOOL[@]}" -e "${LAUNCH_OPTS[@]}" "$@")
}

# missing_cuda_element NAME: why the nvcodec element NAME (cudaupload, nvh264dec) is missing and
# which package has it, in one line (the same words as the example programs).
missing_cuda_element() {
  if gst_tool gst-inspect-1.0 nvcodec >/dev/null 2>&1; then
    echo "the $1 element is missing: the nvcodec plugin (gstreamer1.0-plugins-bad) is installed but registers it only where a CUDA GPU and the NVIDIA driver are (GST_DEBUG=nvcodec:5 gst-inspect-1.0 nvcodec says why)"
  else
    echo "the $1 element is missing: it is in the nvcodec plugin of gstreamer1.0-plugins-bad (apt-get install gstreamer1.0-plugins-bad; GStreamer 1.24 on a Jetson: build gst-plugins-bad with -Dnvcodec=enabled)"
  fi
}

# run_pipeline ELEMENTS...: prints the command line ("pipeline: ..."); runs it unless DRY_RUN=print.
# An nvcodec element that is not installed is named first, with its package (gst-launch-1.0 would
# only say: no element "cudaupload").
run_pipeline() {
  launch_command "$@"
  echo "pipeline: $(shell_words "${LAUNCH[@]}")"
  [ "$DRY_RUN" = print ] && return 0
  local e
  for e in cudaupload nvh264dec; do
    if [[ " $* " == *" $e "* ]] && ! have_element "$e"; then
      echo "${0##*/}: $(missing_cuda_element "$e")" >&2
      return 1
    fi
  done
  "${LAUNCH[@]}"
}
