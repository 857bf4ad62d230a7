#!/bin/bash
# gpu-host-run.sh [OUT_DIR] — on the GPU host, in the checkout that .ci/gpu-bundle.sh packed for:
# unpacks .gpu-carry.tar.gz, runs both builds' gpu suites and benchmarks, compute-sanitizer on the
# kernel test, and leaves the logs in OUT_DIR (default gpu-logs/). Summary lines go to stdout.
# GPU_HOST_BENCH="name ..." runs only those benchmarks (none: no benchmark); GPU_HOST_BENCH_126=0
# none on the 1.26 build; GPU_HOST_TORCH=0 skips the PyTorch baseline.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${1:-gpu-logs}
mkdir -p "$OUT"
tar xzf .gpu-carry.tar.gz
mkdir -p build/meson-logs build-126/meson-logs
summary() { grep -E '^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped|Timeout): ' "$1" | grep -v -e ' OK ' -e RUNNING ; }
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
(
  . .gpu-bundle/env.sh
  meson test -C build --no-rebuild --suite gpu --verbose > "$OUT/native-gpu.txt" 2>&1
  echo "== native (GStreamer 1.22) gpu suite"; summary "$OUT/native-gpu.txt"
  if [ "${GPU_HOST_BENCH:-}" != none ]; then
    meson test -C build --no-rebuild --benchmark --suite gpu --verbose ${GPU_HOST_BENCH:-} > "$OUT/native-bench.txt" 2>&1
    echo "== native benchmarks rc=$?"
  fi
  if [ -x "$sanitizer" ]; then
    # Not the test that makes CUDA calls fail on purpose: the sanitizer counts those as errors.
    GTEST_FILTER='-LaunchGraphsTest.AFailedLaunch*' \
      "$sanitizer" --tool memcheck --error-exitcode 9 build/tests/gpu-preprocess > "$OUT/sanitizer.txt" 2>&1
    echo "== compute-sanitizer memcheck gpu-preprocess rc=$? $(grep 'ERROR SUMMARY' "$OUT/sanitizer.txt")"
    # The element end to end (kernel, swdla's kernels, copies) on every format and a 4K frame, the
    # geometry models, renegotiation and the run-time failures; the rest repeats these paths.
    GTEST_FILTER='*Colours.*:ElementGpu.Quadrants*:ElementGpu.Readout*:ElementGpu.Renegotiates*:ElementGpu.TaskError*:ElementGpu.HungTask*:Surface.Int8*' \
      meson test -C build --no-rebuild --verbose -t 20 --wrapper "$sanitizer --tool memcheck --error-exitcode 9" \
      element-gpu element-gpu-surface > "$OUT/sanitizer-element.txt" 2>&1
    echo "== compute-sanitizer memcheck element-gpu, element-gpu-surface rc=$? $(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/sanitizer-element.txt") clean summaries, $(grep 'ERROR SUMMARY' "$OUT/sanitizer-element.txt" | grep -vc ': 0 errors') with errors"
  fi
)
(
  . .gpu-bundle-126/env.sh
  meson test -C build-126 --no-rebuild --suite gpu --wrapper "$BUNDLE_EXE_WRAPPER" --verbose \
    > "$OUT/126-gpu.txt" 2>&1
  echo "== Debian 13 (GStreamer 1.26) gpu suite"; summary "$OUT/126-gpu.txt"
  [ "${GPU_HOST_BENCH_126:-1}" = 1 ] && [ "${GPU_HOST_BENCH:-}" != none ] || exit 0
  meson test -C build-126 --no-rebuild --benchmark --suite gpu --wrapper "$BUNDLE_EXE_WRAPPER" --verbose ${GPU_HOST_BENCH:-} \
    > "$OUT/126-bench.txt" 2>&1
  echo "== Debian 13 benchmarks rc=$?"
)
# The PyTorch column of the preprocessing benchmark (the host's own Python with torch).
if [ "${GPU_HOST_TORCH:-1}" = 1 ]; then
  python3 tests/kernels/preprocess_torch_bench.py > "$OUT/torch.txt" 2>&1
  echo "== PyTorch preprocessing baseline rc=$?"
fi
