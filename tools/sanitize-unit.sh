#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/sanitize-unit.sh [BUILD_DIR [MESON_ARGS...]]: the unit suite built with AddressSanitizer and
# UndefinedBehaviorSanitizer (-Db_sanitize=address,undefined; Meson hands nvcc the flags for its
# host compiler) at -O1 and run. BUILD_DIR (default build-asan) is set up on first use with MESON_ARGS
# (CI: -Ddebug=false -Dnvcc-arch=8.7), then reused (incremental). GPU programs are not built
# (-Dgpu-suite=false), nor benchmarks (-Dbenchmarks=disabled). The test programs run as they are; the Python tests that load the plugin
# (suite python, not no-gst) run with the compiler's ASan and UBSan runtimes preloaded into the
# interpreter. Not run: the no-gst Python tests (model and tool checks that load none of our
# libraries; Node under ASan takes four times as long), the fuzz targets (their own sanitizers: not
# built here, -Dfuzz=disabled). Leaks are valgrind's job in CI (GStreamer's one-time allocations
# would need suppressions of their own here). -O1, as the sanitizers' own documentation suggests: at
# -O2 the instrumented compile of the unit suite takes twice as long. Prints the build and test
# times; the results are in BUILD_DIR/meson-logs/sanitized.json and sanitized-python.json.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir=${1:-build-asan}
shift || true
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
mkdir -p "$dir"
if [ ! -f "$dir/build.ninja" ]; then
  bash tools/setup-build.sh "$dir" -Dgpu-suite=false -Db_sanitize=address,undefined -Db_lundef=false -Doptimization=1 \
    -Dexamples=disabled -Dfuzz=disabled -Dbenchmarks=disabled "$@" > "$dir/sanitize-setup.log" 2>&1 ||
    { tail -30 "$dir/sanitize-setup.log"; echo "sanitize-unit: setting up $dir failed"; exit 1; }
fi
ninja -C "$dir" > "$dir/sanitize-build.log" 2>&1 || { grep -E 'error|FAILED' "$dir/sanitize-build.log" | head -30; echo "sanitize-unit: build failed"; exit 1; }
t1=$(date +%s)
# halt_on_error: a UBSan report fails its test as an ASan one does. protect_shadow_gap=0: the CUDA
# runtime maps memory where ASan's shadow gap would be (needed wherever a device is probed).
export ASAN_OPTIONS="detect_leaks=0:protect_shadow_gap=0:abort_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# The registry is scanned in each test's own process: GStreamer's gst-plugin-scanner has no ASan
# runtime, cannot load the instrumented plugin, and would leave it blacklisted in the registry.
export GST_REGISTRY_FORK=no
rm -f "$dir"/tests/*.registry
rc=0
meson test -C "$dir" --no-rebuild --logbase sanitized --suite unit --no-suite python --no-suite fuzz \
  --print-errorlogs > "$dir/sanitize-test.log" 2>&1 || rc=$?
runtimes="$(${CXX:-c++} -print-file-name=libasan.so) $(${CXX:-c++} -print-file-name=libubsan.so)"
LD_PRELOAD="$runtimes" meson test -C "$dir" --no-rebuild --logbase sanitized-python --suite python \
  --no-suite no-gst --print-errorlogs >> "$dir/sanitize-test.log" 2>&1 || rc=$?
t2=$(date +%s)
grep -E '^(Ok|Fail|Skipped|Timeout):' "$dir/sanitize-test.log" | tr -s ' ' | tr '\n' ' '
echo
echo "sanitize-unit: build $((t1 - t0)) s, tests $((t2 - t1)) s"
[ $rc -eq 0 ] || { grep -E ' FAIL |ERROR: AddressSanitizer|runtime error' "$dir/sanitize-test.log" | head -30; exit $rc; }
