# SPDX-License-Identifier: LGPL-2.1-or-later
"""A small NumPy evaluator for ONNX graphs (the twins make_twins.py writes, and the graphs the ONNX
importer's tests build), for machines without ONNX Runtime (Debian 12 has no python3-onnxruntime).
Each node computes in float32 and rounds its result to its first input's element type (FP16 in,
FP16 out), as a runtime without FP16 arithmetic that casts around each node does. Written from the
ONNX operator specifications, not from swdla. Ops: Conv (groups, dilations, pads, auto_pad), Relu,
LeakyRelu, Sigmoid, Tanh, Clip, Add/Sub/Mul/Div/Max/Min (NumPy broadcasting), BatchNormalization,
Concat, Resize/Upsample (nearest), MaxPool/AveragePool (floor sizes), GlobalAveragePool, ReduceMean,
Gemm, MatMul, Flatten, Reshape, Squeeze, Unsqueeze, Softmax, Identity, Dropout, Constant, Cast,
QuantizeLinear, DequantizeLinear, and the ops of a detector's decode (dlainfer-prep's tests): Transpose,
Split, Slice, Exp, Pow."""
import numpy as np
from onnx import helper, numpy_helper

ONNX_TO_NP = {1: np.float32, 10: np.float16, 3: np.int8, 6: np.int32, 7: np.int64}


def _pad(x, pads, value):
    t, l, b, r = pads
    return np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)), constant_values=value)


def _windows(x, kh, kw, sy, sx, dy=1, dx=1):
    """[N, C, OH, OW, kh, kw] view of x's sliding (dilated) windows."""
    n, c, h, w = x.shape
    oh, ow = (h - dy * (kh - 1) - 1) // sy + 1, (w - dx * (kw - 1) - 1) // sx + 1
    s = x.strides
    return np.lib.stride_tricks.as_strided(x, (n, c, oh, ow, kh, kw),
                                           (s[0], s[1], s[2] * sy, s[3] * sx, s[2] * dy, s[3] * dx))


def _pads(a, h, w, kh, kw, sy, sx, dy=1, dx=1):
    """(top, left, bottom, right) from pads or auto_pad (SAME_UPPER puts the odd one at the end)."""
    auto = a.get('auto_pad', b'NOTSET')
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if auto in ('SAME_UPPER', 'SAME_LOWER'):
        res = []
        for size, k, s, d in ((h, kh, sy, dy), (w, kw, sx, dx)):
            total = max((-(-size // s) - 1) * s + (k - 1) * d + 1 - size, 0)
            lo = total // 2 if auto == 'SAME_UPPER' else total - total // 2
            res.append((lo, total - lo))
        return (res[0][0], res[1][0], res[0][1], res[1][1])
    if auto == 'VALID':
        return (0, 0, 0, 0)
    p = a.get('pads', [0, 0, 0, 0])
    return (p[0], p[1], p[2], p[3])


def conv(x, w, b, a):
    kh, kw = w.shape[2:]
    sy, sx = a.get('strides', [1, 1])
    dy, dx = a.get('dilations', [1, 1])
    g = a.get('group', 1)
    xp = _pad(x, _pads(a, x.shape[2], x.shape[3], kh, kw, sy, sx, dy, dx), 0.0)
    win = _windows(xp, kh, kw, sy, sx, dy, dx)  # N C OH OW kh kw
    c = x.shape[1]
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
    pads = _pads(a, x.shape[2], x.shape[3], kh, kw, sy, sx)
    if kind == 'max':
        return _windows(_pad(x, pads, -np.inf), kh, kw, sy, sx).max(axis=(4, 5))
    s = _windows(_pad(x, pads, 0.0), kh, kw, sy, sx).sum(axis=(4, 5))
    if a.get('count_include_pad', 0):
        return s / (kh * kw)
    cnt = _windows(_pad(np.ones((1, 1) + x.shape[2:], np.float32), pads, 0.0), kh, kw, sy, sx).sum(axis=(4, 5))
    return s / cnt


def _nearest_index(out, size, scale, ct, nm):
    """Input index of each output index along one axis (ONNX Resize, mode nearest)."""
    o = np.arange(out, dtype=np.float64)
    if ct == 'asymmetric':
        xo = o / scale
    elif ct == 'half_pixel' or (ct == 'pytorch_half_pixel' and out > 1):
        xo = (o + 0.5) / scale - 0.5
    elif ct == 'pytorch_half_pixel':
        xo = np.zeros_like(o)
    elif ct == 'tf_half_pixel_for_nn':
        xo = (o + 0.5) / scale
    elif ct == 'align_corners':
        xo = o * (size - 1) / max(out - 1, 1)
    else:
        raise NotImplementedError(f'onnx_eval: Resize coordinate_transformation_mode {ct}')
    if nm == 'floor':
        i = np.floor(xo)
    elif nm == 'ceil':
        i = np.ceil(xo)
    elif nm == 'round_prefer_ceil':
        i = np.floor(xo + 0.5)
    else:  # round_prefer_floor
        i = np.ceil(xo - 0.5)
    return np.clip(i, 0, size - 1).astype(np.int64)


def resize(x, node, ins, a, opset):
    if node.op_type == 'Upsample' or opset < 11:
        scales = a.get('scales') or ins[1]
        ct, nm = 'asymmetric', 'floor'
    else:
        ct = a.get('coordinate_transformation_mode', b'half_pixel').decode()
        nm = a.get('nearest_mode', b'round_prefer_floor').decode()
        scales = ins[2] if len(ins) > 2 and ins[2] is not None and ins[2].size else None
        if scales is None:
            scales = np.asarray(ins[3], np.float64) / np.asarray(x.shape, np.float64)
    if a.get('mode', b'nearest') != b'nearest':
        raise NotImplementedError('onnx_eval: Resize mode other than nearest')
    scales = np.asarray(scales, np.float64).ravel()
    y = x
    for axis in range(x.ndim):
        out = int(np.floor(x.shape[axis] * scales[axis]))
        y = np.take(y, _nearest_index(out, x.shape[axis], scales[axis], ct, nm), axis=axis)
    return y


def _softmax(f, axis, opset):
    if opset < 13:  # normalised over all axes from `axis` on, flattened
        shape = f.shape
        f2 = f.reshape(int(np.prod(shape[:axis])), -1)
        e = np.exp(f2 - f2.max(axis=1, keepdims=True))
        return (e / e.sum(axis=1, keepdims=True)).reshape(shape)
    e = np.exp(f - f.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _reshape(x, shape, allowzero=0):
    shape = [int(v) for v in shape]
    if not allowzero:
        shape = [x.shape[i] if v == 0 else v for i, v in enumerate(shape)]
    return x.reshape(shape)


def _axes(a, ins):
    if 'axes' in a:
        return [int(v) for v in a['axes']]
    return [int(v) for v in ins[1]] if len(ins) > 1 and ins[1] is not None else None


def _unsqueeze(x, axes):
    for ax in sorted(v % (x.ndim + len(axes)) for v in axes):
        x = np.expand_dims(x, ax)
    return x


def _gemm(f, ins, a, op):
    b = ins[1].astype(np.float32)
    if op == 'MatMul':
        return f @ b
    A = f.T if a.get('transA', 0) else f
    B = b.T if a.get('transB', 0) else b
    y = a.get('alpha', 1.0) * (A @ B)
    if len(ins) > 2 and ins[2] is not None:
        y = y + a.get('beta', 1.0) * ins[2].astype(np.float32)
    return y


BINARY = {'Add': np.add, 'Sub': np.subtract, 'Mul': np.multiply, 'Div': np.divide, 'Max': np.maximum,
          'Min': np.minimum, 'Pow': np.power}
UNARY = {'Relu': lambda f, a: np.maximum(f, 0),
         'LeakyRelu': lambda f, a: np.where(f > 0, f, f * np.float32(a.get('alpha', 0.01))),
         'Sigmoid': lambda f, a: 1 / (1 + np.exp(-f)),
         'Tanh': lambda f, a: np.tanh(f),
         'Sqrt': lambda f, a: np.sqrt(f),
         'Neg': lambda f, a: -f,
         'Exp': lambda f, a: np.exp(f),
         'Transpose': lambda f, a: f.transpose(a['perm']) if 'perm' in a else f.T,
         'GlobalAveragePool': lambda f, a: f.mean(axis=(2, 3), keepdims=True)}


def _node(node, ins, a, opset):
    """(result in float32, its element type) of one node."""
    x = ins[0]
    dtype = x.dtype
    f = x.astype(np.float32)
    op = node.op_type
    if op in UNARY:
        return UNARY[op](f, a), dtype
    if op in BINARY:
        return BINARY[op](f, ins[1].astype(np.float32)), dtype
    if op == 'Conv':
        return conv(f, ins[1].astype(np.float32), ins[2].astype(np.float32) if len(ins) > 2 else None, a), dtype
    if op in ('MaxPool', 'AveragePool'):
        return pool(f, a, 'max' if op == 'MaxPool' else 'avg'), dtype
    if op == 'Clip':
        lo = a.get('min', ins[1] if len(ins) > 1 and ins[1] is not None else -np.inf)
        hi = a.get('max', ins[2] if len(ins) > 2 and ins[2] is not None else np.inf)
        return np.clip(f, np.float32(lo), np.float32(hi)), dtype
    if op == 'BatchNormalization':
        s, b, m, v = (t.astype(np.float32).reshape(1, -1, 1, 1) for t in ins[1:5])
        return (f - m) / np.sqrt(v + np.float32(a.get('epsilon', 1e-5))) * s + b, dtype
    if op == 'Concat':
        return np.concatenate([t.astype(np.float32) for t in ins], axis=a['axis']), dtype
    if op in ('Resize', 'Upsample'):
        return resize(f, node, ins, a, opset), dtype
    if op == 'ReduceMean':
        return f.mean(axis=tuple(_axes(a, ins)), keepdims=bool(a.get('keepdims', 1))), dtype
    if op in ('Gemm', 'MatMul'):
        return _gemm(f, ins, a, op), dtype
    if op == 'Softmax':
        return _softmax(f, a.get('axis', -1 if opset >= 13 else 1) % f.ndim, opset), dtype
    if op == 'Flatten':
        ax = a.get('axis', 1) % max(f.ndim, 1)
        return f.reshape(int(np.prod(f.shape[:ax])), -1), dtype
    if op == 'Reshape':
        return _reshape(f, ins[1], a.get('allowzero', 0)), dtype
    if op == 'Squeeze':
        axes = _axes(a, ins)
        return (np.squeeze(f) if axes is None else np.squeeze(f, axis=tuple(axes))), dtype
    if op == 'Unsqueeze':
        return _unsqueeze(f, _axes(a, ins)), dtype
    if op in ('Identity', 'Dropout'):
        return x, dtype
    if op == 'Split':  # several results: a list
        sizes = a.get('split') or (list(ins[1]) if len(ins) > 1 and ins[1] is not None else None)
        axis = a.get('axis', 0) % f.ndim
        if sizes is None:
            sizes = [f.shape[axis] // len(node.output)] * len(node.output)
        return np.split(f, np.cumsum(sizes)[:-1], axis=axis), dtype
    if op == 'Slice':
        starts, ends = [int(v) for v in ins[1]], [int(v) for v in ins[2]]
        axes = [int(v) for v in ins[3]] if len(ins) > 3 and ins[3] is not None else list(range(len(starts)))
        steps = [int(v) for v in ins[4]] if len(ins) > 4 and ins[4] is not None else [1] * len(starts)
        index = [slice(None)] * f.ndim
        for b, e, ax, st in zip(starts, ends, axes, steps):
            index[ax % f.ndim] = slice(b, e, st)
        return f[tuple(index)], dtype
    if op == 'Cast':
        return x, ONNX_TO_NP[a['to']]
    if op == 'DequantizeLinear':
        return (x.astype(np.float32) - ins[2].astype(np.float32)) * ins[1], ins[1].dtype
    if op == 'QuantizeLinear':
        return np.clip(np.rint(f / ins[1]) + ins[2], -128, 127), np.int8
    raise NotImplementedError(f'onnx_eval: {op}')


def pick_runtime(requested):
    """'ort' or 'numpy' for a request of ort, numpy or auto (ONNX Runtime where it is installed);
    ImportError when ort is asked for and missing."""
    if requested == 'numpy':
        return 'numpy'
    try:
        import onnxruntime  # noqa: F401
        return 'ort'
    except ImportError:
        if requested == 'ort':
            raise
        return 'numpy'


def run(model, feeds):
    opset = next((o.version for o in model.opset_import if o.domain in ('', 'ai.onnx')), 1)
    env = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    env.update(feeds)
    for node in model.graph.node:
        a = {at.name: helper.get_attribute_value(at) for at in node.attribute}
        if node.op_type == 'Constant':
            env[node.output[0]] = numpy_helper.to_array(a['value'])
            continue
        ins = [env[i] if i else None for i in node.input]
        y, dtype = _node(node, ins, a, opset)
        for name, value in zip(node.output, y if isinstance(y, list) else [y]):
            env[name] = np.asarray(value).astype(dtype)
    return [env[o.name] for o in model.graph.output]
