#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# faces-demo.sh — the faces part of demo.sh (which sources it after its set-up and its CUDA check,
# with BUILD, FACES_DIR, program and run set): prepares FACES_DIR once (unless DEMO_SKIP_SETUP=1),
# runs dlainfer-faces-demo on its clip, then checks the tracks against face-api (faces-check.py).
# The summary's last line says how long the run took.
if [ "${DEMO_SKIP_SETUP:-0}" != 1 ]; then
  if [ ! -f "$FACES_DIR/stamp" ]; then
    echo "demo: preparing $FACES_DIR: face-api's networks converted, the clip made and face-api run on each of its frames in Node (once; minutes)"
  fi
  /usr/bin/python3 tools/models/face_api_prepare.py "$FACES_DIR" ||
    { echo "demo: could not prepare $FACES_DIR (the line above says why)"; exit 1; }
fi
[ -f "$FACES_DIR/faces.conf" ] && [ -f "$FACES_DIR/faces-clip.oracle.txt" ] || {
  echo "demo: $FACES_DIR has no prepared clip (faces.conf, faces-clip.oracle.txt): run without DEMO_SKIP_SETUP, or /usr/bin/python3 tools/models/face_api_prepare.py $FACES_DIR"
  exit 1
}
png_dir=${PNG_DIR:-$BUILD/demo-frames}
mp4=${FACES_MP4:-$BUILD/faces-demo.mp4}
results=$BUILD/faces-demo-results.txt
rm -f "$png_dir"/frame-*.png
echo "demo: faces in a clip of face-api's sample photographs, on swdla (software DLA on the GPU: not hardware results)"
start=$(date +%s.%N) rc=0
# (demo.sh runs with set -e: each failure is caught, so that the time is said whatever happens.)
$run "$BUILD/pipelines/$program" --dir "$FACES_DIR" --png-dir "$png_dir" --png-every "${PNG_EVERY:-10}" \
  --mp4 "$mp4" --results "$results" || rc=$?
end=$(date +%s.%N)
if [ $rc -eq 0 ]; then
  # (The standard library only; without the GPU-host bundle's libraries, which are not Python's.)
  env -u LD_LIBRARY_PATH ${PYTHON:-python3} pipelines/faces-check.py "$results" "$FACES_DIR/faces-clip.oracle.txt" || rc=$?
fi
echo "demo: $(LC_ALL=C awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s, exit $rc"
exit $rc
