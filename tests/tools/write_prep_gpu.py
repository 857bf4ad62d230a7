#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""write_prep_gpu.py OUTDIR STAMP: the GPU test prep_gpu_test.py's data, written at build time so
that the GPU host needs neither python3-onnx nor Node: for each detector of prep_cases.py, the graph
cut by dlainfer-prep (OUTDIR/<family>-cut.modelinfo), the cut graph imported into swdla
(<family>-cut.swdla, fp16:chw16), the picture as an RGBA PNG (<family>.png: pngdec is in every GPU
bundle, rawvideoparse is not) and the uncut graph's own
detections by the NumPy evaluator with the candidates near them (<family>.json; prep_test.py checks
that evaluator against ONNX Runtime on the same graphs and pictures). STAMP lists the files."""
import json
import os
import struct
import sys
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(ROOT, 'tools')]
import onnx  # noqa: E402

import prep_cases  # noqa: E402
import prep_graphs  # noqa: E402
from onnx_import import importer  # noqa: E402


def write_png(path, rgba):
    """An 8-bit RGBA PNG (colour type 6), rows unfiltered (the PNG specification's chunk layout)."""
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
    h, w, _ = rgba.shape
    raw = b''.join(b'\x00' + rgba[y].tobytes() for y in range(h))
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 6, 0, 0, 0)) +
                chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))


def main():
    outdir, stamp = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    written = []
    for family in prep_cases.DETECTORS:
        model = prep_graphs.MODELS[family]()
        path = os.path.join(outdir, family + '.onnx')
        onnx.save(model, path)
        prefix = os.path.join(outdir, family + '-cut')
        r = prep_cases.run_prep(path, prefix, prep_cases.prep_keys(family))
        if r.returncode != 0:
            sys.exit(f'write_prep_gpu: dlainfer-prep on {family}: {r.stderr.strip()}')
        data, _ = importer.convert(importer.load(prefix + '.onnx'))
        with open(prefix + '.swdla', 'wb') as f:
            f.write(data)
        img, x = prep_cases.picture(model)
        rgba = np.concatenate([img, np.full(img.shape[:2] + (1,), 255, np.uint8)], axis=2)
        write_png(os.path.join(outdir, family + '.png'), rgba)
        threshold = prep_cases.THRESHOLDS[family]
        want, (boxes, scores, classes) = prep_cases.expected(family, model, x)
        near = scores > threshold - 0.05
        with open(os.path.join(outdir, family + '.json'), 'w') as f:
            json.dump({'width': int(x.shape[3]), 'height': int(x.shape[2]), 'threshold': threshold,
                       'want': want, 'candidates': {'boxes': boxes[near].tolist(), 'scores': scores[near].tolist(),
                                                    'classes': classes[near].tolist()}}, f)
        for done in (path, prefix + '.onnx', prefix + '.fp16.onnx'):
            os.remove(done)
        written += [prefix + '.swdla', prefix + '.modelinfo', os.path.join(outdir, family + '.png'),
                    os.path.join(outdir, family + '.json')]
    with open(stamp, 'w') as f:
        f.write('\n'.join(written) + '\n')


if __name__ == '__main__':
    main()
