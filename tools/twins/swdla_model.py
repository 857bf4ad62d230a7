# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reads swdla model files (tests/swdla/FORMAT.md, version 1) into plain Python objects.

Only the reader: the writer is swdla's own (tests/swdla/model.cpp). Used by make_twins.py to give
each ONNX twin the very weights of its swdla model."""
import struct

import numpy as np

MAGIC = b'SWDLAMDL'
LAYOUTS = {0: 'chw16', 1: 'chw32', 2: 'dla_linear', 3: 'dla_hwc4'}
TYPES = {0: 'fp16', 1: 'int8'}
KINDS = {1: 'conv', 2: 'relu', 3: 'maxpool', 4: 'avgpool', 5: 'gap', 6: 'fc', 7: 'softmax', 8: 'adaptive_avgpool'}


class Tensor:
    def __init__(self, rec):
        self.name = rec[:80].split(b'\0', 1)[0].decode()
        layout, etype, n, c, h, w = struct.unpack_from('<6I', rec, 80)
        self.scale, self.report_type = struct.unpack_from('<fi', rec, 104)
        self.layout, self.type = LAYOUTS[layout], TYPES[etype]
        self.n, self.c, self.h, self.w = n, c, h, w

    @property
    def shape(self):
        return (self.n, self.c, self.h, self.w)

    def io_format(self):
        """The trtexec I/O format string (--inputIOFormats / --outputIOFormats)."""
        return f'{self.type}:{self.layout}'


class Layer:
    def __init__(self, data, off):
        self.kind_id, nbytes = struct.unpack_from('<2I', data, off)
        if self.kind_id not in KINDS:
            raise ValueError(f'unknown layer kind {self.kind_id} at byte {off}')
        self.kind = KINDS[self.kind_id]
        (self.out_c, self.kh, self.kw, self.sy, self.sx, self.py, self.px, self.out_h,
         self.out_w) = struct.unpack_from('<9I', data, off + 8)
        wtype, nw, nb = struct.unpack_from('<3I', data, off + 44)
        self.wtype = 'fp16' if wtype == 1 else 'fp32'
        dt = np.float16 if wtype == 1 else np.float32
        p = off + 56
        self.weights = np.frombuffer(data, dt, nw, p).astype(np.float32)
        self.bias = np.frombuffer(data, dt, nb, p + nw * np.dtype(dt).itemsize).astype(np.float32) if nb else None
        self.nbytes = nbytes


class Model:
    def __init__(self, path):
        data = open(path, 'rb').read()
        if len(data) < 32 or data[:8] != MAGIC:
            raise ValueError(f'{path}: not an swdla model')
        version, hdr, nin, nout, nlayers, size = struct.unpack_from('<6I', data, 8)
        if version != 1 or size != len(data):
            raise ValueError(f'{path}: version {version}, {size} bytes declared, {len(data)} read')
        off = hdr
        self.inputs, self.outputs, self.layers = [], [], []
        for i in range(nin + nout):
            (self.inputs if i < nin else self.outputs).append(Tensor(data[off:off + 128]))
            off += 128
        for _ in range(nlayers):
            layer = Layer(data, off)
            self.layers.append(layer)
            off += layer.nbytes
        self.path = path
