#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# setup-build.sh BUILD_DIR [MESON_ARGS...]: `meson setup` (`--reconfigure` for a configured BUILD_DIR), with nvcc through tools/nvcc-deps when
# Meson is older than 1.4 (Debian 12 has 1.0.1), so that a changed header rebuilds the .cu objects
# that include it (mesonbuild/meson#11969). The native file goes into the build directory: Meson
# reads it again whenever it regenerates.
set -euo pipefail
build=$1
shift
tools=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
args=()
v=$(meson --version)
if [ "$v" != 1.4.0 ] && [ "$(printf "%s\n1.4.0\n" "$v" | sort -V | head -1)" = "$v" ]; then
  mkdir -p "$build"
  printf "# tools/setup-build.sh: nvcc with header dependencies (tools/nvcc-deps says why)\n[binaries]\ncuda = '%s'\n" \
    "$tools/nvcc-deps" > "$build/nvcc-deps.ini"
  args=(--native-file "$build/nvcc-deps.ini")
fi
# An existing build directory is reconfigured with the options given (a plain `meson setup` says
# "Directory already configured" and keeps the old ones, e.g. the prefix).
if [ -f "$build/meson-private/coredata.dat" ]; then
  echo "setup-build.sh: $build is already configured: reconfiguring it${*:+ with $*}"
  args=(--reconfigure "${args[@]}")
fi
exec meson setup "${args[@]}" "$build" "$@"
