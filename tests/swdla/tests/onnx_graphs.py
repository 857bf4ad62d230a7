# SPDX-License-Identifier: LGPL-2.1-or-later
"""ONNX graphs with seeded random weights for the importer's tests (import_test.py): one or a few
nodes per layer kind, and whole YOLOv5-, YOLOv8- and SSD-shaped networks, built with onnx.helper."""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Graph:
    """A graph under construction: g.conv(x, 16, 3) adds a node and returns its output name."""

    def __init__(self, seed=1, opset=13):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.shapes = {}
        self.opset = opset
        self.count = 0

    def _name(self, op):
        self.count += 1
        return f'{op.lower()}_{self.count}'

    def const(self, value, name=None):
        name = name or self._name('c')
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def rand(self, *shape, scale=1.0):
        return (self.rng.standard_normal(shape) * scale).astype(np.float32)

    def input(self, name, shape, elem=TensorProto.FLOAT):
        self.inputs.append(helper.make_tensor_value_info(name, elem, shape))
        return name

    def node(self, op, inputs, name=None, n_out=1, **attrs):
        name = name or self._name(op)
        outs = [name] + [f'{name}_{k}' for k in range(1, n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return name

    def conv(self, x, cin, cout, k, s=1, p=None, g=1, d=1, bias=True, name=None, **attrs):
        kh, kw = (k, k) if isinstance(k, int) else k
        w = self.const(self.rand(cout, cin // g, kh, kw, scale=np.sqrt(2.0 / (cin // g * kh * kw))))
        ins = [x, w] + ([self.const(self.rand(cout, scale=0.1))] if bias else [])
        if p is None and 'auto_pad' not in attrs:
            p = [(kh - 1) * d // 2, (kw - 1) * d // 2] * 2
        if p is not None:
            attrs['pads'] = p if isinstance(p, list) else [p] * 4
        return self.node('Conv', ins, name, kernel_shape=[kh, kw], strides=[s, s] if isinstance(s, int) else s,
                         group=g, dilations=[d, d], **attrs)

    def bn(self, x, c, name=None):
        p = [self.const((1 + 0.2 * self.rng.standard_normal(c)).astype(np.float32)),
             self.const((0.1 * self.rng.standard_normal(c)).astype(np.float32)),
             self.const((0.2 * self.rng.standard_normal(c)).astype(np.float32)),
             self.const((0.5 + self.rng.random(c)).astype(np.float32))]
        return self.node('BatchNormalization', [x] + p, name, epsilon=1e-3)

    def cbs(self, x, cin, cout, k=1, s=1):
        """Conv + BatchNorm + SiLU (Sigmoid x Mul), as YOLOv5/v8 export it."""
        y = self.bn(self.conv(x, cin, cout, k, s, bias=False), cout)
        return self.node('Mul', [y, self.node('Sigmoid', [y])])

    def cbr(self, x, cin, cout, k=3, s=1):
        return self.node('Relu', [self.bn(self.conv(x, cin, cout, k, s, bias=False), cout)])

    def up2(self, x):
        """Nearest x2 upsampling as PyTorch exports nn.Upsample (asymmetric, floor)."""
        return self.node('Resize', [x, '', self.const(np.array([1, 1, 2, 2], np.float32))], mode='nearest',
                         coordinate_transformation_mode='asymmetric', nearest_mode='floor')

    def sppf(self, x, cin, cout):
        """SPPF: a 1x1 conv, three chained 5x5 max pools, their concat, a 1x1 conv."""
        h = cin // 2
        pools = [self.cbs(x, cin, h)]
        for _ in range(3):
            pools.append(self.node('MaxPool', [pools[-1]], kernel_shape=[5, 5], strides=[1, 1], pads=[2, 2, 2, 2]))
        return self.cbs(self.node('Concat', pools, axis=1), 4 * h, cout)

    def output(self, name, shape=None):
        self.outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
        return name

    def model(self):
        g = helper.make_graph(self.nodes, 'test', self.inputs, self.outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid('', self.opset)], producer_name='import_test')
        m.ir_version = min(m.ir_version, 8)  # readable by onnx 1.12 and ONNX Runtime alike
        # The outputs' shapes from ONNX's shape inference (the checker wants them).
        inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(m).graph.output}
        for o in m.graph.output:
            o.CopyFrom(inferred[o.name])
        onnx.checker.check_model(m)
        return m


def yolov5(nc=3):
    """YOLOv5-shaped: Conv-BN-SiLU, C3 blocks with residual bottlenecks, SPPF (three 5x5 max pools),
    an FPN/PAN neck with nearest upsampling and concats, three detect convs (before the Reshape)."""
    g = Graph(seed=5)
    x = g.input('images', [1, 3, 128, 160])

    def c3(x, cin, cout, n=1, shortcut=True):
        h = cout // 2
        a = g.cbs(x, cin, h)
        for _ in range(n):
            b = g.cbs(g.cbs(a, h, h, 1), h, h, 3)
            a = g.node('Add', [a, b]) if shortcut else b
        return g.cbs(g.node('Concat', [a, g.cbs(x, cin, h)], axis=1), 2 * h, cout)

    x = g.cbs(x, 3, 8, 6, 2)           # 64x80 (stem 6x6 s2 p2)
    x = c3(g.cbs(x, 8, 16, 3, 2), 16, 16)            # 32x40
    p3 = c3(g.cbs(x, 16, 32, 3, 2), 32, 32, 2)       # 16x20
    p4 = c3(g.cbs(p3, 32, 48, 3, 2), 48, 48)         # 8x10
    x = c3(g.cbs(p4, 48, 64, 3, 2), 64, 64)          # 4x5
    p5 = g.sppf(x, 64, 64)
    h5 = g.cbs(p5, 64, 48)
    h4 = c3(g.node('Concat', [g.up2(h5), p4], axis=1), 96, 48, shortcut=False)
    h4r = g.cbs(h4, 48, 32)
    o3 = c3(g.node('Concat', [g.up2(h4r), p3], axis=1), 64, 32, shortcut=False)
    o4 = c3(g.node('Concat', [g.cbs(o3, 32, 32, 3, 2), h4r], axis=1), 64, 48, shortcut=False)
    o5 = c3(g.node('Concat', [g.cbs(o4, 48, 48, 3, 2), h5], axis=1), 96, 64, shortcut=False)
    for k, (t, c) in enumerate(((o3, 32), (o4, 48), (o5, 64))):
        g.output(g.conv(t, c, 3 * (nc + 5), 1, name=f'head{k}'))
    return g.model()


def yolov8(nc=4, reg=4):
    """YOLOv8-shaped up to the head convs before DFL: Conv-BN-SiLU, C2f blocks (their Split written
    as two 1x1 convs: format 2 has no slice), SPPF, neck, and per level a box branch (4 x reg
    channels) and a class branch concatenated along channels."""
    g = Graph(seed=8)
    x = g.input('images', [1, 3, 96, 128])

    def c2f(x, cin, cout, n=1, shortcut=True):
        h = cout // 2
        parts = [g.cbs(x, cin, h), g.cbs(x, cin, h)]
        for _ in range(n):
            b = g.cbs(g.cbs(parts[-1], h, h, 3), h, h, 3)
            parts.append(g.node('Add', [parts[-1], b]) if shortcut else b)
        return g.cbs(g.node('Concat', parts, axis=1), h * len(parts), cout)

    x = g.cbs(g.cbs(x, 3, 8, 3, 2), 8, 16, 3, 2)     # 24x32
    p3 = c2f(g.cbs(c2f(x, 16, 16), 16, 32, 3, 2), 32, 32, 2)   # 12x16
    p4 = c2f(g.cbs(p3, 32, 48, 3, 2), 48, 48)         # 6x8
    x = c2f(g.cbs(p4, 48, 64, 3, 2), 64, 64)          # 3x4
    p5 = g.sppf(x, 64, 64)
    n4 = c2f(g.node('Concat', [g.up2(p5), p4], axis=1), 112, 48, shortcut=False)
    n3 = c2f(g.node('Concat', [g.up2(n4), p3], axis=1), 80, 32, shortcut=False)
    m4 = c2f(g.node('Concat', [g.cbs(n3, 32, 32, 3, 2), n4], axis=1), 80, 48, shortcut=False)
    m5 = c2f(g.node('Concat', [g.cbs(m4, 48, 48, 3, 2), p5], axis=1), 112, 64, shortcut=False)
    for k, (t, c) in enumerate(((n3, 32), (m4, 48), (m5, 64))):
        box = g.conv(g.cbs(g.cbs(t, c, 16, 3), 16, 16, 3), 16, 4 * reg, 1)
        cls = g.conv(g.cbs(g.cbs(t, c, 16, 3), 16, 16, 3), 16, nc, 1)
        g.output(g.node('Concat', [box, cls], f'level{k}', axis=1))
    return g.model()


def ssd(nc=5, anchors=(4, 6, 6, 4)):
    """SSD-shaped: a VGG-like backbone (Conv-BN-ReLU, max pools), extra layers with strided and
    dilated convs, and a location and a confidence predictor conv over each of four feature maps
    (the outputs, cut before the exporter's Transpose/Reshape/Concat)."""
    g = Graph(seed=3)
    x = g.input('image', [1, 3, 96, 96])
    x = g.cbr(g.cbr(x, 3, 8), 8, 8)
    x = g.node('MaxPool', [x], kernel_shape=[2, 2], strides=[2, 2])       # 48
    x = g.cbr(g.cbr(x, 8, 16), 16, 16)
    x = g.node('MaxPool', [x], kernel_shape=[2, 2], strides=[2, 2])       # 24
    f1 = g.cbr(g.cbr(x, 16, 32), 32, 32)
    x = g.node('MaxPool', [f1], kernel_shape=[3, 3], strides=[2, 2], pads=[0, 0, 1, 1])  # 12
    x = g.node('Relu', [g.conv(x, 32, 48, 3, d=2)])                       # dilated (fc6-like)
    f2 = g.node('Relu', [g.conv(x, 48, 48, 1)])
    f3 = g.cbr(g.cbr(f2, 48, 24, 1), 24, 32, 3, 2)                         # 6
    f4 = g.cbr(g.cbr(f3, 32, 16, 1), 16, 24, 3, 2)                         # 3
    for k, (t, c, a) in enumerate(zip((f1, f2, f3, f4), (32, 48, 32, 24), anchors)):
        g.output(g.conv(t, c, 4 * a, 3, name=f'loc{k}'))
        g.output(g.conv(t, c, nc * a, 3, name=f'conf{k}'))
    return g.model()
