#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's test command: installs what is missing (apt-get; run as root), configures build/
# when needed, builds, and runs every suite: `unit` (CPU) and `gpu` (SKIP, with the reason, when the
# machine has no CUDA device: the reason is repeated at the end, in one line). Exit status is meson
# test's. RUN_TESTS_NO_SETUP=1: no install, no configure, no build (the tests of this script).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH=/usr/local/cuda/bin:$PATH
BUILD=${BUILD_DIR:-build}
if [ "${RUN_TESTS_NO_SETUP:-0}" != 1 ]; then
  bash .ci/install-deps.sh
  [ -f "$BUILD/build.ninja" ] || bash tools/setup-build.sh "$BUILD" >/dev/null
  ninja -C "$BUILD"
fi
status=0
meson test -C "$BUILD" --print-errorlogs "$@" || status=$?

# Meson's summary counts the GPU suite's skips; the reason is only in the test log: say it here.
log=$BUILD/meson-logs/testlog.txt
skips=$(grep -c "^SKIP: .*needs a CUDA device: " "$log" 2>/dev/null) || true
if [ "${skips:-0}" -gt 0 ]; then
  why=$(grep -m1 "^SKIP: .*needs a CUDA device: " "$log")
  echo "gpu suite: skipped ($skips test programs): no CUDA device (${why#*needs a CUDA device: }); it runs on a machine with a CUDA GPU: sudo bash tests/run-tests.sh (or --suite gpu)"
fi
exit "$status"
