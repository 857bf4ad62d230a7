#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# fetch-onnxruntime-node.sh [DEST]: puts npm's onnxruntime-node 1.31.1 (MIT; Microsoft's ONNX Runtime
# with its prebuilt CPU library for linux x64 inside the package) into DEST/node_modules (default
# /var/cache/gst-dlainfer/onnxruntime-node; never in the repository), for dlainfer-prep's oracle
# (tests/tools/prep_ort.js: the uncut graphs' own decode run by ONNX Runtime; Debian 12 packages no
# ONNX Runtime). Its install script, which would fetch CUDA libraries from NuGet, is not run
# (--ignore-scripts: the CPU library is in the archive). The archive's SHA-512 (the registry's
# dist.integrity, as npm's lock file records it) is checked against the pinned one. A no-op when
# DEST already has it.
set -euo pipefail
DEST=${1:-/var/cache/gst-dlainfer/onnxruntime-node}
PKG=onnxruntime-node@1.31.1
SHA512=ijnSghbDHVWaQ2nDPmVccPlCHI8kH1Mx1aJ4a/qzRP16bBcVs4E3EqZQKZCkhWnbqN1tuQWxagimFtDpbPYYQw==
die() { echo "fetch-onnxruntime-node: $*" >&2; exit 1; }
loads() { (cd "$DEST" && node -e "require('onnxruntime-node')" 2>/dev/null); }
pinned() { grep -A4 '"node_modules/onnxruntime-node"' "$DEST/package-lock.json" 2>/dev/null | grep -q "sha512-$SHA512"; }
command -v npm >/dev/null || die "npm is not installed (apt-get install nodejs npm)"
if pinned && loads; then exit 0; fi
mkdir -p "$DEST"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
(cd "$DEST" && npm install --ignore-scripts --no-audit --no-fund --save-exact "$PKG") >"$log" 2>&1 ||
  die "npm install $PKG failed ($(tail -1 "$log")); is the npm registry reachable?"
pinned || die "$PKG in $DEST is not the pinned archive (its integrity differs from sha512-$SHA512): delete $DEST and fetch again"
loads || die "$PKG does not load in Node $(node --version) here (require('onnxruntime-node') fails)"
echo "fetch-onnxruntime-node: $PKG in $DEST"
