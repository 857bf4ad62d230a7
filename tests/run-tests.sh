#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's test command: installs what is missing (apt-get; run as root), configures build/
# when needed, builds, and runs every suite: `unit` (CPU) and `gpu` (SKIP, with the reason, when the
# machine has no CUDA device). Exit status is meson test's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash .ci/install-deps.sh
export PATH=/usr/local/cuda/bin:$PATH
BUILD=${BUILD_DIR:-build}
[ -f "$BUILD/build.ninja" ] || bash tools/setup-build.sh "$BUILD" >/dev/null
ninja -C "$BUILD"
meson test -C "$BUILD" --print-errorlogs "$@"
