#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The expression cascade on real faces (docs/real-models.md): TinyFaceDetector in dladetect
(dla-core=0) ! FaceExpressionNet in dlainfer inference-region=roi-list (dla-core=1), on swdla,
against face-api's detections and expressions for the same faces.

Frames: each photograph at full size padded bottom/right with black to a square (face-api's
padToSquare), so dladetect's stretch to 416x416 is face-api's letterbox; antialias=false makes its
resize bilinear like tfjs's, but with half-pixel centres where tfjs's legacy resize has none: the
detector's input is not face-api's, scores move by up to 0.07 and boxes to IoU 0.87 (measured with
the FP32 network on these photographs, face_api_gpu_data.py's model of the resize). So: every face
face-api scores >= 0.57 is detected with IoU >= 0.8, every detection scoring >= 0.57 is one of
face-api's faces (nearer the 0.5 threshold a face may come or go).

Expressions: face-api crops its box from the photograph (floored), pads it to a square with black
on both sides and resizes to 112 with tfjs's legacy bilinear; dlainfer crops dladetect's box from
the same pixels with resize-mode=letterbox (centred, black), antialias=false, half-pixel centres.
The network is sensitive to that difference: face_api_gpu_data.py runs it (FP32, NumPy) on the
cascade's crop of face-api's box moved by up to 2 % and scaled by up to 3 % and records the labels
it gives (labels_near). A face whose every such crop gives face-api's label ('stable') must get
face-api's label; any other face must get one of its labels_near. Exit 77 (skip) without the
prepared folder or the face-api cache to make it (CI: fail)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import face_api_gpu as fa  # noqa: E402

IOU_MIN = 0.8
SURE_SCORE = 0.57


def run(folder, meta, photo):
    det, expr = meta['detector'], meta['expression']
    return fa.launch(['filesrc', f'location={os.path.join(folder, photo["frame_square"])}', '!', 'pngdec', '!',
                      'videoconvert', '!', 'video/x-raw,format=RGBA', '!',
                      'dladetect', f'model={os.path.join(folder, det["model"])}', 'dla-core=0', 'antialias=false',
                      f'mean-string={fa.means(det["mean"])}', 'post-messages=true', '!',
                      'dlainfer', 'name=expressions', 'inference-region=roi-list',
                      f'model={os.path.join(folder, expr["model"])}', f'labels={os.path.join(folder, expr["labels"])}',
                      'dla-core=1', 'activation=none', 'top-k=2', 'resize-mode=letterbox', 'pad-value=0',
                      'antialias=false', f'mean-string={fa.means(expr["mean"])}', 'post-messages=true', '!',
                      'fakesink'])


def check_photo(folder, meta, photo):
    stdout = run(folder, meta, photo)
    found, objs = fa.detections(stdout), fa.objects(stdout)
    name = photo['name']
    failures = []
    if len(objs) != len(found):
        failures.append(f'{name}: dladetect found {len(found)} faces, dlainfer classified {len(objs)}')
    for score, box in found:
        if score >= SURE_SCORE and not any(fa.iou(box, f['box_square']) >= IOU_MIN for f in photo['faces']):
            failures.append(f'{name}: dladetect found {box} ({score:.3f}), not one of face-api\'s faces')
    stable = 0
    for f in photo['faces']:
        obj = max(objs, key=lambda o: fa.iou(o[0], f['box_square']), default=None)
        if obj is None or fa.iou(obj[0], f['box_square']) < IOU_MIN:
            if f['score'] >= SURE_SCORE:
                failures.append(f'{name}: face-api\'s face {np.round(f["box_square"], 1)} ({f["score"]:.3f}) '
                                f'not classified (nearest object: {obj})')
            continue
        label = obj[1][0] if obj[1] else None
        allowed = [f['expression']] if f['stable'] else f['labels_near']
        stable += f['stable']
        kind = 'stable' if f['stable'] else 'near ' + ','.join(allowed)
        line = (f'{name}: face {np.round(f["box_square"])} face-api {f["expression"]} '
                f'{max(f["expressions"]):.3f}, cascade {label} {obj[2][0] if obj[2] else 0:.3f} '
                f'(IoU {fa.iou(obj[0], f["box_square"]):.3f}, {kind})')
        print(' ', line)
        if label not in allowed:
            failures.append(line)
    return failures, stable


def main():
    folder = fa.data_dir()
    if folder is None:
        return fa.missing_data(folder)
    meta = fa.load(folder)
    failures, stable = [], 0
    for photo in meta['photos']:
        try:
            f, s = check_photo(folder, meta, photo)
        except (RuntimeError, OSError, fa.subprocess.TimeoutExpired) as e:
            f, s = [f'{photo["name"]}: {e}'], 0
        failures += f
        stable += s
    n = sum(len(p['faces']) for p in meta['photos'])
    print(f'{len(meta["photos"])} photographs, {n} faces of face-api {meta["face_api"]} ({stable} stable), '
          f'{len(failures)} failures')
    return fa.report(failures)


if __name__ == '__main__':
    sys.exit(main())
