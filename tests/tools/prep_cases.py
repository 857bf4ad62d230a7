# SPDX-License-Identifier: LGPL-2.1-or-later
"""dlainfer-prep's detector cases, shared by its CPU test (prep_test.py) and the GPU data written at
build time (write_prep_gpu.py): each trained-model-shaped graph with its decode (prep_graphs.py), a
seeded 8-bit picture as large as the input (so that dladetect's preprocessing, mean 0 and std 1,
gives exactly pixel / 255), the cut the tool must propose, and the boxes the *uncut* graph's own
decode gives, after the threshold and a per-class greedy NMS written here (score > the family's
threshold, IoU > 0.45 suppresses, as dladetect). The thresholds keep a few hundred candidates, under
dladetect's 1024, and max-detections is 1024, so that no cap decides which boxes are left. Boxes are
(x0, y0, x1, y1) in input pixels."""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PREP = os.path.join(ROOT, 'tools', 'prep', 'dlainfer-prep.py')
sys.path[:0] = [HERE, os.path.join(ROOT, 'tools', 'twins')]
import onnx_eval  # noqa: E402
import prep_graphs  # noqa: E402
from prep_compare import IOU, MAX_DETECTIONS, compare, iou, nms  # noqa: E402,F401

THRESHOLDS = {'yolov5': 0.5, 'yolov7': 0.5, 'yolov8': 0.6, 'ssd': 0.7}


def prep_keys(family):
    """What the test tells dlainfer-prep beyond what it reads (the decoder's own keys it must read)."""
    return ['--key', f'threshold={THRESHOLDS[family]}', '--key', f'max-detections={MAX_DETECTIONS}']

# family: (expected cut tensors in dladetect's level order, a function of the built model)
EXPECTED_CUT = {
    'yolov5': lambda m: ['head0', 'head1', 'head2'],
    'yolov7': lambda m: [f'/model.105/m.{k}/im/Mul_out0' for k in range(3)],
    'yolov8': lambda m: ['level0', 'level1', 'level2'],
    'ssd': lambda m: [f'{w}{k}' for k in range(4) for w in ('loc', 'conf')],
    'classifier': lambda m: ['logits'],
}
DETECTORS = ('yolov5', 'yolov7', 'yolov8', 'ssd')


picture = prep_graphs.picture


def run_prep(model_path, out_prefix, extra=()):
    r = subprocess.run(['/usr/bin/python3', PREP, model_path, '--cut', '--out', out_prefix, '--quiet-table']
                       + list(extra), capture_output=True, text=True)
    return r


def proposed_cut(stdout):
    for line in stdout.splitlines():
        if '; cut at: ' in line:
            return line.split('; cut at: ', 1)[1].split(', ')
    return None


def candidates(family, outs, size):
    """(boxes N x 4 in input pixels, scores N, classes N) from the uncut graph's decoded outputs."""
    if family in ('yolov5', 'yolov7'):
        y = outs[0][0]
        obj, cls = y[:, 4], y[:, 5:]
        best = cls.argmax(1)
        scores = obj * cls[np.arange(len(y)), best]
        cx, cy, w, h = y[:, 0], y[:, 1], y[:, 2], y[:, 3]
    elif family == 'yolov8':
        y = outs[0][0].T
        cls = y[:, 4:]
        best = cls.argmax(1)
        scores = cls[np.arange(len(y)), best]
        cx, cy, w, h = y[:, 0], y[:, 1], y[:, 2], y[:, 3]
    else:  # ssd: normalised (cx, cy, w, h); class 0 is the background
        b, s = outs[0][0], outs[1][0]
        best = s[:, 1:].argmax(1) + 1
        scores = s[np.arange(len(s)), best]
        cx, cy, w, h = b[:, 0] * size[1], b[:, 1] * size[0], b[:, 2] * size[1], b[:, 3] * size[0]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1)
    return boxes.astype(np.float64), scores.astype(np.float64), best.astype(np.int64)


def expected(family, model, x, outs=None):
    """The uncut graph's detections on input x ([(box, score, class)]) and all its candidates (boxes,
    scores, classes) for the comparison's tolerance; outs: the graph's outputs (default: the NumPy
    evaluator's, tools/twins/onnx_eval.py)."""
    if outs is None:
        outs = onnx_eval.run(model, {model.graph.input[0].name: x})
    cand = candidates(family, outs, x.shape[2:])
    kept = nms(*cand, THRESHOLDS[family])
    # dladetect clips the kept boxes to the frame (docs/detection.md 1, step 6); NMS saw them unclipped
    h, w = x.shape[2:]
    clip = [float(np.clip(v, 0, (w, h)[k % 2])) for i in kept for k, v in enumerate(cand[0][i])]
    return [(clip[4 * j:4 * j + 4], float(cand[1][i]), int(cand[2][i])) for j, i in enumerate(kept)], cand
