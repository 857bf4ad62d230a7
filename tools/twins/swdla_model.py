# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reads swdla model files (tests/swdla/FORMAT.md, version 2: graphs) into plain Python objects.

Only the reader: the writer is swdla's own (tests/swdla/model.cpp). Used by make_twins.py to give
each ONNX twin the very weights of its swdla model."""
import struct

import numpy as np

MAGIC = b'SWDLAMDL'
VERSION = 2
LAYOUTS = {0: 'chw16', 1: 'chw32', 2: 'dla_linear', 3: 'dla_hwc4'}
TYPES = {0: 'fp16', 1: 'int8'}
KINDS = {1: 'conv', 2: 'relu', 3: 'maxpool', 4: 'avgpool', 5: 'gap', 6: 'fc', 7: 'softmax', 8: 'adaptive_avgpool',
         9: 'leaky', 10: 'sigmoid', 11: 'tanh', 12: 'clip', 13: 'eltwise', 14: 'concat', 15: 'resize', 16: 'scale'}
ELTWISE = {0: 'sum', 1: 'prod', 2: 'max', 3: 'min', 4: 'sub'}
TENSOR_BYTES, LAYER_FIXED_BYTES = 128, 216
PARAMS = ('out_c', 'kh', 'kw', 'sy', 'sx', 'pt', 'pl', 'pb', 'pr', 'dy', 'dx', 'groups', 'out_h', 'out_w', 'op')


def _name(raw):
    return raw.split(b'\0', 1)[0].decode()


class Tensor:
    def __init__(self, rec):
        self.name = _name(rec[:80])
        layout, etype, n, c, h, w = struct.unpack_from('<6I', rec, 80)
        self.scale, self.report_type, self.source = struct.unpack_from('<fii', rec, 104)
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
        self.name = _name(data[off + 8:off + 88])
        n_in, = struct.unpack_from('<I', data, off + 88)
        self.inputs = list(struct.unpack_from(f'<{n_in}i', data, off + 92))
        for key, value in zip(PARAMS, struct.unpack_from('<15i', data, off + 124)):
            setattr(self, key, value)
        self.alpha, self.beta = struct.unpack_from('<2f', data, off + 188)
        wtype, nw, nb = struct.unpack_from('<3I', data, off + 204)
        self.wtype = 'fp16' if wtype == 1 else 'fp32'
        dt = np.float16 if wtype == 1 else np.float32
        p = off + LAYER_FIXED_BYTES
        self.weights = np.frombuffer(data, dt, nw, p).astype(np.float32)
        self.bias = np.frombuffer(data, dt, nb, p + nw * np.dtype(dt).itemsize).astype(np.float32) if nb else None
        self.nbytes = nbytes

    @property
    def symmetric_pads(self):
        """(py, px) when top = bottom and left = right, else None."""
        return (self.pt, self.pl) if (self.pt, self.pl) == (self.pb, self.pr) else None


class Model:
    def __init__(self, path):
        data = open(path, 'rb').read()
        if len(data) < 32 or data[:8] != MAGIC:
            raise ValueError(f'{path}: not an swdla model')
        version, hdr, nin, nout, nlayers, size = struct.unpack_from('<6I', data, 8)
        if version != VERSION or size != len(data):
            raise ValueError(f'{path}: version {version} (this reader: {VERSION}), {size} bytes declared, '
                             f'{len(data)} read')
        off = hdr
        self.inputs, self.outputs, self.layers = [], [], []
        for i in range(nin + nout):
            (self.inputs if i < nin else self.outputs).append(Tensor(data[off:off + TENSOR_BYTES]))
            off += TENSOR_BYTES
        for _ in range(nlayers):
            layer = Layer(data, off)
            self.layers.append(layer)
            off += layer.nbytes
        self.path = path

    def is_chain(self):
        """One input and one output, each layer reading the previous result (input 0 first) and
        the output written from the last: the version-1 shape of a model."""
        last = len(self.inputs) + len(self.layers) - 1
        return (len(self.inputs) == 1 and len(self.outputs) == 1 and self.outputs[0].source == last
                and all(layer.inputs == [j] for j, layer in enumerate(self.layers)))
