# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes swdla model files, format version 2 (tests/swdla/FORMAT.md; graph models): the header,
the I/O tensor records, then the layer records, all little-endian. Only the writer: swdla's own
reader (tests/swdla/model.cpp) checks what is written when the file is loaded."""
import struct
from dataclasses import dataclass, field

import numpy as np

MAGIC = b'SWDLAMDL'
VERSION = 2
HEADER_BYTES = 32
TENSOR_BYTES = 128
LAYER_FIXED_BYTES = 216
NAME_BYTES = 80
MAX_LAYER_INPUTS = 8

LAYOUTS = {'chw16': 0, 'chw32': 1, 'dla_linear': 2, 'dla_hwc4': 3}
TYPES = {'fp16': 0, 'int8': 1}
KINDS = {'conv': 1, 'relu': 2, 'maxpool': 3, 'avgpool': 4, 'gap': 5, 'fc': 6, 'softmax': 7,
         'adaptive_avgpool': 8, 'leaky_relu': 9, 'sigmoid': 10, 'tanh': 11, 'clip': 12, 'eltwise': 13,
         'concat': 14, 'resize': 15, 'scale': 16}
ELTWISE_OPS = {'sum': 0, 'prod': 1, 'max': 2, 'min': 3, 'sub': 4}
WEIGHT_TYPES = {'fp32': 0, 'fp16': 1}
# The 16 int parameters of a layer record, in order; sy, sx, dil_y, dil_x, groups are 1 when unused.
INT_PARAMS = ('out_c', 'kh', 'kw', 'sy', 'sx', 'pad_top', 'pad_left', 'pad_bottom', 'pad_right',
              'dil_y', 'dil_x', 'groups', 'out_h', 'out_w', 'op', 'reserved')
ONE_WHEN_UNUSED = ('sy', 'sx', 'dil_y', 'dil_x', 'groups')


@dataclass
class Tensor:
    """An I/O tensor record. Outputs name the tensor id they are written from (source)."""
    name: str
    layout: str = 'chw16'
    type: str = 'fp16'
    n: int = 1
    c: int = 1
    h: int = 1
    w: int = 1
    scale: float = 1.0
    report_type: int = -1
    source: int = -1


@dataclass
class Layer:
    kind: str
    name: str
    inputs: list
    params: dict = field(default_factory=dict)   # INT_PARAMS by name; the others default
    alpha: float = 0.0
    beta: float = 0.0
    weight_type: str = 'fp32'
    weights: np.ndarray = None
    bias: np.ndarray = None


def _name(text):
    raw = text.encode()
    if not 1 <= len(raw) < NAME_BYTES:
        raise ValueError(f'name {text!r}: 1..{NAME_BYTES - 1} bytes')
    return raw.ljust(NAME_BYTES, b'\0')


def tensor_record(t, is_input):
    rec = _name(t.name) + struct.pack('<6Ifii', LAYOUTS[t.layout], TYPES[t.type], t.n, t.c, t.h, t.w,
                                      t.scale, t.report_type, -1 if is_input else t.source)
    return rec.ljust(TENSOR_BYTES, b'\0')


def _values(a, wtype):
    if a is None:
        return b'', 0
    a = np.asarray(a, np.float32).ravel()
    return a.astype('<f2' if wtype == 'fp16' else '<f4').tobytes(), a.size


def layer_record(layer):
    if not 1 <= len(layer.inputs) <= MAX_LAYER_INPUTS:
        raise ValueError(f'layer {layer.name!r}: 1..{MAX_LAYER_INPUTS} inputs')
    unknown = set(layer.params) - set(INT_PARAMS)
    if unknown:
        raise ValueError(f'layer {layer.name!r}: unknown parameters {sorted(unknown)}')
    ints = [layer.params.get(p, 1 if p in ONE_WHEN_UNUSED else 0) for p in INT_PARAMS]
    ids = list(layer.inputs) + [-1] * (MAX_LAYER_INPUTS - len(layer.inputs))
    wbytes, nw = _values(layer.weights, layer.weight_type)
    bbytes, nb = _values(layer.bias, layer.weight_type)
    data = wbytes + bbytes
    data += b'\0' * (-len(data) % 4)
    size = LAYER_FIXED_BYTES + len(data)
    head = struct.pack('<2I', KINDS[layer.kind], size) + _name(layer.name)
    head += struct.pack('<I8i16i4f3I', len(layer.inputs), *ids, *ints, layer.alpha, layer.beta, 0.0, 0.0,
                        WEIGHT_TYPES[layer.weight_type], nw, nb)
    assert len(head) == LAYER_FIXED_BYTES
    return head + data


def write(inputs, outputs, layers):
    """The file's bytes: inputs and outputs are Tensor lists, layers a Layer list in topological order
    (layer j's result is tensor id len(inputs) + j)."""
    body = b''.join(tensor_record(t, True) for t in inputs) + b''.join(tensor_record(t, False) for t in outputs)
    body += b''.join(layer_record(layer) for layer in layers)
    size = HEADER_BYTES + len(body)
    header = MAGIC + struct.pack('<6I', VERSION, HEADER_BYTES, len(inputs), len(outputs), len(layers), size)
    return header + body
