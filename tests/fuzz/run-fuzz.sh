#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-fuzz.sh FUZZER LIMIT CORPUS [SEED_DIR...]: runs a libFuzzer target (tests/fuzz/) on its committed
# corpus (seeds and every crash found so far, as regressions) and the seed directories, for LIMIT:
# SECONDS, or runs=N inputs. New inputs go to a scratch directory; a crash, leak, timeout or failed
# check leaves its input in the build's fuzz-artifacts/ (add it to CORPUS once fixed) and exits 1.
# Prints one line: executions, coverage, corpus. libFuzzer's own options come after `--`.
set -euo pipefail
exe=$1 limit=$2 corpus=$3
shift 3
seeds=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  [ -d "$1" ] && seeds+=("$1")
  shift
done
[ "${1:-}" = "--" ] && shift
name=$(basename "$exe")
artifacts="$(dirname "$exe")/fuzz-artifacts/$name"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"
case $limit in
  runs=*) opt=(-runs="${limit#runs=}") ;;
  *) opt=(-max_total_time="$limit") ;;
esac
# GLib's deliberate leaks only (lsan.supp says which).
export LSAN_OPTIONS="suppressions=$(dirname "${BASH_SOURCE[0]}")/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# Every committed input once first: a fixed crash must stay fixed.
if ! "$exe" -runs=0 "$corpus" > "$work/regress.log" 2>&1; then
  tail -40 "$work/regress.log"
  echo "$name: an input of $corpus fails again"
  exit 1
fi
rc=0
"$exe" "${opt[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" \
  "$@" "$work" "$corpus" "${seeds[@]}" > "$work/fuzz.log" 2>&1 || rc=$?
if [ $rc -ne 0 ]; then
  grep -a -A30 -E 'ERROR|refused|check failed' "$work/fuzz.log" | head -60
  echo "$name: failed (exit $rc); its input is in $artifacts/"
  exit 1
fi
runs=$(grep -a -oE 'stat::number_of_executed_units: *[0-9]+' "$work/fuzz.log" | grep -oE '[0-9]+$' || echo '?')
last=$(grep -a -E '^#[0-9]+' "$work/fuzz.log" | tail -1)
cov=$(echo "$last" | grep -oE 'cov: [0-9]+' || true)
ft=$(echo "$last" | grep -oE 'ft: [0-9]+' || true)
corp=$(echo "$last" | grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' || true)
echo "$name: $runs inputs, $cov edges, $ft features, $corp, no crash, no leak, no hang"
