#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fails when a tracked C++/CUDA source differs from what the repo's .clang-format makes of it, and
# names the files (fix: clang-format -i FILE...). Files go to clang-format 50 at a time: one process
# per file took 40 s on CI's machine, mostly process start-up.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v clang-format >/dev/null || { echo "check-format: clang-format is missing (apt-get install clang-format)"; exit 1; }
rc=0
out=$(git ls-files -z '*.cpp' '*.h' '*.cu' '*.cuh' | xargs -0 -n 50 -P "$(nproc)" clang-format --dry-run --Werror 2>&1) || rc=$?
mapfile -t bad < <(sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' <<< "$out" | sort -u)
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} file(s) not in the repo's format: ${bad[*]}"
  echo "check-format: run clang-format -i on them"
  exit 1
fi
# Any other failure (a file clang-format cannot read or parse) is shown as it said it.
[ $rc -eq 0 ] || { echo "$out" | tail -20; echo "check-format: clang-format failed (status $rc)"; exit 1; }
echo "check-format: every C++/CUDA source is formatted"
