#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""write_imported.py OUTDIR STAMP: the importer's networks (YOLOv5-, YOLOv8-, SSD-shaped) and a few
one-kind graphs (every new layer kind, INT8 and hwc4 inputs), imported into OUTDIR/<name>.swdla for
the GPU test import_gpu_test.py (the GPU host needs no python3-onnx then). A network with several
outputs is written once per output, that output first (dlainfer-inspect --expect compares output 0).
STAMP lists the files."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), 'tools')]
import import_cases  # noqa: E402
from onnx_import import importer, io_formats  # noqa: E402

GPU_CASES = ('conv-depthwise', 'conv-dilation2', 'conv-asym-pads', 'div-unfoldable-scale', 'leaky-relu',
             'tanh', 'clip-inputs', 'broadcast-mul', 'broadcast-sub', 'silu', 'concat3', 'resize-scales',
             'flatten-gemm-softmax', 'identity-dropout-softmax4d', 'int8-chw32-in-int8-linear-out',
             'int8-hwc4-in', 'batch2')


def main():
    outdir, stamp = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    todo = []
    for c in import_cases.unit_cases():
        if c.name in GPU_CASES:
            todo.append((c.name, c, io_formats.parse_list(c.outputs)))
    for c in import_cases.network_cases():
        names = [o.name for o in c.model.graph.output]
        for k in range(len(names)):
            order = names[k:] + names[:k]
            todo.append((f'{c.name}-{order[0]}', c, io_formats.parse_list(','.join(f'{n}:fp16:chw16' for n in order))))
    written = []
    for name, c, outs in todo:
        data, _ = importer.convert(c.model, io_formats.parse_list(c.inputs), outs, c.weights)
        path = os.path.join(outdir, name + '.swdla')
        with open(path, 'wb') as f:
            f.write(data)
        written.append(path)
    with open(stamp, 'w') as f:
        f.write(''.join(p + '\n' for p in written))


if __name__ == '__main__':
    main()
