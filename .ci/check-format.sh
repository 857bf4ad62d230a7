#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fails when a tracked C++/CUDA source differs from what the repo's .clang-format makes of it, and
# names the files (fix: clang-format -i FILE...).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v clang-format >/dev/null || { echo "check-format: clang-format is missing (apt-get install clang-format)"; exit 1; }
bad=()
while IFS= read -r f; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files '*.cpp' '*.h' '*.cu' '*.cuh')
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} file(s) not in the repo's format: ${bad[*]}"
  echo "check-format: run clang-format -i on them"
  exit 1
fi
echo "check-format: every C++/CUDA source is formatted"
