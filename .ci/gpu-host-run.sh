#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# gpu-host-run.sh [OUT_DIR] — on the GPU host, in the checkout that .ci/gpu-bundle.sh packed for:
# unpacks what was carried (.gpu-carry.tar.xz and/or .gpu-carry-ID.tar.xz), runs the gpu suite of each
# build, benchmarks, compute-sanitizer on the kernel test and the element (native build), and leaves
# the logs in OUT_DIR (default gpu-logs/). Summary lines go to stdout. Where .gpu-python.tar.gz was
# carried too (.ci/python-bundle.sh), the Python example runs with it (.ci/gpu-host-python.sh).
#
# GPU_HOST_BUILDS="122 126 1242" (default all three) picks the builds: 122 the native build/
#   (GStreamer 1.22), 126 build-126 (Debian 13's 1.26), 1242 build-1242 (the target's 1.24.2); one
#   per device call when the archives together exceed what a call carries.
# GPU_HOST_BENCH="name ..." runs only those benchmarks (none: no benchmark; empty or unset: all); GPU_HOST_BENCH_126=0
#   none on the 1.26 build; GPU_HOST_BENCH_1242=1 also on the 1.24.2 build (default off);
#   GPU_HOST_TORCH=0 skips the PyTorch baseline. GPU_HOST_NO_SUITE="orin-kit" leaves out the tests of
#   those suites (orin-kit: the kit's 2.5-minute dry run; gpu-bundle.sh then leaves its data out).
#   GPU_HOST_TESTS="name ..." runs only those tests of the gpu suite. GPU_HOST_SUITE=0 skips the gpu
#   suite and GPU_HOST_SANITIZER=0 compute-sanitizer (a call for benchmarks only: suite and
#   benchmarks together exceed the 600 s a call may run).
#   GPU_HOST_DEMO=0 skips the README's demo (the faces clip, per build: checked, timed, frames kept).
#   GPU_HOST_TIMEOUT_MULTIPLIER=0.5 halves every test's timeout (a hang costs less device time). GPU_HOST_DIRECT=1 runs the tests directly from
#   meson-info without trying `meson test` first.
#
# Here a GPU is required: a gpu test that skips (exit 77) counts as a failure, and so do a failed or
# timed-out test, a sanitizer error, a sanitizer filter that selects no test, and a build that was
# asked for but not carried. Per program, the skipped gtest cases are counted. Exit status 1 on any
# failure. Where `meson test` refuses a build directory (configured by the Debian 13 root's Python
# 3.13, "references functions or classes that don't exist" on this host's 3.12), the tests listed
# in meson-info/intro-tests.json run directly (.ci/gpu_tests.py) through the bundle's loader.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# A GPU is required here: the test programs and gpu-gate fail, rather than skip, without one.
export DLAINFER_REQUIRE_GPU=1
OUT=${1:-gpu-logs}
mkdir -p "$OUT"
BUILDS=${GPU_HOST_BUILDS:-122 126 1242}
declare -A DIR=([122]=build [126]=build-126 [1242]=build-1242)
declare -A BUNDLE=([122]=.gpu-bundle [126]=.gpu-bundle-126 [1242]=.gpu-bundle-1242)
declare -A LABEL=([122]="native (GStreamer 1.22)" [126]="Debian 13 (GStreamer 1.26)" [1242]="GStreamer 1.24.2 (target)")
declare -A NAME=([122]=native [126]=126 [1242]=1242)
failures=()
fail() { echo "== FAILURE: $*"; failures+=("$*"); }

for a in .gpu-carry.tar.xz; do [ ! -f "$a" ] || tar xf "$a" || fail "cannot unpack $a"; done
for id in $BUILDS; do
  [ -n "${DIR[$id]:-}" ] || { fail "unknown build id $id in GPU_HOST_BUILDS (122, 126 or 1242)"; continue; }
  [ ! -f ".gpu-carry-$id.tar.xz" ] || tar xf ".gpu-carry-$id.tar.xz" || fail "cannot unpack .gpu-carry-$id.tar.xz"
done
summary() { grep -E '^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped|Timeout): ' "$1" | grep -v -e ' OK ' -e RUNNING ; }
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
python=$(command -v python3)

# run_tests ID TAG [--benchmark] [NAME...]: the build's gpu suite (or benchmarks) into OUT/TAG.txt and
# OUT/TAG.json (testlog.json format), through meson test, else directly from intro-tests.json.
run_tests() {
  local id=$1 tag=$2; shift 2
  local b=${DIR[$id]} log="$OUT/$tag.txt" json="$OUT/$tag.json" opts=() s
  [ -z "$BUNDLE_EXE_WRAPPER" ] || opts=(--wrapper "$BUNDLE_EXE_WRAPPER")
  for s in ${GPU_HOST_NO_SUITE:-}; do opts+=(--no-suite "$s"); done
  [ -z "${GPU_HOST_TIMEOUT_MULTIPLIER:-}" ] || opts+=(--timeout-multiplier "$GPU_HOST_TIMEOUT_MULTIPLIER")
  rm -f "$b/meson-logs/$tag"*.json
  mkdir -p "$b/meson-logs"
  if [ "${GPU_HOST_DIRECT:-0}" = 1 ]; then
    echo "GPU_HOST_DIRECT=1: meson test not tried" > "$log"
  else
    meson test -C "$b" --no-rebuild --suite gpu "${opts[@]}" --verbose --logbase "$tag" "$@" > "$log" 2>&1
  fi
  local rc=$? mjson
  # (With --wrapper, meson appends the wrapper's name to the log's: TAG-ld-linux-x86-64.so.2.json.)
  mjson=$(ls "$b/meson-logs/$tag"*.json 2>/dev/null | head -1)
  if [ -n "$mjson" ]; then
    cp "$mjson" "$json"
  else
    echo "== ${LABEL[$id]}: meson test did not run this build dir ($(grep -m1 -o "references functions or classes that don't exist\|[A-Za-z]*Error: .*\|GPU_HOST_DIRECT=1" "$log" || echo "rc=$rc, see $log")); running meson-info's tests directly"
    PYTHONPATH= "$python" .ci/gpu_tests.py run "$b" "$json" --suite gpu "${opts[@]}" "$@" >> "$log" 2>&1
  fi
}

for id in $BUILDS; do
  [ -n "${DIR[$id]:-}" ] || continue
  b=${DIR[$id]} tag=${NAME[$id]}
  if [ ! -d "$b/meson-info" ] || [ ! -f "${BUNDLE[$id]}/env.sh" ]; then
    fail "${LABEL[$id]}: $b or ${BUNDLE[$id]} was not carried (carry .gpu-carry-$id.tar.xz or .gpu-carry.tar.xz)"
    continue
  fi
  if [ "${GPU_HOST_SUITE:-1}" = 1 ]; then
    (
      . "${BUNDLE[$id]}/env.sh"
      run_tests "$id" "$tag-gpu" ${GPU_HOST_TESTS:-}
      echo "== ${LABEL[$id]} gpu suite"; summary "$OUT/$tag-gpu.txt"
    )
    "$python" .ci/gpu_tests.py report "$OUT/$tag-gpu.json" "${LABEL[$id]}" || fail "${LABEL[$id]} gpu suite"
  fi

  bench=1
  [ "$id" != 126 ] || bench=${GPU_HOST_BENCH_126:-1}
  [ "$id" != 1242 ] || bench=${GPU_HOST_BENCH_1242:-0}
  if [ "$bench" = 1 ] && [ "${GPU_HOST_BENCH:-}" != none ]; then
    ( . "${BUNDLE[$id]}/env.sh"; run_tests "$id" "$tag-bench" --benchmark ${GPU_HOST_BENCH:-} )
    "$python" .ci/gpu_tests.py report "$OUT/$tag-bench.json" "${LABEL[$id]} benchmarks" > "$OUT/$tag-bench-report.txt" \
      || { cat "$OUT/$tag-bench-report.txt"; fail "${LABEL[$id]} benchmarks"; }
    echo "== ${LABEL[$id]} benchmarks: $(tail -1 "$OUT/$tag-bench-report.txt")"
  fi

  if [ "$id" = 122 ] && [ "${GPU_HOST_SANITIZER:-1}" = 1 ]; then
    [ -x "$sanitizer" ] || { fail "compute-sanitizer not found (PATH or /usr/local/cuda/bin)"; continue; }
    (
      . .gpu-bundle/env.sh
      # Not the test that makes CUDA calls fail on purpose: the sanitizer counts those as errors.
      GTEST_FILTER='-LaunchGraphsTest.AFailedLaunch*' \
        "$sanitizer" --tool memcheck --error-exitcode 9 build/tests/gpu-preprocess > "$OUT/sanitizer.txt" 2>&1
      echo "rc=$?" >> "$OUT/sanitizer.txt"
      # The element end to end (kernel, swdla's kernels, copies) on every format and a 4K frame, the
      # geometry models, renegotiation and the run-time failures, and a flush with tasks in flight
      # (no task may touch freed memory); the rest repeats these paths.
      GTEST_FILTER='*Colours.*:ElementGpu.Quadrants*:ElementGpu.Readout*:ElementGpu.Renegotiates*:ElementGpu.TaskError*:ElementGpu.HungTask*:Surface.Int8*:InFlight.FlushPushesNoneOfTheFramesInFlight:InFlight.TaskErrorWithTasksInFlight' \
        meson test -C build --no-rebuild --verbose -t 20 --wrapper "$sanitizer --tool memcheck --error-exitcode 9" \
        element-gpu element-gpu-surface element-gpu-inflight > "$OUT/sanitizer-element.txt" 2>&1
      echo "rc=$?" >> "$OUT/sanitizer-element.txt"
    )
    for f in sanitizer sanitizer-element; do
      t="$OUT/$f.txt"
      clean=$(grep -c 'ERROR SUMMARY: 0 errors' "$t") dirty=$(grep 'ERROR SUMMARY' "$t" | grep -vc ': 0 errors')
      ran=$(grep -oE '\[==========\] [0-9]+ tests? from .* ran' "$t" | awk '{print $2}' | tr '\n' ' ')
      echo "== compute-sanitizer memcheck ($f) $(tail -1 "$t"), $clean clean summaries, $dirty with errors, gtest cases run per program: ${ran:-none}"
      [ "$(tail -1 "$t")" = rc=0 ] || fail "compute-sanitizer ($f): $(tail -1 "$t") (see $t)"
      [ "$dirty" = 0 ] && [ "$clean" -gt 0 ] || fail "compute-sanitizer ($f): $dirty summaries with errors, $clean clean"
      [ -n "$ran" ] && ! grep -qw 0 <<< "$ran" || fail "compute-sanitizer ($f): a GTEST_FILTER selected no test (cases run: ${ran:-none}); fix the filter in .ci/gpu-host-run.sh"
    done
  fi
done
# The README's demo, the faces clip (the prepared faces-demo/ gpu-bundle.sh put in each build), on
# every build carried: exit 0 (every confirmed track's expression is face-api's majority), at least
# 25 frames per second, done in under a minute. Its PNG frames and MP4 come back in OUT.
if [ "${GPU_HOST_DEMO:-1}" = 1 ]; then
  for id in $BUILDS; do
    [ -n "${DIR[$id]:-}" ] && [ -f "${BUNDLE[$id]}/env.sh" ] || continue
    tag=${NAME[$id]} log="$OUT/demo-${NAME[$id]}.txt"
    start=$(date +%s)
    ( . "${BUNDLE[$id]}/env.sh"; DEMO=faces DEMO_SKIP_SETUP=1 BUILD_DIR=${DIR[$id]} PNG_DIR="$OUT/demo-$tag-frames" \
        FACES_MP4="$OUT/faces-demo-$tag.mp4" timeout 300 bash pipelines/demo.sh ) > "$log" 2>&1
    rc=$? took=$(($(date +%s) - start))
    fps=$(sed -n 's/^faces summary: .* frames, \([0-9.]*\) fps.*/\1/p' "$log")
    echo "== ${LABEL[$id]} demo: rc=$rc, ${fps:-?} fps, $took s; $(grep -m1 '^summary: ' "$log")"
    [ $rc = 0 ] || fail "${LABEL[$id]} demo: exit $rc (see $log)"
    awk -v f="${fps:-0}" 'BEGIN { exit !(f >= 25) }' || fail "${LABEL[$id]} demo: ${fps:-no} fps, under 25 (see $log)"
    [ $took -lt 60 ] || fail "${LABEL[$id]} demo: $took s, not under a minute (see $log)"
  done
fi
# The Python example end to end with the bundled Python 3.11 and PyGObject, where .ci/python-bundle.sh's
# archive was carried with the native build's.
if [ -f .gpu-python.tar.gz ] && [[ " $BUILDS " == *" 122 "* ]]; then
  GPU_HOST_UNPACKED=1 bash .ci/gpu-host-python.sh "$OUT" || fail "the Python example (.ci/gpu-host-python.sh; logs in $OUT/python-*)"
fi
# The PyTorch column of the preprocessing benchmark (the host's own Python with torch).
if [ "${GPU_HOST_TORCH:-1}" = 1 ] && [[ " $BUILDS " == *" 122 "* ]]; then
  python3 tests/kernels/preprocess_torch_bench.py > "$OUT/torch.txt" 2>&1
  echo "== PyTorch preprocessing baseline rc=$?"
fi
if [ ${#failures[@]} -gt 0 ]; then
  echo "gpu-host-run: ${#failures[@]} failure(s):"; printf '  %s\n' "${failures[@]}"; exit 1
fi
echo "gpu-host-run: all passed (builds: $BUILDS)"
