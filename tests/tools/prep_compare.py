# SPDX-License-Identifier: LGPL-2.1-or-later
"""Detections compared for dlainfer-prep's tests (NumPy only: the GPU host runs it): IoU, the
per-class greedy NMS the expectations use (dladetect's rule: a box is suppressed by a kept box of
its class with IoU > 0.45), the comparison with its FP16 tolerances, and the detections of what
`gst-launch-1.0 -m` printed."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
import launch_messages  # noqa: E402

IOU, MAX_DETECTIONS = 0.45, 1024


def launch_detections(stdout):
    """dladetect-result messages as gst-launch-1.0 -m prints them: [([x0, y0, x1, y1], score, class)]."""
    return [([x, y, x + w, y + h], s, c) for c, s, x, y, w, h in launch_messages.detections(stdout)]


def iou(a, b):
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def nms(boxes, scores, classes, threshold):
    """Indices kept: score > threshold, best first (ties: index), per class, at most MAX_DETECTIONS."""
    order = [i for i in sorted(range(len(scores)), key=lambda i: (-scores[i], i)) if scores[i] > threshold]
    kept = []
    for i in order:
        if all(classes[k] != classes[i] or iou(boxes[k], boxes[i]) <= IOU for k in kept):
            kept.append(i)
            if len(kept) == MAX_DETECTIONS:
                break
    return kept


def same_box(a, b, px):
    return iou(a, b) >= 0.9 or (px > 0 and max(abs(x - y) for x, y in zip(a, b)) <= px)


def compare(got, want, cand, threshold, tol=0.01, px=0.0):
    """Failures between detections got (dladetect or its CPU reference) and want (the uncut graph's).
    Not failures: a detection within `tol` of the threshold, one that NMS keeps or drops on an IoU
    within 0.02 of the NMS threshold, or one whose overlapping rival of its class scores within `tol`
    (FP16 heads move scores and boxes by that much, and may swap such a pair). Boxes match with an IoU
    of 0.9, or with every side within `px` pixels (whole pixels in dladetect's messages; boxes the
    frame's edge clipped to nothing have no IoU)."""
    boxes, scores, classes = cand
    fails = []

    def borderline(box, score, cls):
        if abs(score - threshold) <= tol:
            return True
        rivals = [i for i in np.nonzero((classes == cls) & (scores > score - tol))[0]]
        return any(abs(iou(boxes[i], box) - IOU) <= 0.02 or
                   (abs(scores[i] - score) <= tol and 0.02 < iou(boxes[i], box) < 0.9) for i in rivals)

    for box, score, cls in want:
        hit = [g for g in got if g[2] == cls and same_box(g[0], box, px) and abs(g[1] - score) <= tol]
        if not hit and not borderline(box, score, cls):
            fails.append(f'expected {cls} {score:.3f} {np.round(box, 1).tolist()} not found')
    for box, score, cls in got:
        hit = [w for w in want if w[2] == cls and same_box(w[0], box, px) and abs(w[1] - score) <= tol]
        if not hit and not borderline(box, score, cls):
            fails.append(f'unexpected {cls} {score:.3f} {np.round(box, 1).tolist()}')
    return fails
