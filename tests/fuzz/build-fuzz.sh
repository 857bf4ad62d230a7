#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# build-fuzz.sh OUTPUT CLANGXX FLAGS... -- SOURCES... [-- LINK_FLAGS...]: a fuzz target, each source
# compiled on its own (through ccache when it is installed, so an unchanged source is not compiled
# again: a one-step compile and link is never cached), then linked with the same flags.
set -eu
out=$1
cxx=$2
shift 2
flags=
while [ "$1" != -- ]; do flags="$flags $1"; shift; done
shift
objs=
dir=$(mktemp -d "$out.objs.XXXXXX")
trap 'rm -rf "$dir"' EXIT
n=0
ccache=$(command -v ccache) || true
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  n=$((n + 1))
  # shellcheck disable=SC2086 # flags are words
  $ccache "$cxx" $flags -c "$1" -o "$dir/$n.o"
  objs="$objs $dir/$n.o"
  shift
done
[ $# -gt 0 ] && shift
# shellcheck disable=SC2086
"$cxx" $flags $objs -o "$out" "$@"
