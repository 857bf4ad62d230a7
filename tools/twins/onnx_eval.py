# SPDX-License-Identifier: LGPL-2.1-or-later
"""A small NumPy evaluator for the ONNX twins (the ops make_twins.py writes), for machines without
ONNX Runtime (Debian 12 has no python3-onnxruntime). Each node computes in float32 and rounds its
result to its input's element type (FP16 in, FP16 out), as a runtime without FP16 arithmetic that
casts around each node does. Written from the ONNX operator specifications, not from swdla."""
import numpy as np
from onnx import numpy_helper

ONNX_TO_NP = {1: np.float32, 10: np.float16, 3: np.int8}


def _pad(x, pads, value):
    t, l, b, r = pads
    return np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)), constant_values=value)


def _windows(x, kh, kw, sy, sx):
    """[N, C, OH, OW, kh, kw] view of x's sliding windows."""
    n, c, h, w = x.shape
    oh, ow = (h - kh) // sy + 1, (w - kw) // sx + 1
    s = x.strides
    return np.lib.stride_tricks.as_strided(x, (n, c, oh, ow, kh, kw), (s[0], s[1], s[2] * sy, s[3] * sx, s[2], s[3]))


def conv(x, w, b, a):
    kh, kw = w.shape[2:]
    sy, sx = a.get('strides', [1, 1])
    p = a.get('pads', [0, 0, 0, 0])
    g = a.get('group', 1)
    xp = _pad(x, (p[0], p[1], p[2], p[3]), 0.0)
    win = _windows(xp, kh, kw, sy, sx)  # N C OH OW kh kw
    n, c = x.shape[:2]
    oc = w.shape[0]
    cg, og = c // g, oc // g
    if cg == 1 and og == 1:  # depthwise: one einsum instead of one per channel
        y = np.einsum('ncyxij,cij->ncyx', win, w[:, 0], optimize=True)
        return y + b[None, :, None, None] if b is not None else y
    outs = []
    for gi in range(g):
        wi = win[:, gi * cg:(gi + 1) * cg]
        wg = w[gi * og:(gi + 1) * og]
        outs.append(np.einsum('ncyxij,ocij->noyx', wi, wg, optimize=True))
    y = np.concatenate(outs, axis=1)
    if b is not None:
        y = y + b[None, :, None, None]
    return y


def pool(x, a, kind):
    kh, kw = a['kernel_shape']
    sy, sx = a.get('strides', [1, 1])
    p = a.get('pads', [0, 0, 0, 0])
    pads = (p[0], p[1], p[2], p[3])
    if kind == 'max':
        return _windows(_pad(x, pads, -np.inf), kh, kw, sy, sx).max(axis=(4, 5))
    s = _windows(_pad(x, pads, 0.0), kh, kw, sy, sx).sum(axis=(4, 5))
    if a.get('count_include_pad', 0):
        return s / (kh * kw)
    cnt = _windows(_pad(np.ones((1, 1) + x.shape[2:], np.float32), pads, 0.0), kh, kw, sy, sx).sum(axis=(4, 5))
    return s / cnt


def run(model, feeds):
    env = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    env.update(feeds)
    for node in model.graph.node:
        a = {at.name: (list(at.ints) if at.ints else at.i if at.type == 2 else at.f) for at in node.attribute}
        ins = [env[i] if i else None for i in node.input]
        x = ins[0]
        dtype = x.dtype
        f = x.astype(np.float32)
        op = node.op_type
        if op == 'Conv':
            y = conv(f, ins[1].astype(np.float32), ins[2].astype(np.float32) if len(ins) > 2 else None, a)
        elif op == 'Relu':
            y = np.maximum(f, 0)
        elif op == 'LeakyRelu':
            y = np.where(f < 0, f * np.float32(a.get('alpha', 0.01)), f)
        elif op == 'Add':
            y = f + ins[1].astype(np.float32)
        elif op == 'MaxPool':
            y = pool(f, a, 'max')
        elif op == 'AveragePool':
            y = pool(f, a, 'avg')
        elif op == 'GlobalAveragePool':
            y = f.mean(axis=(2, 3), keepdims=True)
        elif op == 'Softmax':
            e = np.exp(f - f.max(axis=a.get('axis', -1), keepdims=True))
            y = e / e.sum(axis=a.get('axis', -1), keepdims=True)
        elif op == 'Reshape':
            y = f.reshape(ins[1])
        elif op == 'Identity':
            y = x
        elif op == 'Cast':
            y, dtype = f, ONNX_TO_NP[a['to']]
        elif op == 'DequantizeLinear':
            y, dtype = (x.astype(np.float32) - ins[2].astype(np.float32)) * ins[1], ins[1].dtype
        elif op == 'QuantizeLinear':
            y, dtype = np.clip(np.rint(f / ins[1]) + ins[2], -128, 127), np.int8
        else:
            raise NotImplementedError(f'onnx_eval: {op}')
        env[node.output[0]] = np.asarray(y).astype(dtype)
    return [env[o.name] for o in model.graph.output]
