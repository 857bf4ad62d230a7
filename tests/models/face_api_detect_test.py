#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""TinyFaceDetector through dladetect on swdla against face-api's own detections (docs/real-models.md).

The detector is converted (tools/models/face_api_to_onnx.py) and imported (swdla-import.py,
fp16:chw16), with a .modelinfo for face-api's decode: yolo-anchors, YOLOv2's box formula, anchors
in cells, objectness only, class-agnostic NMS at IoU 0.4, threshold 0.5 (face-api's
TinyFaceDetectorOptions and TinyYolov2Base.extractBoxes). Each photograph's 416x416 input as
face-api's first convolution saw it (the oracle's dump, padded bottom/right and resized by tfjs) is
turned back into 8-bit pixels and fed as a 416x416 frame with mean = face-api's mean / 255, std 1;
every face face-api found must be found (same count, IoU >= 0.9, score within 0.02 after the
8-bit rounding and FP16). Exit 77 (skip) without the face-api cache or its oracle dumps (CI: fail)."""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'tools', 'models'))
import face_api_to_onnx  # noqa: E402

CACHE = '/var/cache/gst-dlainfer/face-api'
SIZE = 416


def skip(why):
    if os.environ.get('CI'):
        print(f'FAIL: {why} (CI must fetch it: .ci/install-deps.sh, then run face-api-models once)')
        return 1
    print(f'SKIP: {why}')
    return 77


def modelinfo(anchors):
    return ('[modelinfo]\nversion=1.0\ndlainfer-decoder=yolo-anchors\ndlainfer-box-formula=yolov2\n'
            'dlainfer-anchor-unit=cells\ndlainfer-classes=0\ndlainfer-class-agnostic-nms=true\n'
            'dlainfer-threshold=0.5\ndlainfer-nms-iou-threshold=0.4\n'
            'dlainfer-anchors=' + ','.join(f'{w},{h}' for w, h in anchors) + '\n')


def detect(model, frame_path, mean):
    """dladetect's detections on one 416x416 RGBA frame: [(score, [x, y, w, h])] in frame pixels."""
    m = ','.join(f'{v:.6f}' for v in mean)
    cmd = ['gst-launch-1.0', '-m', 'filesrc', f'location={frame_path}', 'blocksize=' + str(SIZE * SIZE * 4), '!',
           'rawvideoparse', 'format=rgba', f'width={SIZE}', f'height={SIZE}', '!',
           'dladetect', f'model={model}', f'mean-string={m}', 'post-messages=true', '!', 'fakesink']
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f'{" ".join(cmd)} failed: {r.stdout[-2000:]} {r.stderr[-2000:]}')
    found = []
    for d in re.findall(r'detection, label=\(string\)[^,]*, class-id=\(int\)\d+, confidence=\(float\)([\d.e+-]+), '
                        r'x=\(int\)(-?\d+), y=\(int\)(-?\d+), width=\(int\)(\d+), height=\(int\)(\d+)', r.stdout):
        found.append((float(d[0]), [float(v) for v in d[1:]]))
    return found


def iou(a, b):
    w = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return w * h / (a[2] * a[3] + b[2] * b[3] - w * h)


def check_photo(model, folder, photo, work):
    """face-api's detections of `photo` against dladetect's; a list of failures."""
    x = np.fromfile(os.path.join(folder, photo['name'], photo['input']['file']), np.float32).reshape(3, SIZE, SIZE)
    mean = np.array(photo['mean_rgb'])
    pixels = np.clip(np.rint(x * 255 + mean[:, None, None]), 0, 255).astype(np.uint8)
    rgba = np.concatenate([pixels, np.full((1, SIZE, SIZE), 255, np.uint8)]).transpose(1, 2, 0)
    frame = os.path.join(work, photo['name'] + '.rgba')
    rgba.tofile(frame)
    got = detect(model, frame, mean / 255)
    # face-api's boxes are in the photograph's pixels: its content filled round (side * scale) of the input.
    scale = SIZE / max(photo['width'], photo['height'])
    sx = np.floor(photo['width'] * scale + 0.5) / photo['width']
    sy = np.floor(photo['height'] * scale + 0.5) / photo['height']
    want = [(d['score'], np.array(d['box']) * [sx, sy, sx, sy]) for d in photo['detections']]
    failures = []
    if len(got) != len(want):
        failures.append(f'{photo["name"]}: {len(got)} faces, face-api found {len(want)}')
    for score, box in want:
        best = max(got, key=lambda g: iou(g[1], box), default=None)
        if best is None or iou(best[1], box) < 0.9 or abs(best[0] - score) > 0.02:
            failures.append(f'{photo["name"]}: face-api\'s face {np.round(box, 1)} ({score:.3f}) not found '
                            f'(nearest: {best})')
    print(f'{photo["name"]}: face-api {len(want)} faces, dladetect {len(got)}')
    return failures


def main():
    oracles = sorted(glob.glob(os.path.join(CACHE, 'oracle-*', 'oracle.json')))
    model_dir = os.path.join(CACHE, 'node_modules', '@vladmandic', 'face-api', 'model')
    if not oracles or not os.path.isdir(model_dir):
        return skip(f'no face-api package or oracle dumps in {CACHE}')
    folder = os.path.dirname(oracles[-1])
    with open(oracles[-1]) as f:
        photos = json.load(f)['photos']
    with tempfile.TemporaryDirectory() as work:
        if face_api_to_onnx.main([model_dir, work]) != 0:
            return 1
        model = os.path.join(work, 'tiny_face_detector.swdla')
        subprocess.run([sys.executable, os.path.join(ROOT, 'tests', 'swdla', 'swdla-import.py'),
                        os.path.join(work, 'tiny_face_detector.onnx'), model], check=True)
        with open(os.path.join(work, 'tiny_face_detector.modelinfo'), 'w') as f:
            f.write(modelinfo(photos[0]['anchors']))
        failures = []
        for photo in photos:
            failures += check_photo(model, folder, photo, work)
    for line in failures:
        print('FAIL:', line)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
