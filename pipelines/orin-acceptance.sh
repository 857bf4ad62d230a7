#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# orin-acceptance.sh — the Orin kit: one command on a Jetson AGX Orin (JetPack 7.2.2+, TensorRT
# 11.4.1) that builds the ONNX twins of the swdla test models into DLA loadables, checks them through
# dlainfer and dlainfer-inspect on both DLA cores against the results of swdla's CPU executor, reads
# what the code records as unverified, probes cuDLA's unknown behaviours, and writes ONE report file.
#
#   bash pipelines/orin-acceptance.sh            (from a built checkout: bash tools/setup-build.sh build && ninja -C build)
#   REPORT=out.txt KIT=dir BUILD_DIR=build ULPS=4 bash pipelines/orin-acceptance.sh
#
# KIT: the twins, known inputs and expected results (default $BUILD/orin-kit, made by the build where
# python3-onnx is installed; on a Jetson without it, copy that folder from any x86 build).
# Report lines: "PASS|FAIL|XFAIL|INFO <check> <details>", "PROBE <name> key=value...", and a last
# line "SUMMARY pass=.. fail=.. xfail=.. probes=..". Exit 0 no FAIL, 1 some FAIL, 3 no JetPack /
# TensorRT / DLA (the report says which), 2 no kit or no build.
# DRY_RUN=1 (x86 CUDA host): swdla models stand in for loadables, swdla for libcudla, and
# pipelines/orin-kit/trtexec-standin.sh for trtexec; every step and probe runs, figures are swdla's.
# Tolerances: argmax equal; FP16 outputs within ULPS (default 4) FP16 ulps of the largest expected
# magnitude (at least 1.0); INT8 outputs within 1 quantisation step.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
KIT=${KIT:-$BUILD/orin-kit}
REPORT=${REPORT:-$PWD/orin-report-$(hostname)-$(date +%Y%m%d-%H%M%S).txt}
WORK=${WORK:-$(mktemp -d -t orin-kit.XXXXXX)}
ULPS=${ULPS:-4}
RUNS=${RUNS:-200}
INSPECT=${INSPECT:-$BUILD/tools/dlainfer-inspect}
npass=0 nfail=0 nxfail=0 nprobe=0
: > "$REPORT" || { echo "orin-acceptance: cannot write $REPORT" >&2; exit 2; }
say() { echo "$*" | tee -a "$REPORT"; }
result() {  # result PASS|FAIL|XFAIL|INFO CHECK DETAILS...
  case $1 in PASS) npass=$((npass + 1)) ;; FAIL) nfail=$((nfail + 1)) ;; XFAIL) nxfail=$((nxfail + 1)) ;; esac
  say "$*"
}
probe() { nprobe=$((nprobe + 1)); say "PROBE $*"; }
finish() {
  say "SUMMARY pass=$npass fail=$nfail xfail=$nxfail probes=$nprobe"
  echo "orin-acceptance: report in $REPORT (work files in $WORK); please send the report back (docs/orin-kit.md)" >&2
  exit "${1:-$([ $nfail -eq 0 ] && echo 0 || echo 1)}"
}
# field KEY < lines: the first KEY=VALUE's value. (Readers here take all their input: a reader that
# stops early, such as head or grep -q/-m1, kills the writer with SIGPIPE, and pipefail reports that.)
field() { grep -o "\(^\| \)$1=[^ ]*" | sed -n '1s/^[^=]*=//p'; }

say "# gst-dlainfer Orin acceptance report"
say "INFO date $(date -u +%Y-%m-%dT%H:%M:%SZ) host $(hostname) $(uname -srm)"
say "INFO source $(git -C "$SRC_ROOT" describe --always --dirty 2>/dev/null || echo unknown) dry_run=${DRY_RUN:-0}"

# --- environment ---------------------------------------------------------------------------------
[ -x "$INSPECT" ] || { result FAIL "environment: $INSPECT not built (bash tools/setup-build.sh build && ninja -C build)"; finish 2; }
[ -f "$KIT/manifest.json" ] || { result FAIL "environment: no kit at $KIT (build with python3-onnx installed, or copy build/orin-kit from an x86 build and set KIT)"; finish 2; }
if [ "${DRY_RUN:-}" = 1 ]; then
  export DLAINFER_CUDLA_LIBRARY=${DLAINFER_CUDLA_LIBRARY:-$BUILD/tests/swdla/libcudla.so.1}
  export TRTEXEC=${TRTEXEC:-$PIPELINES_DIR/orin-kit/trtexec-standin.sh}
  export STANDIN_MODELS=${STANDIN_MODELS:-$BUILD/tests/data}
  say "INFO environment dry run: swdla ($DLAINFER_CUDLA_LIBRARY) for libcudla, $TRTEXEC for trtexec: no hardware result below"
else
  TRTEXEC=${TRTEXEC:-/usr/src/tensorrt/bin/trtexec}
  missing=''
  l4t=$(head -1 /etc/nv_tegra_release 2>/dev/null || true)
  jp=$(dpkg-query -W -f='${Version}' nvidia-jetpack 2>/dev/null || true)
  [ -n "$l4t$jp" ] || missing+=' JetPack (no /etc/nv_tegra_release, no nvidia-jetpack package): this is not a Jetson;'
  command -v "$TRTEXEC" >/dev/null || missing+=" TensorRT (no trtexec at $TRTEXEC; set TRTEXEC);"
  grep -q 'libcudla.so.1' <<< "$(ldconfig -p 2>/dev/null)" || [ -n "${DLAINFER_CUDLA_LIBRARY:-}" ] || missing+=' cuDLA (no libcudla.so.1: JetPack ships it);'
  say "INFO jetpack ${jp:-unknown} l4t '${l4t:-unknown}'"
  if [ -n "$missing" ]; then
    result FAIL "environment missing:$missing run this on a Jetson AGX Orin with JetPack 7.2.2+ and TensorRT 11.4.1, or DRY_RUN=1 on an x86 CUDA host"
    finish 3
  fi
  say "INFO tensorrt $(grep -o 'TensorRT v[0-9]*' <<< "$("$TRTEXEC" --help 2>&1)" | sed -n 1p)"
fi
export DLAINFER_CUDLA_LIBRARY

mapfile -t TWINS < <(python3 "$PIPELINES_DIR/orin-kit/manifest.py" "$KIT")
[ ${#TWINS[@]} -gt 0 ] || { result FAIL "environment: $KIT/manifest.json lists no twins"; finish 2; }
say "INFO kit $KIT: ${#TWINS[@]} twins"

# --- build every twin into a loadable (pipelines/build-loadable.sh's recipe) ----------------------
declare -A LOADABLE
for line in "${TWINS[@]}"; do
  IFS=$'\t' read -r name onnx inf outf _ _ _ legal _ _ _ <<< "$line"
  if IN_FORMAT=$inf OUT_FORMAT=$outf TRTEXEC=$TRTEXEC bash "$PIPELINES_DIR/build-loadable.sh" "$KIT/$onnx" \
      "$WORK/$name.loadable" 0 > "$WORK/$name.build.log" 2>&1; then
    LOADABLE[$name]=$WORK/$name.loadable
    result PASS "build $name in=$inf out=$outf"
  elif [ "$legal" = 0 ]; then
    result XFAIL "build $name (not DLA-legal by design: $(grep -m1 -E '\[E\]|rror' "$WORK/$name.build.log" | cut -c1-160))"
  else
    result FAIL "build $name: $(grep -m1 -E '\[E\]|rror' "$WORK/$name.build.log" | cut -c1-200) (log $WORK/$name.build.log)"
  fi
done

# --- descriptors as the element reads them (the readings descriptor_map.cpp calls unconfirmed) ----
first=''
for line in "${TWINS[@]}"; do
  IFS=$'\t' read -r name _ inf outf _ _ _ _ _ _ _ <<< "$line"
  [ -n "${LOADABLE[$name]:-}" ] || continue
  out=$("$INSPECT" "${LOADABLE[$name]}" 2>&1); rc=$?
  if [ -z "$first" ]; then
    first=$name
    # cudlaGetVersion's encoding, cudlaSetTaskTimeoutInMs's presence, the core count (docs/cudla.md, what is unverified).
    probe "library $(grep '^library:' <<< "$out" | cut -d' ' -f3-) $(grep '^device:' <<< "$out" | sed 's/^device: //')"
  fi
  grep -E '^(input|output) |^  (raw|reading):' <<< "$out" | sed "s/^/INFO descriptor $name: /" >> "$REPORT"
  got_in=$(grep -m1 '^input 0:' <<< "$out" | awk '{print $4":"$5}')
  got_out=$(grep -m1 '^output 0:' <<< "$out" | awk '{print $4":"$5}')
  if [ $rc -eq 0 ] && [ "$got_in" = "$inf" ] && [ "$got_out" = "$outf" ]; then
    result PASS "descriptors $name read as in=$got_in out=$got_out ($(grep -m1 'reading:' <<< "$out" | sed 's/ *reading: //'))"
  else
    result FAIL "descriptors $name: built in=$inf out=$outf, read as in=${got_in:-?} out=${got_out:-?} (exit $rc): $(grep -m1 -E 'refused|dlainfer-inspect:' <<< "$out" | cut -c1-240)"
  fi
done

# --- numbers: every loadable on both cores against swdla's CPU executor --------------------------
for line in "${TWINS[@]}"; do
  IFS=$'\t' read -r name _ inf outf ins outs _ _ _ kin exp <<< "$line"
  [ -n "${LOADABLE[$name]:-}" ] && [ "$exp" != - ] || continue
  out=$("$INSPECT" --run 3 --cores 0,1 --input "$KIT/$kin" --expect "$KIT/$exp" --ulps "$ULPS" --steps 1 \
        --input-scale "$ins" --output-scale "$outs" "${LOADABLE[$name]}" 2>&1); rc=$?
  cmp=$(grep 'compare:' <<< "$out" | sed 's/compare: //' | paste -sd';' -)
  if [ $rc -eq 0 ] && grep -q 'checksums_equal=yes' <<< "$out"; then
    result PASS "results $name cores 0,1: $cmp"
  else
    result FAIL "results $name cores 0,1 (exit $rc): ${cmp:-$(grep -m1 -E 'error=|dlainfer-inspect:' <<< "$out" | cut -c1-240)} $(grep -o 'checksums_equal=[a-z]*' <<< "$out")"
  fi
done

# --- the element end to end: solid colours through dlainfer on each core --------------------------
for line in "${TWINS[@]}"; do
  IFS=$'\t' read -r name _ inf outf ins outs cls _ labels _ _ <<< "$line"
  case $name in colours|colours-int8-dla_hwc4|colours-fp16-dla_linear|colours-out-int8-chw32|colours-w225-*) ;; *) continue ;; esac
  [ -n "${LOADABLE[$name]:-}" ] || continue
  scales=()
  [ "${inf%%:*}" = int8 ] && scales+=("input-scale=$ins")
  [ "${outf%%:*}" = int8 ] && scales+=("output-scale=$outs")
  for core in 0 1; do
    bad=''
    for colour in red green blue white black; do
      msg=$(gst_tool gst-launch-1.0 -m videotestsrc num-buffers=3 "pattern=$colour" \
            ! video/x-raw,format=RGBA,width=640,height=480 ! cudaupload \
            ! dlainfer "model=${LOADABLE[$name]}" "labels=$KIT/$labels" "dla-core=$core" post-messages=true "${scales[@]}" \
            ! fakesink 2>&1)
      top=$(grep -m1 -o 'labels=(string)< *[a-z-]*' <<< "$msg" | sed 's/.*< *//')
      [ "$top" = "$colour" ] || bad+=" $colour->${top:-none}"
    done
    if [ -z "$bad" ]; then result PASS "element $name core $core: red green blue white black classified"
    else result FAIL "element $name core $core:$bad$(grep -m1 -E 'ERROR|WARNING' <<< "$msg" | cut -c1-200 | sed 's/^/ /')"; fi
  done
done

# --- NVMM: our NvBufSurface declaration against NVIDIA's header; decoder and camera into dlainfer ---
# (docs/nvmm.md 8). CPU per frame: NVMM in place against the nvvidconv ! cudaupload copy.
NVMM_INCLUDE=${NVMM_INCLUDE:-/usr/src/jetson_multimedia_api/include}
col=${LOADABLE[colours]:-}
if [ "${DRY_RUN:-}" = 1 ]; then
  result INFO "nvmm: skipped in a dry run (the GPU host's stand-in tests it: element-gpu-nvmm)"
elif [ ! -f "$NVMM_INCLUDE/nvbufsurface.h" ]; then
  result FAIL "nvmm abi: no $NVMM_INCLUDE/nvbufsurface.h (install nvidia-l4t-jetson-multimedia-api, or set NVMM_INCLUDE)"
elif ! g++ -std=c++17 -I"$NVMM_INCLUDE" -I"$SRC_ROOT" "$PIPELINES_DIR/orin-kit/nvmm_abi_check.cpp" \
       -o "$WORK/nvmm_abi_check" > "$WORK/nvmm_abi_check.log" 2>&1; then
  result FAIL "nvmm abi: the check does not compile against $NVMM_INCLUDE: $(head -c 300 "$WORK/nvmm_abi_check.log")"
else
  out=$("$WORK/nvmm_abi_check" 2>&1); rc=$?
  while read -r l; do say "INFO $l"; done <<< "$out"
  [ $rc -eq 0 ] && result PASS "nvmm abi: sizes, offsets and enum values match NVIDIA's header" \
    || result FAIL "nvmm abi: $(grep MISMATCH <<< "$out" | paste -sd';' - | cut -c1-300)"
fi
col_labels=$(printf '%s\n' "${TWINS[@]}" | awk -F'\t' '$1 == "colours" {print $9}')
if [ "${DRY_RUN:-}" != 1 ] && [ -n "$col" ]; then
  enc=(videotestsrc num-buffers=300 pattern=red ! video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1
       ! nvvidconv ! 'video/x-raw(memory:NVMM)' ! nvv4l2h264enc ! h264parse ! nvv4l2decoder)
  for path in nvmm copy; do
    if [ $path = nvmm ]; then mid=('video/x-raw(memory:NVMM),format=NV12'); else mid=(nvvidconv ! video/x-raw,format=NV12 ! cudaupload); fi
    gst_tool_argv gst-launch-1.0
    msg=$( { /usr/bin/time -f 'cpu_s=%U+%S' "${TOOL[@]}" -m "${enc[@]}" ! "${mid[@]}" ! dlainfer "model=$col" \
            "labels=$KIT/$col_labels" post-messages=true ! fakesink sync=false; } 2>&1)
    top=$(grep -m1 -o 'labels=(string)< *[a-z-]*' <<< "$msg" | sed 's/.*< *//')
    cpu=$(grep -o 'cpu_s=[0-9.+]*' <<< "$msg" | tail -1 | sed 's/cpu_s=//')
    probe "nvmm-cpu path=$path frames=300 cpu_s=${cpu:-?} (encode and decode included in both)"
    if [ $path = nvmm ]; then
      [ "$top" = red ] && result PASS "nvmm: nvv4l2decoder ! dlainfer (block-linear NVMM) classified red" \
        || result FAIL "nvmm: nvv4l2decoder ! dlainfer gave '${top:-none}': $(grep -m1 -E 'ERROR|WARNING' <<< "$msg" | cut -c1-250)"
    fi
  done
  msg=$(gst_tool gst-launch-1.0 nvarguscamerasrc num-buffers=30 \
        ! 'video/x-raw(memory:NVMM),width=1920,height=1080,framerate=30/1,format=NV12' \
        ! dlainfer "model=$col" post-messages=true ! fakesink 2>&1); rc=$?
  if grep -qiE 'no cameras available|failed to create capture session|no element "nvarguscamerasrc"' <<< "$msg"; then
    result INFO "nvmm camera: skipped, no camera ($(grep -m1 -iE 'camera|capture|element' <<< "$msg" | cut -c1-150))"
  elif [ $rc -eq 0 ] && grep -q 'labels=(string)' <<< "$msg"; then
    result PASS "nvmm camera: nvarguscamerasrc ! dlainfer classified 30 frames"
  else
    result FAIL "nvmm camera: $(grep -m1 -E 'ERROR|WARNING' <<< "$msg" | cut -c1-250)"
  fi
fi

# --- probes ---------------------------------------------------------------------------------------
bb=${LOADABLE[backbone]:-} col=${LOADABLE[colours]:-}
if [ -n "$col" ]; then
  # How many tasks one handle queues before cudlaSubmitTask blocks (a jump in its time) or fails.
  for depth in 8 64 512; do
    out=$("$INSPECT" --run "$depth" --queue "$depth" --warmup 2 "$col" 2>&1)
    probe "queue-depth colours $(grep -m1 '^queue:' <<< "$out" | sed 's/^queue: //') $(grep -m1 -o 'error=.*' <<< "$out")"
  done
  # CPU per submit (the host cost cuDLA adds per frame).
  out=$("$INSPECT" --run "$RUNS" --core 0 "$col" 2>&1)
  line=$(grep -m1 '^run: handle=0' <<< "$out")
  probe "submit-cpu colours $(for k in cpu_submit_us submit_us_p50 submit_us_max task_us_p50 dla_us_p50; do
    grep -o "\b$k=[^ ]*" <<< "$line"; done | tr '\n' ' ')"
fi
if [ -n "$bb" ]; then
  single=() ; for core in 0 1; do
    out=$("$INSPECT" --run "$RUNS" --core $core --random 1 "$bb" 2>&1)
    single[$core]=$(grep '^run: handle=0' <<< "$out" | field per_s)
    probe "throughput backbone core=$core per_s=${single[$core]:-?} (dlainfer-inspect, one handle)"
  done
  # One loadable on both cores at once.
  out=$("$INSPECT" --run "$RUNS" --cores 0,1 --random 1 "$bb" 2>&1)
  probe "both-cores backbone $(grep '^run: handles=' <<< "$out" | sed 's/^run: //') $(grep '^run: handle=' <<< "$out" | awk '{print $2"/"$3"/"$13}' | paste -sd' ' -)"
  grep -q 'checksums_equal=yes' <<< "$out" && result PASS "one loadable on both cores: same results" \
    || result FAIL "one loadable on both cores: $(grep -m1 -E 'error=|checksums_equal' <<< "$out" | cut -c1-200)"
  # Two handles on one core: concurrent (aggregate above one handle's) or serialised.
  out=$("$INSPECT" --run "$RUNS" --handles 2 --core 0 --random 1 "$bb" 2>&1)
  agg=$(grep '^run: handles=' <<< "$out" | field per_s)
  probe "two-handles-one-core backbone aggregate_per_s=${agg:-?} one_handle_per_s=${single[0]:-?} $(grep -m1 -o 'error=.*' <<< "$out")"
  # Preprocessing/DLA interference: core 1 alone vs. with a 1080p dlainfer pipeline on core 0.
  if [ -n "$col" ]; then
    gst_tool gst-launch-1.0 videotestsrc num-buffers=100000 pattern=ball ! video/x-raw,format=NV12,width=1920,height=1080 \
      ! cudaupload ! dlainfer "model=$col" dla-core=0 ! fakesink sync=false > "$WORK/load.log" 2>&1 &
    loader=$!
    sleep 2
    out=$("$INSPECT" --run "$RUNS" --core 1 --random 1 "$bb" 2>&1)
    busy=$(grep -m1 '^run: handle=0' <<< "$out")
    kill "$loader" 2>/dev/null; wait "$loader" 2>/dev/null
    probe "interference backbone core=1 alone_per_s=${single[1]:-?} with_1080p_pipeline_on_core0_per_s=$(field per_s <<< "$busy") task_us_p99=$(field task_us_p99 <<< "$busy")"
  fi
fi
# Per-core throughput against TensorRT's own runtime on a DLA engine of the same twin.
for name in backbone colours; do
  [ -n "${LOADABLE[$name]:-}" ] || continue
  line=$(printf '%s\n' "${TWINS[@]}" | awk -F'\t' -v n=$name '$1 == n')
  IFS=$'\t' read -r _ onnx inf outf _ _ _ _ _ _ _ <<< "$line"
  for core in 0 1; do
    "$TRTEXEC" --onnx="$KIT/$onnx" --useDLACore=$core --inputIOFormats="$inf" --outputIOFormats="$outf" \
      --saveEngine="$WORK/$name.core$core.engine" > "$WORK/$name.engine.log" 2>&1
    out=$("$TRTEXEC" --loadEngine="$WORK/$name.core$core.engine" --useDLACore=$core 2>&1)
    trt=$(grep -m1 -o 'Throughput: [0-9.]* qps' <<< "$out" | awk '{print $2}')
    out=$("$INSPECT" --run "$RUNS" --core $core --random 1 "${LOADABLE[$name]}" 2>&1)
    ours=$(grep '^run: handle=0' <<< "$out" | field per_s)
    probe "vs-trtexec $name core=$core dlainfer_inspect_per_s=${ours:-?} trtexec_qps=${trt:-?}"
  done
done
finish
