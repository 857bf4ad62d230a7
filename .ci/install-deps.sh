#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what the native build (Debian 12, GStreamer 1.22) needs; a no-op when all is there.
set -euo pipefail
pkgs=(meson ninja-build pkg-config g++ libgtest-dev
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  python3 python3-numpy python3-pil python3-onnx valgrind debootstrap clang-format clang
  gstreamer1.0-x gstreamer1.0-plugins-ugly fonts-dejavu-core
  gobject-introspection libgirepository1.0-dev python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  libmosquitto-dev mosquitto python3-jsonschema openssl)
# (libmosquitto-dev: dlapublish's MQTT. mosquitto: the broker its tests start per test on a free port;
# python3-jsonschema: the tests validate the messages against docs/publish.schema.json; openssl: the
# TLS test makes its certificate.)
# (gobject-introspection ... gir1.2-gst-plugins-base-1.0: the meta library's typelib, GstDlaInfer-1.0,
# and its Python test, tests/meta, which fails in CI without them.)
# (clang-format: CI checks the sources against .clang-format. clang: the libFuzzer targets, tests/fuzz.)
# (python3-onnx: the ONNX twins of the swdla models, tools/twins/, checked in the unit suite.)
# (pipelines/: gstreamer1.0-x has textoverlay (pango) for the demo's PNG frames, fonts-dejavu-core a
# font for it, gstreamer1.0-plugins-ugly has x264enc for the x86 script's test clip.)
# (nodejs, npm: face-api's networks run in Node as the real models' oracle, tests/models/; a Node
# from elsewhere, e.g. NodeSource's, is kept.)
command -v node >/dev/null || pkgs+=(nodejs)
command -v npm >/dev/null || pkgs+=(npm)
missing=()
for p in "${pkgs[@]}"; do
  # (The status is read whole, then matched: `dpkg-query | grep -q` under pipefail can fail when grep
  # exits first and dpkg-query dies of SIGPIPE.)
  [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == *'install ok installed'* ]] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The preprocessing oracle's photographs (tests/kernels/preprocess_oracle.py; with CI set it fails
# without them): from Debian's python3-skimage .deb into the cache the tests look in (a no-op when
# there). A missing package list is the one retry-worthy failure; anything else stops CI here.
images=/var/cache/gst-dlainfer/skimage
fetch="$(dirname "${BASH_SOURCE[0]}")/../tests/kernels/fetch_skimage_images.sh"
sh "$fetch" "$images" 2>/dev/null || { apt-get update -qq && sh "$fetch" "$images"; } ||
  { echo "install-deps: could not fetch the oracle's photographs into $images" >&2; exit 1; }
# The real models (face-api's networks and their oracle, tests/models/face_api_check.py; with CI set
# it fails without them): pinned npm packages into the cache outside the repository.
bash "$(dirname "${BASH_SOURCE[0]}")/../tests/models/fetch-face-api.sh" /var/cache/gst-dlainfer/face-api ||
  { echo "install-deps: could not fetch face-api into /var/cache/gst-dlainfer/face-api (the line above says why)" >&2; exit 1; }
# dlainfer-prep's oracle (tests/tools/prep_test.py): ONNX Runtime from npm (Debian 12 packages none).
bash "$(dirname "${BASH_SOURCE[0]}")/../tests/tools/fetch-onnxruntime-node.sh" /var/cache/gst-dlainfer/onnxruntime-node ||
  { echo "install-deps: could not fetch onnxruntime-node into /var/cache/gst-dlainfer/onnxruntime-node (the line above says why)" >&2; exit 1; }
[ -x /usr/local/cuda/bin/nvcc ] || { echo "install-deps: the CUDA 13 toolkit is expected at /usr/local/cuda (nvcc not found)" >&2; exit 1; }
