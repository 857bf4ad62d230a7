# lib.sh — sourced by the pipeline scripts: paths, the model, and gst-launch-1.0 (also through a
# GPU-host bundle, .ci/make-bundle.sh, whose tools may need the bundled loader).
PIPELINES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC_ROOT=$(dirname "$PIPELINES_DIR")
BUILD=${DLAINFER_BUILD_ROOT:-$SRC_ROOT/${BUILD_DIR:-build}}
export GST_PLUGIN_PATH_1_0=${GST_PLUGIN_PATH_1_0:-$BUILD/gst}
DRY_RUN=${DRY_RUN:-}
if [ "$DRY_RUN" = print ]; then MODEL=${MODEL:-MODEL.loadable}; fi

# gst_tool NAME ARGS: runs gst-launch-1.0 / gst-inspect-1.0, through $BUNDLE_EXE_WRAPPER when a
# bundle built in another C library's root is in use.
gst_tool() {
  local tool=$1; shift
  local bundled=${GST_PLUGIN_SYSTEM_PATH_1_0:-}
  bundled=${bundled%/plugins}/bin/$tool
  if [ -n "${BUNDLE_EXE_WRAPPER:-}" ] && [ -x "$bundled" ]; then
    $BUNDLE_EXE_WRAPPER "$bundled" "$@"
  else
    "$tool" "$@"
  fi
}
have_element() { gst_tool gst-inspect-1.0 --exists "$1" 2>/dev/null; }

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
# (gst-launch-1.0 -m prints each message), otherwise an identity after it whose last-message
# (gst-launch-1.0 -v) names the meta on each buffer.
INFER=() LAUNCH_OPTS=()
infer_element() {
  INFER=(dlainfer name=infer "model=$MODEL")
  [ -z "${LABELS:-}" ] || INFER+=("labels=$LABELS")
  [ -z "${DLA_CORE:-}" ] || INFER+=("dla-core=$DLA_CORE")
  [ -z "${MEAN:-}" ] || INFER+=("mean=$MEAN")
  [ -z "${STD:-}" ] || INFER+=("std=$STD")
  if [ "$DRY_RUN" != print ] && gst_tool gst-inspect-1.0 dlainfer 2>/dev/null | grep -q '^  post-messages '; then
    INFER+=(post-messages=true)
    LAUNCH_OPTS=(-m)
  else
    INFER+=(! identity name=results silent=false)
    LAUNCH_OPTS=(-v)
  fi
}

# run_pipeline ELEMENTS...: prints the command; runs it unless DRY_RUN=print.
run_pipeline() {
  local a line="pipeline: gst-launch-1.0 -e ${LAUNCH_OPTS[*]}"
  for a in "$@"; do
    case $a in *[\ \(\)\<\>\;\&\|\"]*) line+=" '$a'" ;; *) line+=" $a" ;; esac
  done
  echo "$line"
  [ "$DRY_RUN" = print ] && return 0
  gst_tool gst-launch-1.0 -e "${LAUNCH_OPTS[@]}" "$@"
}
