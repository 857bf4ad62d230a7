# SPDX-License-Identifier: LGPL-2.1-or-later
"""ONNX node -> swdla layer kinds (format version 2). Each handler reads its node's inputs from the
context, adds layers (or folds, or aliases) and sets its outputs, or raises Refuse with the DLA
rules the node breaks. HANDLERS names every op the importer maps; dla_rules.py holds the limits."""
import numpy as np
from onnx import helper

from . import dla_rules
from .context import Act, Refuse

FLOAT_MAX = float(np.finfo(np.float32).max)


def attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _s(v):
    return v.decode() if isinstance(v, bytes) else v


def _dims(shape):
    return dla_rules.dims(shape)


def _check(bad):
    if bad:
        raise Refuse(*bad)


def spatial(act, what):
    if act.rank != 4 or act.flat:
        raise Refuse(f'{what} of a {act.rank}-D tensor: the DLA runs it on N x C x H x W')


def same_pads(auto_pad, size, k, s, d):
    """Total padding of auto_pad SAME_UPPER / SAME_LOWER along one axis: (begin, end)."""
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    small, big = total // 2, total - total // 2
    return (small, big) if auto_pad == 'SAME_UPPER' else (big, small)


def window_pads(a, h, w, kh, kw, sy, sx, dy=1, dx=1):
    """(top, left, bottom, right) from pads / auto_pad."""
    if min(sy, sx, dy, dx) < 1:
        raise Refuse(f'strides {sy}x{sx}, dilations {dy}x{dx}: each must be at least 1')
    auto = _s(a.get('auto_pad', 'NOTSET'))
    if auto in ('SAME_UPPER', 'SAME_LOWER'):
        (t, b), (l, r) = same_pads(auto, h, kh, sy, dy), same_pads(auto, w, kw, sx, dx)
        return (t, l, b, r)
    if auto == 'VALID':
        return (0, 0, 0, 0)
    p = list(a.get('pads', [0, 0, 0, 0]))
    if len(p) != 4:
        raise Refuse(f'pads {p}: a 2-D window takes 4 pads')
    return (p[0], p[1], p[2], p[3])


def out_size(size, pb, pe, k, s, d=1):
    return (size + pb + pe - d * (k - 1) - 1) // s + 1


def conv(ctx, node):
    a = attrs(node)
    x = ctx.act(node.input[0])
    spatial(x, 'Conv')
    w = ctx.const(node.input[1])
    if w is None:
        raise Refuse('weights are computed, not constant: the DLA\'s convolution takes constant weights')
    if w.ndim != 4:
        raise Refuse(f'{w.ndim - 2}-D convolution: the DLA convolves 2-D (N x C x H x W)')
    b = ctx.const(node.input[2]) if len(node.input) > 2 and node.input[2] else None
    if len(node.input) > 2 and node.input[2] and b is None:
        raise Refuse('bias is computed, not constant')
    c, h, wd = x.shape
    g = a.get('group', 1)
    oc, icg, kh, kw = w.shape
    if icg * g != c:
        raise Refuse(f'weights {list(w.shape)} with group {g} do not fit {c} input channels')
    sy, sx = a.get('strides', [1, 1])
    dy, dx = a.get('dilations', [1, 1])
    pads = window_pads(a, h, wd, kh, kw, sy, sx, dy, dx)
    _check(dla_rules.conv(kh, kw, sy, sx, pads, dy, dx, oc, g, c))
    oh, ow = out_size(h, pads[0], pads[2], kh, sy, dy), out_size(wd, pads[1], pads[3], kw, sx, dx)
    if oh < 1 or ow < 1:
        raise Refuse(f'kernel {kh}x{kw} (dilation {dy}x{dx}) is larger than the padded input')
    if b is not None and b.size != oc:
        raise Refuse(f'bias of {b.size} values for {oc} output channels')
    params = dict(out_c=oc, kh=kh, kw=kw, sy=sy, sx=sx, pad_top=pads[0], pad_left=pads[1], pad_bottom=pads[2],
                  pad_right=pads[3], dil_y=dy, dil_x=dx, groups=g)
    ctx.values[node.output[0]] = ctx.add(
        'conv', node.output[0], [x], (oc, oh, ow), params=params, weights=w.astype(np.float32).ravel(),
        bias=None if b is None else b.astype(np.float32).ravel())


def pointwise(kind, **fields):
    def handler(ctx, node):
        x = ctx.act(node.input[0])
        f = {k: (v(attrs(node)) if callable(v) else v) for k, v in fields.items()}
        ctx.values[node.output[0]] = ctx.add(kind, node.output[0], [x], x.shape, x.rank, **f)
    return handler


def clip(ctx, node):
    a = attrs(node)
    x = ctx.act(node.input[0])
    lo, hi = a.get('min', -FLOAT_MAX), a.get('max', FLOAT_MAX)
    for k, name in ((1, 'min'), (2, 'max')):
        if len(node.input) > k and node.input[k]:
            v = ctx.const(node.input[k])
            if v is None:
                raise Refuse(f'{name} is computed, not constant: the DLA\'s clip takes constant bounds')
            if name == 'min':
                lo = float(v)
            else:
                hi = float(v)
    lo, hi = max(lo, -FLOAT_MAX), min(hi, FLOAT_MAX)
    ctx.values[node.output[0]] = ctx.add('clip', node.output[0], [x], x.shape, x.rank, alpha=lo, beta=hi)


def per_channel(v, act):
    """A constant operand as one value per channel (length C) or one for all (length 1); None when
    it broadcasts along other axes too."""
    v = np.asarray(v, np.float32)
    rank = 2 if act.rank == 2 or act.flat else 4
    if v.ndim > rank:
        return None
    shape = (1,) * (rank - v.ndim) + v.shape
    c = act.shape[0] if not act.flat else act.shape[0] * act.shape[1] * act.shape[2]
    if any(d != 1 for i, d in enumerate(shape) if i != 1) or shape[1] not in (1, c):
        return None
    if act.flat and shape[1] != 1:
        return None
    return v.ravel()


ELTWISE = {'Add': 'sum', 'Mul': 'prod', 'Max': 'max', 'Min': 'min', 'Sub': 'sub'}
NUMPY = {'Add': np.add, 'Sub': np.subtract, 'Mul': np.multiply, 'Div': np.divide, 'Max': np.maximum,
         'Min': np.minimum}


def binary(ctx, node):
    op = node.op_type
    if len(node.input) != 2:
        raise Refuse(f'{len(node.input)} inputs: the DLA\'s element-wise layer takes 2')
    names = list(node.input)
    consts = [ctx.const(n) for n in names]
    out = node.output[0]
    if all(c is not None for c in consts):
        ctx.values[out] = NUMPY[op](*consts)
        return
    if all(c is None for c in consts):
        return tensor_tensor(ctx, node, op, names)
    k = 0 if consts[1] is not None else 1  # k: the activation's position
    x, v = ctx.act(names[k]), per_channel(consts[1 - k], ctx.act(names[k]))
    if v is None:
        raise Refuse(f'constant operand of shape {list(consts[1 - k].shape)} with a {_dims(x.onnx_shape(1))} '
                     'input: the DLA\'s scale layer takes one value per channel (1 x C x 1 x 1) or one for all')
    if op in ('Max', 'Min'):
        if v.size != 1:
            raise Refuse(f'{op} with a per-channel constant: the DLA clips with one bound for all channels')
        lo, hi = (float(v[0]), FLOAT_MAX) if op == 'Max' else (-FLOAT_MAX, float(v[0]))
        ctx.values[out] = ctx.add('clip', out, [x], x.shape, x.rank, alpha=lo, beta=hi)
        return
    if op == 'Div' and k == 1:
        raise Refuse('a constant divided by a tensor: the DLA has no reciprocal layer')
    w, b = {'Add': (1.0, v), 'Mul': (v, None), 'Div': (1.0 / v, None),
            'Sub': ((1.0, -v) if k == 0 else (-1.0, v))}[op]
    ctx.affine(op, names[k], out, np.asarray(w, np.float32).ravel(), b)


def tensor_tensor(ctx, node, op, names):
    if op == 'Div':
        raise Refuse('division of two tensors: the DLA\'s element-wise ops are ' + ', '.join(dla_rules.ELTWISE_OPS))
    a, b = ctx.act(names[0]), ctx.act(names[1])
    if a.flat or b.flat:
        raise Refuse('an input is a flattened C x H x W tensor: the DLA keeps tensors C x H x W')
    if a.shape is not None and b.shape is not None and a.shape != b.shape and a.shape[1:] == (1, 1) \
            and op != 'Sub':
        a, b = b, a  # the DLA broadcasts its second input only; the op commutes
    if a.rank != b.rank and a.shape != b.shape:
        raise Refuse(f'inputs of rank {a.rank} and {b.rank}: the DLA\'s element-wise layer takes the same shape '
                     'or the second C x 1 x 1')
    _check(dla_rules.eltwise(a.shape, b.shape))
    ctx.values[node.output[0]] = ctx.add('eltwise', node.output[0], [a, b], a.shape, a.rank,
                                         params={'op': dla_rules.ELTWISE_OPS.index(ELTWISE[op])})


def batchnorm(ctx, node):
    a = attrs(node)
    if a.get('training_mode', 0) or len([o for o in node.output if o]) > 1:
        raise Refuse('BatchNormalization in training mode: the DLA runs inference only')
    p = [ctx.const(n) for n in node.input[1:5]]
    if any(v is None for v in p):
        raise Refuse('BatchNormalization with computed parameters: the DLA folds constant ones only')
    gamma, beta, mean, var = (v.astype(np.float64) for v in p)
    s = gamma / np.sqrt(var + a.get('epsilon', 1e-5))
    x = ctx.act(node.input[0])
    if x.shape is not None and s.size != x.shape[0]:
        raise Refuse(f'{s.size} parameters for {x.shape[0]} channels')
    ctx.affine('BatchNormalization', node.input[0], node.output[0], s.astype(np.float32),
               (beta - mean * s).astype(np.float32))


def concat(ctx, node):
    acts = [ctx.act(n) for n in node.input]
    rank = acts[0].rank
    axis = attrs(node)['axis']
    axis = axis + rank if axis < 0 else axis
    if any(x.flat for x in acts) or axis != 1:
        raise Refuse(f'axis {attrs(node)["axis"]} of a {rank}-D tensor: the DLA concatenates along channels '
                     '(axis 1) only')
    if len(acts) == 1:
        return ctx.alias('Concat', node.output[0], acts[0])
    if any(x.shape is None for x in acts):
        return
    _check(dla_rules.concat([x.shape for x in acts]))
    c = sum(x.shape[0] for x in acts)
    ctx.values[node.output[0]] = ctx.add('concat', node.output[0], acts, (c,) + acts[0].shape[1:], rank)


def _integer(v):
    return abs(v - round(v)) < 1e-6


def resize(ctx, node):
    a = attrs(node)
    x = ctx.act(node.input[0])
    spatial(x, node.op_type)
    mode = _s(a.get('mode', 'nearest'))
    if mode != 'nearest':
        raise Refuse(f'mode {mode}: the DLA\'s resize here is nearest-neighbour only')
    new = node.op_type == 'Resize' and ctx.opset >= 11
    scales = a.get('scales')
    if scales is None:
        k = 2 if new else 1
        scales = ctx.const(node.input[k]) if len(node.input) > k and node.input[k] else None
        sizes = ctx.const(node.input[3]) if new and len(node.input) > 3 and node.input[3] else None
        if (scales is None or scales.size == 0) and sizes is not None:
            scales = np.asarray(sizes, np.float64) / np.asarray(x.onnx_shape(ctx.batch), np.float64)
        elif scales is None or scales.size == 0:
            raise Refuse('scales or sizes are computed, not constant: the DLA resizes by constant scales')
    scales = [float(s) for s in np.asarray(scales).ravel()]
    if len(scales) != 4 or scales[0] != 1 or scales[1] != 1:
        raise Refuse(f'scales {scales}: the DLA resizes height and width only')
    if not (_integer(scales[2]) and _integer(scales[3])):
        raise Refuse(f'scales {scales[2]:g}x{scales[3]:g}: the DLA resizes (nearest) by integer scales')
    sy, sx = int(round(scales[2])), int(round(scales[3]))
    if new:
        ct = _s(a.get('coordinate_transformation_mode', 'half_pixel'))
        nm = _s(a.get('nearest_mode', 'round_prefer_floor'))
        exact = ct in ('half_pixel', 'pytorch_half_pixel') or (ct in ('asymmetric', 'tf_half_pixel_for_nn')
                                                                and nm == 'floor')
        if not exact and (sy, sx) != (1, 1):
            raise Refuse(f'coordinate_transformation_mode {ct} with nearest_mode {nm}: with integer scales the '
                         'DLA\'s nearest resize repeats each pixel (asymmetric + floor, or half_pixel)')
        if a.get('antialias', 0):
            raise Refuse('antialias: the DLA\'s nearest resize has none')
    _check(dla_rules.resize(sy, sx))
    c, h, w = x.shape
    ctx.values[node.output[0]] = ctx.add('resize', node.output[0], [x], (c, h * sy, w * sx),
                                         params={'sy': sy, 'sx': sx})


def pool(kind):
    def handler(ctx, node):
        a = attrs(node)
        x = ctx.act(node.input[0])
        spatial(x, node.op_type)
        if len(node.output) > 1 and node.output[1] and ctx.consumers.get(node.output[1], 0):
            raise Refuse('the Indices output is read: the DLA\'s pooling gives values only')
        if a.get('ceil_mode', 0):
            raise Refuse('ceil_mode=1: the DLA\'s pooling (as this format\'s) rounds the output size down; '
                         'export with ceil_mode=0, or pad explicitly')
        if any(d != 1 for d in a.get('dilations', [1, 1])):
            raise Refuse(f'dilations {a["dilations"]}: the DLA\'s pooling windows are not dilated')
        kh, kw = a['kernel_shape'] if len(a.get('kernel_shape', [])) == 2 else (0, 0)
        if not kh:
            raise Refuse(f'kernel_shape {a.get("kernel_shape")}: the DLA pools 2-D windows')
        sy, sx = a.get('strides', [1, 1])
        c, h, w = x.shape
        pads = window_pads(a, h, w, kh, kw, sy, sx)
        if kind == 'avgpool' and a.get('count_include_pad', 0) and any(pads):
            raise Refuse('count_include_pad=1 with padding: the DLA\'s average leaves padding out of the mean')
        _check(dla_rules.pool(kh, kw, sy, sx, pads))
        oh, ow = out_size(h, pads[0], pads[2], kh, sy), out_size(w, pads[1], pads[3], kw, sx)
        if oh < 1 or ow < 1:
            raise Refuse(f'window {kh}x{kw} is larger than the padded input')
        params = dict(kh=kh, kw=kw, sy=sy, sx=sx, pad_top=pads[0], pad_left=pads[1], pad_bottom=pads[2],
                      pad_right=pads[3])
        ctx.values[node.output[0]] = ctx.add(kind, node.output[0], [x], (c, oh, ow), params=params)
    return handler


def gap(ctx, node):
    x = ctx.act(node.input[0])
    spatial(x, node.op_type)
    if node.op_type == 'ReduceMean':
        a = attrs(node)
        axes = a.get('axes')
        if axes is None and len(node.input) > 1:
            axes = ctx.const(node.input[1])
        axes = sorted(int(v) % 4 for v in (axes if axes is not None else []))
        if axes != [2, 3] or not a.get('keepdims', 1):
            raise Refuse(f'ReduceMean over axes {axes} (keepdims {a.get("keepdims", 1)}): the DLA averages '
                         'over H and W only, keeping them (global average pooling)')
    ctx.values[node.output[0]] = ctx.add('gap', node.output[0], [x], (x.shape[0], 1, 1))


def fc_input(ctx, name):
    x = ctx.act(name)
    if x.rank != 2:
        raise Refuse(f'input of rank {x.rank}: the DLA\'s fully connected layer takes N x K (Flatten or '
                     'Reshape to N x K first)')
    return x, x.shape[0] * x.shape[1] * x.shape[2]


def gemm(ctx, node):
    a = attrs(node)
    if a.get('transA', 0):
        raise Refuse('transA=1: the DLA\'s fully connected layer reads its input untransposed')
    x, k = fc_input(ctx, node.input[0])
    b = ctx.const(node.input[1])
    if b is None or b.ndim != 2:
        raise Refuse('B is not a constant matrix: the DLA\'s fully connected layer takes constant weights')
    w = (b if node.op_type == 'Gemm' and a.get('transB', 0) else b.T).astype(np.float32)
    w = w * np.float32(a.get('alpha', 1.0))
    if w.shape[1] != k:
        raise Refuse(f'weights {list(b.shape)} do not fit an input of {k} values')
    bias = ctx.const(node.input[2]) if len(node.input) > 2 and node.input[2] else None
    if len(node.input) > 2 and node.input[2]:
        if bias is None:
            raise Refuse('C is computed, not constant')
        try:
            bias = np.broadcast_to(bias.astype(np.float32) * np.float32(a.get('beta', 1.0)), (1, w.shape[0]))
        except ValueError:
            raise Refuse(f'C of shape {list(bias.shape)}: the DLA\'s fully connected layer takes one bias per '
                         'output') from None
        bias = bias.ravel().copy()
    _check(dla_rules.fc(w.shape[0]))
    ctx.values[node.output[0]] = ctx.add('fc', node.output[0], [x], (w.shape[0], 1, 1), 2,
                                         params={'out_c': w.shape[0]}, weights=w.ravel(), bias=bias)


def softmax(ctx, node):
    x = ctx.act(node.input[0])
    a = attrs(node)
    rank = 2 if x.rank == 2 else 4
    axis = a.get('axis', -1 if ctx.opset >= 13 else 1)
    axis = axis + rank if axis < 0 else axis
    c, h, w = x.shape
    # Before opset 13 Softmax normalises over all axes from `axis` on, flattened.
    channel = axis == 1 and not x.flat and (ctx.opset >= 13 or rank == 2 or h * w == 1)
    if not channel:
        raise Refuse(f'softmax over axis {a.get("axis", "default")} of {_dims(x.onnx_shape(ctx.batch))} '
                     f'(opset {ctx.opset}): the DLA\'s softmax runs over channels (axis 1)')
    _check(dla_rules.softmax(c, h, w))
    ctx.values[node.output[0]] = ctx.add('softmax', node.output[0], [x], x.shape, x.rank)


def reshaped(ctx, node, target):
    """Reshape/Flatten/Squeeze/Unsqueeze: an alias when the DLA need not move data."""
    x = ctx.act(node.input[0])
    n = ctx.batch
    c, h, w = x.shape
    src = x.onnx_shape(n)
    target = [int(v) for v in target]
    if target == src:
        return ctx.alias(node.op_type, node.output[0], x)
    if target == [n, c * h * w]:
        flat = Act(x.id, (c * h * w, 1, 1), 2) if h * w == 1 else Act(x.id, x.shape, 2, True)
        return ctx.alias(node.op_type, node.output[0], flat)
    if x.rank == 2 and not x.flat and target == [n, c, 1, 1]:
        return ctx.alias(node.op_type, node.output[0], Act(x.id, (c, 1, 1), 4))
    raise Refuse(f'{node.op_type} from {src} to {target}: the DLA does not reshape; only a flatten to N x K '
                 'before Gemm/MatMul is taken')


def reshape(ctx, node):
    shape = ctx.const(node.input[1])
    if shape is None:
        raise Refuse('the target shape is computed, not constant')
    src = ctx.act(node.input[0]).onnx_shape(ctx.batch)
    t = [int(v) for v in shape]
    if not attrs(node).get('allowzero', 0):
        t = [src[i] if v == 0 and i < len(src) else v for i, v in enumerate(t)]
    if -1 in t:
        known = int(np.prod([v for v in t if v != -1]))
        t[t.index(-1)] = int(np.prod(src)) // max(known, 1)
    reshaped(ctx, node, t)


def flatten(ctx, node):
    src = ctx.act(node.input[0]).onnx_shape(ctx.batch)
    axis = attrs(node).get('axis', 1)
    axis = axis + len(src) if axis < 0 else axis
    reshaped(ctx, node, [int(np.prod(src[:axis])), int(np.prod(src[axis:]))])


def squeeze(ctx, node, unsqueeze=False):
    src = ctx.act(node.input[0]).onnx_shape(ctx.batch)
    axes = attrs(node).get('axes')
    if axes is None and len(node.input) > 1:
        axes = ctx.const(node.input[1])
    if unsqueeze:
        rank = len(src) + len(axes)
        axes = sorted(int(a) % rank for a in axes)
        t = list(src)
        for a in axes:
            t.insert(a, 1)
    else:
        axes = [int(a) % len(src) for a in axes] if axes is not None else [i for i, d in enumerate(src) if d == 1]
        t = [d for i, d in enumerate(src) if i not in axes]
    reshaped(ctx, node, t)


def identity(ctx, node):
    if node.op_type == 'Dropout' and len(node.output) > 1 and ctx.consumers.get(node.output[1], 0):
        raise Refuse('the mask output is read: inference has no dropout mask')
    v = ctx.values[node.input[0]]
    if isinstance(v, np.ndarray):
        ctx.values[node.output[0]] = v
    else:
        ctx.alias(node.op_type, node.output[0], v)


def leaky_alpha(a):
    return float(a.get('alpha', 0.01))


HANDLERS = {
    'Conv': conv,
    'Relu': pointwise('relu'),
    'LeakyRelu': pointwise('leaky_relu', alpha=leaky_alpha),
    'Sigmoid': pointwise('sigmoid'),
    'Tanh': pointwise('tanh'),
    'Clip': clip,
    'Add': binary, 'Sub': binary, 'Mul': binary, 'Div': binary, 'Max': binary, 'Min': binary,
    'BatchNormalization': batchnorm,
    'Concat': concat,
    'Resize': resize, 'Upsample': resize,
    'MaxPool': pool('maxpool'),
    'AveragePool': pool('avgpool'),
    'GlobalAveragePool': gap, 'ReduceMean': gap,
    'Gemm': gemm, 'MatMul': gemm,
    'Softmax': softmax,
    'Reshape': reshape, 'Flatten': flatten,
    'Squeeze': squeeze, 'Unsqueeze': lambda ctx, node: squeeze(ctx, node, True),
    'Identity': identity, 'Dropout': identity,
}
