#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# fetch-face-api.sh [DEST]: puts npm's @vladmandic/face-api 1.7.15 (MIT: its trained networks, demo
# photographs and sources) and the pure-JavaScript/WASM TensorFlow.js 4.22.0 it runs on in Node into
# DEST/node_modules (default /var/cache/gst-dlainfer/face-api; never in the repository). A no-op
# when DEST already has the pinned files.
#
# Pinned three ways: the face-api archive's SHA-512 (the registry's dist.integrity) and SHA-256 are
# checked here before anything is installed; every other package (72 in all, no install scripts run)
# comes from tests/models/face-api/package-lock.json, whose integrity values `npm ci` enforces; the
# installed model files and photographs are checked against tests/models/face-api/files.sha256.
# FACE_API_TARBALL=FILE checks that archive instead of the downloaded one (the checksum test).
set -euo pipefail
DEST=${1:-/var/cache/gst-dlainfer/face-api}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PKG=@vladmandic/face-api@1.7.15
SHA512=WDMmK3CfNLo8jylWqMoQgf4nIst3M0fzx1dnac96wv/dvMTN4DxC/Pq1DGtduDk1lktCamQ3MIDXFnvrdHTXDw==
SHA256=0d77fffeef362ef9c0939cf6c567f3a2e8e177f114fa257a3270cbd2e509b031
# The tfjs packages face-api's Node entry (dist/face-api.node-wasm.js) requires, as locked.
TFJS_SHA512=0TrIrXs6/b7FLhLVNmfh8Sah6JgjBPH4mZ8JGb7NU6WW+cx00qK5BcAZxw7NCzxj6N8MRAIfHq+oNbPUNG5VAg==
WASM_SHA512=/IYhReRIp4jg/wYW0OwbbJZG8ON87mbz0PgkiP3CdcACRSvUN0h8rvC0O3YcDtkTQtFWF/tcXq/KlVDyV49wmA==

die() {
  echo "fetch-face-api: $*" >&2
  exit 1
}

installed() {
  [ -f "$DEST/node_modules/@tensorflow/tfjs/package.json" ] &&
    [ -f "$DEST/node_modules/@tensorflow/tfjs-backend-wasm/package.json" ] &&
    (cd "$DEST/node_modules/@vladmandic/face-api" 2>/dev/null && sha256sum -c --quiet --status "$HERE/face-api/files.sha256")
}

check_archive() {  # check_archive FILE: dies unless FILE is the pinned face-api archive
  [ -f "$1" ] || die "$1: no such file"
  # (SHA-512 compared in hex: coreutils only.)
  local want512 got512 got256
  want512=$(printf %s "$SHA512" | base64 -d | od -An -tx1 -v | tr -d ' \n')
  got512=$(sha512sum "$1" | cut -d' ' -f1)
  got256=$(sha256sum "$1" | cut -d' ' -f1)
  [ "$got512" = "$want512" ] && [ "$got256" = "$SHA256" ] ||
    die "$(basename "$1"): checksum mismatch (sha256 $got256, pinned $SHA256): the archive was altered or is not $PKG; delete it and fetch again"
}

lock_integrity() {  # lock_integrity PACKAGE-PATH: the SHA-512 the lock file pins for it
  grep -A3 "\"node_modules/$1\": {" "$HERE/face-api/package-lock.json" | sed -n 's/.*"integrity": "sha512-\(.*\)",/\1/p'
}

npm_why() {  # npm_why LOG: npm's error code (ECONNREFUSED, ENOTFOUND, EINTEGRITY...), else its last line
  sed -n 's/^npm error code \(.*\)/\1/p' "$1" | head -1 | grep . || tail -1 "$1"
}

installed && exit 0
[ "$(lock_integrity @tensorflow/tfjs)" = "$TFJS_SHA512" ] &&
  [ "$(lock_integrity @tensorflow/tfjs-backend-wasm)" = "$WASM_SHA512" ] &&
  [ "$(lock_integrity @vladmandic/face-api)" = "$SHA512" ] ||
  die "tests/models/face-api/package-lock.json pins other archives than this script; restore both from git"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tarball=${FACE_API_TARBALL:-}
[ -z "$tarball" ] || check_archive "$tarball"
command -v node >/dev/null || die "node not found: install Node.js 18 or later (apt install nodejs npm)"
command -v npm >/dev/null || die "npm not found: install it (apt install npm)"
if [ -z "$tarball" ]; then
  (cd "$work" && npm pack --loglevel=error "$PKG" >"$work/pack.log" 2>&1) ||
    die "could not download $PKG from $(npm config get registry) (no network? npm: $(npm_why "$work/pack.log")); fix the connection or the registry and run again"
  tarball=$(ls "$work"/*.tgz)  # (npm pack names it)
  check_archive "$tarball"
fi

mkdir -p "$DEST" || die "cannot create $DEST: run as root or pass a writable directory"
cp "$HERE/face-api/package.json" "$HERE/face-api/package-lock.json" "$DEST/"
# npm ci installs exactly the lock file's tree, checking each archive's integrity; the face-api
# archive was checked above, and is the one the lock file names by the same SHA-512.
(cd "$DEST" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >"$work/ci.log" 2>&1) || {
  why=$(npm_why "$work/ci.log")
  case $why in
  EINTEGRITY) die "npm ci: an archive does not match package-lock.json's checksum (EINTEGRITY); clear npm's cache (npm cache clean --force) and run again" ;;
  *) die "npm ci in $DEST failed (no network? npm: $why); fix the connection or the registry and run again" ;;
  esac
}
# The archive checked here must be what was installed.
mkdir -p "$work/x" && tar -xzf "$tarball" -C "$work/x"
(cd "$work/x/package" && sha256sum -c --quiet "$HERE/face-api/files.sha256" >/dev/null 2>&1) ||
  die "$(basename "$tarball") lacks files tests/models/face-api/files.sha256 pins; restore it from git"
installed || die "$DEST/node_modules/@vladmandic/face-api differs from the checked archive; delete $DEST and run again"
echo "fetch-face-api: $PKG and @tensorflow/tfjs 4.22.0 in $DEST"
