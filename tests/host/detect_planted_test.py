#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The planted detector (tests/swdla/models.spec, graph-detect-planted and -linear) on the CPU: the
letterboxed tensor of element-gpu-detect's painted 1080p frame (block means, no resize blur) through
swdla's CPU executor (swdla-tool run-dense), its heads decoded by the CPU reference (detect-ref-cli)
with the .modelinfo keys the GPU test uses. The boxes must be the ones YOLO's box formula and the
letterbox give (the cell's centre, the anchor's size, scale 6, 70 rows of padding): the GPU test's
expectations hold in every build, and the model, the keys and the decoder agree.
Usage: detect_planted_test.py SWDLA_TOOL DETECT_REF_CLI MODEL_DIR"""
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import detect_oracle  # noqa: E402  (its DLA layout packer)

SCALE, PAD = 6.0, 70
KEYS = {'dlainfer-decoder': 'yolo-anchors', 'dlainfer-anchors': '64,64;96,96', 'dlainfer-threshold': '0.5'}


def cell(xs, ys, stride, cx, cy):
    tx, ty = xs / SCALE, ys / SCALE + PAD
    return (tx >= cx * stride) & (tx < (cx + 1) * stride) & (ty >= cy * stride) & (ty < (cy + 1) * stride)


def tensor():
    """The painted frame (element_gpu_detect_test.cpp: planted) letterboxed into 3x320x320."""
    ys, xs = np.mgrid[0:1080, 0:1920].astype(np.float64)
    red = cell(xs, ys, 32, 3, 4) | cell(xs, ys, 32, 3, 5)
    magenta = cell(xs, ys, 32, 4, 4)
    green = cell(xs, ys, 16, 14, 10)
    img = np.stack([red | magenta, green, magenta]).astype(np.float64)
    t = np.zeros((1, 3, 320, 320), np.float32)
    t[0, :, PAD:PAD + 180, :] = img.reshape(3, 180, 6, 320, 6).mean(axis=(2, 4))
    return t


def expected(stride, cx, cy, anchor, cls):
    tx, ty = (cx + 0.5) * stride, (cy + 0.5) * stride
    return [(tx - anchor / 2) * SCALE, (ty - anchor / 2 - PAD) * SCALE, (tx + anchor / 2) * SCALE,
            (ty + anchor / 2 - PAD) * SCALE, cls]


def run(tool, cli, model, layouts, work):
    t = tensor()
    t.tofile(os.path.join(work, 'in.f32'))
    out = os.path.join(work, 'out')
    os.makedirs(out, exist_ok=True)
    subprocess.run([tool, 'run-dense', model, out, os.path.join(work, 'in.f32')], check=True, capture_output=True)
    lines = [f'key {k} {v}' for k, v in KEYS.items()]
    lines += ['input 320 320', 'frame 1920 1080 0 0 1920 1080 letterbox', 'batch 0']
    for name, (c, h, w), (layout, etype, scale) in [('coarse', (7, 10, 10), layouts[0]), ('fine', (7, 20, 20), layouts[1])]:
        values = np.fromfile(os.path.join(out, name + '.f32'), np.float32).reshape(c, h, w)
        raw, _ = detect_oracle.pack(values, layout, etype, scale)
        path = os.path.join(work, name + '.bin')
        open(path, 'wb').write(raw)
        lines.append(f'output {name} {layout} {etype} 1 {c} {h} {w} {scale if etype == "int8" else 0} {path}')
    case = os.path.join(work, 'planted.case')
    open(case, 'w').write('\n'.join(lines) + '\n')
    r = subprocess.run([cli, case], capture_output=True, text=True, check=True)
    return [[float(v) for v in l.split()[1:5]] + [int(l.split()[6])] for l in r.stdout.splitlines()
            if l.startswith('det ')]


def main():
    tool, cli, models = sys.argv[1:4]
    want = [expected(32, 4, 4, 96, 1), expected(32, 3, 4, 96, 0), expected(16, 14, 10, 64, 0)]
    failures = []
    for name, layouts in [('graph-detect-planted', [('chw16', 'fp16', 1.0), ('chw32', 'int8', 1 / 16)]),
                          ('graph-detect-planted-linear', [('dla_linear', 'fp16', 1.0), ('dla_linear', 'int8', 1 / 16)])]:
        with tempfile.TemporaryDirectory() as work:
            got = run(tool, cli, os.path.join(models, name + '.swdla'), layouts, work)
        ok = len(got) == len(want) and all(g[4] == w[4] and np.allclose(g[:4], w[:4], atol=0.02)
                                           for g, w in zip(sorted(got), sorted(want)))
        print(f'{name}: {got}')
        if not ok:
            failures.append(f'{name}: {got}, expected {want}')
    for f in failures:
        print('FAIL:', f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
