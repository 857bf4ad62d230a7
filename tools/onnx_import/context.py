# SPDX-License-Identifier: LGPL-2.1-or-later
"""The importer's state while it walks the ONNX graph: the values of ONNX tensor names (constants as
NumPy arrays, activations as swdla tensor ids with their shapes), the layers written so far, and the
folding of per-channel affine maps (BatchNormalization, constant Mul/Add) into the layer before."""
import hashlib
from dataclasses import dataclass

import numpy as np

from . import dla_rules
from .swdla_file import Layer


class Refuse(Exception):
    """A node the DLA cannot run: the rules it breaks."""

    def __init__(self, *rules):
        super().__init__('; '.join(rules))
        self.rules = list(rules)


@dataclass(frozen=True)
class Act:
    """An activation: swdla tensor id (None: a ghost behind a refused node, still shape-checked),
    shape (c, h, w) per image, the ONNX rank (4: N x C x H x W, 2: N x C, held as C x 1 x 1) and
    `flat`: an N x (C.H.W) flattening of a C x H x W tensor with H.W > 1, which only a fully
    connected layer reads. shape None: not known (behind a refused node)."""
    id: object
    shape: object
    rank: int = 4
    flat: bool = False

    def onnx_shape(self, n):
        if self.shape is None:
            return None
        c, h, w = self.shape
        if self.flat:
            return [n, c * h * w]
        return [n, c, h, w] if self.rank == 4 else [n, c]


def short_name(name):
    """A layer name of at most 79 bytes: long ONNX names keep their head and a hash."""
    if len(name.encode()) <= dla_rules.MAX_NAME:
        return name
    digest = hashlib.sha1(name.encode()).hexdigest()[:10]
    head = name.encode()[:dla_rules.MAX_NAME - 11].decode(errors='ignore')
    return f'{head}~{digest}'


class Context:
    def __init__(self, batch, consumers, outputs, weight_type, opset):
        self.batch = batch
        self.consumers = consumers    # ONNX name -> how many needed nodes read it
        self.outputs = set(outputs)   # ONNX names that are model outputs
        self.weight_type = weight_type
        self.opset = opset
        self.values = {}              # ONNX name -> np.ndarray | Act
        self.layers = []
        self.n_inputs = 0
        self.folded = {}              # op type -> count folded into the layer before
        self.removed = {}             # op type -> count removed (aliases)
        self.fp32_layers = []         # layers kept in FP32 although FP16 was asked

    # Values --------------------------------------------------------------------------------------
    def const(self, name):
        v = self.values.get(name) if name else None
        return v if isinstance(v, np.ndarray) else None

    def act(self, name):
        v = self.values.get(name)
        if not isinstance(v, Act):
            raise Refuse(f'input {name!r} is a constant: the DLA\'s layers read activations here')
        return v

    def ghost(self, act):
        return act.id is None

    # Layers --------------------------------------------------------------------------------------
    def add(self, kind, name, inputs, shape, rank=4, **fields):
        """A layer reading `inputs` (Acts) with result `shape`; a ghost when an input is one."""
        bad = dla_rules.tensor(shape)
        if bad:
            raise Refuse(*bad)
        if any(a.id is None for a in inputs):
            return Act(None, shape, rank)
        for what in ('weights', 'bias'):
            v = fields.get(what)
            if v is not None and not np.isfinite(np.asarray(v, np.float64)).all():
                raise Refuse(f'its {what} hold NaN or infinity (after folding, e.g. a negative variance in a '
                             'BatchNormalization): the file is damaged or the export went wrong')
        if fields.get('weights') is not None and self.weight_type == 'fp16':
            big = max(np.abs(np.asarray(fields['weights'])).max(initial=0),
                      np.abs(np.asarray(fields.get('bias') if fields.get('bias') is not None else 0)).max())
            fields['weight_type'] = 'fp32' if big > 65504 else 'fp16'
            if big > 65504:
                self.fp32_layers.append(name)
        layer = Layer(kind, short_name(name), [a.id for a in inputs], **fields)
        self.layers.append(layer)
        return Act(self.n_inputs + len(self.layers) - 1, shape, rank)

    def layer_of(self, act):
        if act.id is None or act.id < self.n_inputs:
            return None
        return self.layers[act.id - self.n_inputs]

    def foldable(self, onnx_name, act):
        """The layer giving `onnx_name` can take a per-channel affine map in place: a conv, fc or
        scale layer read by this node only and not a model output."""
        layer = self.layer_of(act)
        return (layer is not None and layer.kind in ('conv', 'fc', 'scale') and not act.flat and
                self.consumers.get(onnx_name, 0) == 1 and onnx_name not in self.outputs)

    def affine(self, op, in_name, out_name, w, b):
        """y = x * w + b per channel (w, b: length C or 1, b may be None): folded into the layer
        before when it can take it, else a scale layer."""
        act = self.act(in_name)
        c = act.shape[0]
        if self.foldable(in_name, act):
            layer = self.layer_of(act)
            wc = np.broadcast_to(np.asarray(w, np.float32), (c,)).astype(np.float32)
            bc = np.zeros(c, np.float32) if b is None else np.broadcast_to(np.asarray(b, np.float32), (c,))
            if layer.kind == 'scale':
                lw = np.broadcast_to(layer.weights, (c,)) if layer.weights.size == 1 else layer.weights
                lb = np.zeros(c, np.float32) if layer.bias is None else np.broadcast_to(layer.bias, (c,))
                layer.weights, layer.bias = (lw * wc).astype(np.float32), (lb * wc + bc).astype(np.float32)
            else:  # conv or fc: weights [out_c][...]
                lw = layer.weights.reshape(c, -1)
                lb = np.zeros(c, np.float32) if layer.bias is None else layer.bias
                layer.weights = (lw * wc[:, None]).reshape(layer.weights.shape).astype(np.float32)
                layer.bias = (lb * wc + bc).astype(np.float32)
            layer.name = short_name(out_name)
            self.folded[op] = self.folded.get(op, 0) + 1
            self.values[out_name] = act
            return
        w = np.asarray(w, np.float32).ravel()
        b = None if b is None else np.asarray(b, np.float32).ravel()
        self.values[out_name] = self.add('scale', out_name, [act], act.shape, act.rank, weights=w, bias=b)

    def alias(self, op, out_name, act):
        self.removed[op] = self.removed.get(op, 0) + 1
        self.values[out_name] = act
