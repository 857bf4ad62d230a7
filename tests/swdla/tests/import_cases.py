# SPDX-License-Identifier: LGPL-2.1-or-later
"""The importer's test cases: per layer kind a one- or few-node ONNX graph, the layer kinds the
import must give (folded and removed nodes leave none), and I/O formats; then the whole networks."""
from dataclasses import dataclass, field

import numpy as np

from onnx_graphs import Graph, ssd, yolov5, yolov8


@dataclass
class Case:
    name: str
    model: object
    kinds: list                  # expected layer kinds, in order (None: not checked)
    inputs: str = ''             # --inputs
    outputs: str = ''            # --outputs
    weights: str = 'fp32'
    params: dict = field(default_factory=dict)   # {layer index: {param: value}} checked in the file


def _one(op, shape=(1, 8, 12, 10), opset=13, consts=(), out_shape=None, **attrs):
    g = Graph(seed=len(op) + len(attrs), opset=opset)
    x = g.input('x', list(shape))
    ins = [x] + [g.const(c) if c is not None else '' for c in consts]
    g.output(g.node(op, ins, 'y', **attrs))
    return g.model()


def _g(seed=1, shape=(1, 8, 12, 10), opset=13):
    g = Graph(seed=seed, opset=opset)
    return g, g.input('x', list(shape))


def conv_cases():
    out = []
    for name, kw, params in (
            ('conv-3x3', dict(k=3), dict(kh=3, kw=3, pad_top=1, pad_left=1, pad_bottom=1, pad_right=1)),
            ('conv-1x1-nobias', dict(k=1, bias=False), dict(kh=1)),
            ('conv-depthwise', dict(k=3, g=8), dict(groups=8)),
            ('conv-groups2-stride2', dict(k=3, g=2, s=2), dict(groups=2, sy=2, sx=2)),
            ('conv-dilation2', dict(k=3, d=2), dict(dil_y=2, dil_x=2, pad_top=2)),
            ('conv-asym-pads', dict(k=(3, 5), s=(2, 1), p=[0, 2, 2, 1]),
             dict(kh=3, kw=5, sy=2, sx=1, pad_top=0, pad_left=2, pad_bottom=2, pad_right=1)),
            ('conv-same-upper', dict(k=3, s=2, auto_pad='SAME_UPPER'),
             dict(pad_top=0, pad_bottom=1, pad_left=0, pad_right=1)),
            ('conv-same-lower', dict(k=3, s=2, auto_pad='SAME_LOWER'),
             dict(pad_top=1, pad_bottom=0, pad_left=1, pad_right=0)),
            ('conv-valid', dict(k=3, s=2, auto_pad='VALID'), dict(pad_top=0, pad_bottom=0))):
        g, x = _g(seed=len(name))
        cout = 8 if kw.get('g') == 8 else 6
        g.output(g.conv(x, 8, cout, name='y', **kw))
        out.append(Case(name, g.model(), ['conv'], params={0: params}))
    return out


def fold_cases():
    out = []
    g, x = _g(2)
    g.output(g.node('Relu', [g.bn(g.conv(x, 8, 16, 3), 16)], 'y'))
    out.append(Case('conv-bn-relu', g.model(), ['conv', 'relu']))
    g, x = _g(3)
    g.output(g.bn(x, 8, 'y'))
    out.append(Case('bn-alone-scale', g.model(), ['scale']))
    g, x = _g(4)
    y = g.conv(x, 8, 6, 3)
    y = g.node('Mul', [y, g.const(g.rand(1, 6, 1, 1))])
    y = g.node('Add', [g.const(g.rand(6, 1, 1)), y])
    g.output(g.node('Sub', [y, g.const(np.float32(0.25))], 'y'))
    out.append(Case('conv-mul-add-sub-folded', g.model(), ['conv']))
    g, x = _g(5)
    c = g.conv(x, 8, 6, 3)
    m = g.node('Div', [c, g.const(g.rand(1, 6, 1, 1) + 3)])
    g.output(g.node('Add', [c, m], 'y'))  # c read twice: the Div cannot fold into it
    out.append(Case('div-unfoldable-scale', g.model(), ['conv', 'scale', 'eltwise']))
    g, x = _g(6)
    y = g.node('Sub', [g.const(np.float32(1.5)), x])                    # 1.5 - x
    g.output(g.node('Mul', [y, g.const(g.rand(1, 8, 1, 1))], 'y'))      # folds into the scale
    out.append(Case('const-sub-mul-scale', g.model(), ['scale']))
    return out


def activation_cases():
    return [
        Case('relu', _one('Relu'), ['relu']),
        Case('leaky-relu', _one('LeakyRelu', alpha=0.15), ['leaky_relu']),
        Case('sigmoid', _one('Sigmoid'), ['sigmoid']),
        Case('tanh', _one('Tanh'), ['tanh']),
        Case('clip-inputs', _one('Clip', consts=(np.float32(-0.5), np.float32(0.75))), ['clip']),
        Case('clip-min-only', _one('Clip', consts=(np.float32(0.1),)), ['clip']),
        Case('clip-relu6-opset6', _one('Clip', opset=6, min=0.0, max=6.0), ['clip']),
        Case('max-scalar-clip', _one('Max', consts=(np.float32(0.2),)), ['clip']),
        Case('min-scalar-clip', _one('Min', consts=(np.float32(0.3),)), ['clip']),
    ]


def eltwise_cases():
    out = []
    for op in ('Add', 'Sub', 'Mul', 'Max', 'Min'):
        g, x = _g(len(op))
        a, b = g.conv(x, 8, 6, 3), g.conv(x, 8, 6, 1)
        g.output(g.node(op, [a, b], 'y'))
        out.append(Case(f'eltwise-{op.lower()}', g.model(), ['conv', 'conv', 'eltwise']))
    for op, first in (('Mul', False), ('Mul', True), ('Sub', False)):
        g, x = _g(7)
        s = g.node('Sigmoid', [g.node('GlobalAveragePool', [x])])      # SE-style per-channel
        g.output(g.node(op, [s, x] if first else [x, s], 'y'))
        out.append(Case(f'broadcast-{op.lower()}{"-swapped" if first else ""}', g.model(),
                        ['gap', 'sigmoid', 'eltwise']))
    g, x = _g(8)
    g.output(g.node('Mul', [x, g.node('Sigmoid', [x])], 'y'))
    out.append(Case('silu', g.model(), ['sigmoid', 'eltwise']))
    return out


def shape_cases():
    out = []
    g, x = _g(9)
    parts = [g.conv(x, 8, c, 3) for c in (4, 6, 2)]
    g.output(g.node('Concat', parts, 'y', axis=1))
    out.append(Case('concat3', g.model(), ['conv'] * 3 + ['concat']))
    g, x = _g(10, shape=(1, 8, 5, 6))
    g.output(g.node('Resize', [x, '', g.const(np.array([1, 1, 2, 3], np.float32))], 'y', mode='nearest',
                    coordinate_transformation_mode='asymmetric', nearest_mode='floor'))
    out.append(Case('resize-scales', g.model(), ['resize'], params={0: dict(sy=2, sx=3)}))
    g, x = _g(11, shape=(1, 8, 5, 6))
    g.output(g.node('Resize', [x, '', '', g.const(np.array([1, 8, 20, 12], np.int64))], 'y', mode='nearest',
                    coordinate_transformation_mode='half_pixel'))
    out.append(Case('resize-sizes-half-pixel', g.model(), ['resize'], params={0: dict(sy=4, sx=2)}))
    out.append(Case('upsample-opset9', _one('Upsample', shape=(1, 8, 5, 6), opset=9,
                                            consts=(np.array([1, 1, 2, 2], np.float32),), mode='nearest'),
                    ['resize']))
    out.append(Case('maxpool-asym', _one('MaxPool', kernel_shape=[3, 3], strides=[2, 2], pads=[0, 1, 2, 1]),
                    ['maxpool'], params={0: dict(kh=3, sy=2, pad_top=0, pad_left=1, pad_bottom=2, pad_right=1)}))
    out.append(Case('avgpool-pads', _one('AveragePool', kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]),
                    ['avgpool']))
    out.append(Case('avgpool-same-upper', _one('AveragePool', kernel_shape=[2, 3], strides=[2, 2],
                                               auto_pad='SAME_UPPER'), ['avgpool']))
    out.append(Case('gap', _one('GlobalAveragePool'), ['gap']))
    out.append(Case('reducemean-hw', _one('ReduceMean', axes=[2, 3], keepdims=1), ['gap']))
    return out


def fc_cases():
    out = []
    g, x = _g(12)
    f = g.node('Flatten', [x], axis=1)
    y = g.node('Gemm', [f, g.const(g.rand(7, 8 * 12 * 10, scale=0.05)), g.const(g.rand(7))], transB=1,
               alpha=0.5, beta=2.0)
    g.output(g.node('Softmax', [y], 'y', axis=1))
    out.append(Case('flatten-gemm-softmax', g.model(), ['fc', 'softmax']))
    g, x = _g(13)
    r = g.node('Reshape', [g.node('GlobalAveragePool', [x]), g.const(np.array([1, -1], np.int64))])
    y = g.node('MatMul', [r, g.const(g.rand(8, 5))])
    y = g.node('Add', [y, g.const(g.rand(5))])           # the bias, folded into the fc
    g.output(g.node('Relu', [y], 'y'))
    out.append(Case('gap-reshape-matmul-add', g.model(), ['gap', 'fc', 'relu']))
    g, x = _g(14)
    y = g.node('Dropout', [g.node('Identity', [g.conv(x, 8, 6, 3)])])
    g.output(g.node('Softmax', [y], 'y', axis=1))
    out.append(Case('identity-dropout-softmax4d', g.model(), ['conv', 'softmax']))
    return out


def io_cases():
    out = []
    g = Graph(seed=15)
    a, b = g.input('left', [1, 6, 8, 8]), g.input('right', [1, 6, 8, 8])
    s = g.node('Add', [a, b], 'sum')
    g.output(s)
    g.output(g.node('Relu', [g.conv(s, 6, 4, 3)], 'feat'))
    out.append(Case('two-inputs-two-outputs', g.model(), ['eltwise', 'conv', 'relu']))
    g, x = _g(16, shape=(1, 3, 10, 12))
    g.output(g.node('Relu', [g.conv(x, 3, 8, 3)], 'y'))
    m = g.model()
    out.append(Case('int8-chw32-in-int8-linear-out', m, ['conv', 'relu'], inputs='x:int8:chw32:scale=1/64',
                    outputs='y:int8:dla_linear:scale=1/16'))
    out.append(Case('fp16-dla-linear-io', m, ['conv', 'relu'], inputs='x:fp16:dla_linear',
                    outputs='y:fp16:dla_linear'))
    out.append(Case('fp16-hwc4-in', m, ['conv', 'relu'], inputs='x:fp16:dla_hwc4'))
    out.append(Case('int8-hwc4-in', m, ['conv', 'relu'], inputs='x:int8:dla_hwc4:scale=0.02'))
    g, x = _g(17, shape=(1, 8, 12, 10))
    w = g.rand(6, 8, 3, 3).astype(np.float16).astype(np.float32)   # FP16-exact: same maths either way
    c = g.node('Conv', [x, g.const(w)], 'y', kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    g.output(c)
    out.append(Case('fp16-weights', g.model(), ['conv'], weights='fp16'))
    g = Graph(seed=18)
    x = g.input('x', [2, 8, 6, 6])
    g.output(g.node('Relu', [g.conv(x, 8, 4, 3)], 'y'))
    out.append(Case('batch2', g.model(), ['conv', 'relu']))
    return out


def unit_cases():
    return conv_cases() + fold_cases() + activation_cases() + eltwise_cases() + shape_cases() + fc_cases() + \
        io_cases()


def network_cases():
    return [Case('yolov5-shaped', yolov5(), None), Case('yolov8-shaped', yolov8(), None),
            Case('ssd-shaped', ssd(), None)]
