#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""TinyFaceDetector through dladetect on swdla against face-api's own detections (docs/real-models.md).

The prepared folder (face_api_gpu_data.py; carried to a GPU host) holds the detector imported to swdla
(fp16:chw16) with a .modelinfo for face-api's decode: yolo-anchors, YOLOv2's box formula, anchors in
cells, objectness only, class-agnostic NMS at IoU 0.4, threshold 0.5 (face-api's
TinyFaceDetectorOptions and TinyYolov2Base.extractBoxes). Each photograph's frame is the detector's
416x416 input as face-api built it (padded bottom/right to a square, resized by tfjs) in 8-bit
pixels, fed with mean = face-api's mean / 255, std 1, so dladetect's plain resize is the identity.
Every face face-api found in Node must be found (same count, IoU >= 0.9, score within 0.02: the
8-bit rounding and FP16 move it by under 0.005 on these photographs' FP16 check) and no other.
Exit 77 (skip) without the prepared folder or the face-api cache to make it (CI: fail)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import face_api_gpu as fa  # noqa: E402

IOU_MIN = 0.9
SCORE_TOL = 0.02


def check_photo(folder, meta, photo):
    det = meta['detector']
    size = det['size']
    stdout = fa.launch(['filesrc', f'location={os.path.join(folder, photo["frame_416"])}',
                        f'blocksize={size * size * 4}', '!', 'rawvideoparse', 'format=rgba', f'width={size}',
                        f'height={size}', '!', 'dladetect', f'model={os.path.join(folder, det["model"])}',
                        f'mean-string={fa.means(det["mean"])}', 'post-messages=true', '!', 'fakesink'])
    got = fa.detections(stdout)
    want = [(f['score'], np.array(f['box_416'])) for f in photo['faces']]
    failures = []
    if len(got) != len(want):
        failures.append(f'{photo["name"]}: {len(got)} faces, face-api found {len(want)}')
    for score, box in want:
        best = max(got, key=lambda g: fa.iou(g[1], box), default=None)
        if best is None or fa.iou(best[1], box) < IOU_MIN or abs(best[0] - score) > SCORE_TOL:
            failures.append(f'{photo["name"]}: face-api\'s face {np.round(box, 1)} ({score:.3f}) not found '
                            f'(nearest: {best})')
        else:
            print(f'  {photo["name"]}: face {np.round(box, 1)} score {score:.4f}, dladetect {best[1]} '
                  f'{best[0]:.4f}, IoU {fa.iou(best[1], box):.3f}')
    print(f'{photo["name"]}: face-api {len(want)} faces, dladetect {len(got)}')
    return failures


def main():
    folder = fa.data_dir()
    if folder is None:
        return fa.missing_data(folder)
    meta = fa.load(folder)
    failures = []
    for photo in meta['photos']:
        try:
            failures += check_photo(folder, meta, photo)
        except (RuntimeError, OSError, fa.subprocess.TimeoutExpired) as e:
            failures.append(f'{photo["name"]}: {e}')
    n = sum(len(p['faces']) for p in meta['photos'])
    print(f'{len(meta["photos"])} photographs, {n} faces of face-api {meta["face_api"]}, {len(failures)} failures')
    return fa.report(failures)


if __name__ == '__main__':
    sys.exit(main())
