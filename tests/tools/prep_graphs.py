# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trained-model-shaped ONNX graphs *with their decode* for dlainfer-prep's tests: the importer's
YOLOv5-, YOLOv8- and SSD-shaped networks (tests/swdla/tests/onnx_graphs.py, seeded random weights)
with the decode their exporters append, written here from the published exports:
  yolov5  ultralytics/yolov5 models/yolo.py Detect.forward (export): 5-D view, sigmoid, split,
          xy = (2 s + grid - 0.5) * stride, wh = (2 s)^2 * anchor_grid, cat, view to N x (A.H.W) x 85
  yolov7  the same decode (WongKinYiu/yolov7 models/yolo.py IDetect) after ImplicitA (an Add before
          each head conv) and ImplicitM (a Mul after it)
  yolov8  ultralytics/ultralytics nn/modules/head.py Detect (per level cat(box, cls), view to
          N x no x H.W, cat, split) and block.py DFL (view N x 4 x reg x A, transpose, softmax,
          1x1 conv of arange), utils/tal.py dist2bbox (xywh) times the strides, sigmoid classes
  ssd     Caffe-style: per level transpose + reshape of the box and class predictors, priors as a
          constant (cx, cy, w, h) table, boxes decoded with variances (0.1, 0.1, 0.2, 0.2),
          softmax over the classes
plus a classifier and a graph whose backbone the DLA cannot run. `decode_outputs(name)` says which
outputs hold boxes and scores."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'swdla', 'tests'))
import onnx_graphs  # noqa: E402

OPSET = 13
YOLO_ANCHORS = ((10, 13, 16, 30, 33, 23), (30, 61, 62, 45, 59, 119), (116, 90, 156, 198, 373, 326))


class Builder:
    """Appends nodes to a model from onnx_graphs."""

    def __init__(self, model):
        self.m = model
        self.g = model.graph
        self.count = 0

    def const(self, value, dtype=np.float32):
        self.count += 1
        name = f'dec_c{self.count}'
        self.g.initializer.append(numpy_helper.from_array(np.asarray(value, dtype), name))
        return name

    def node(self, op, inputs, n_out=1, name=None, **attrs):
        self.count += 1
        name = name or f'/decode/{op}_{self.count}'
        outs = [f'{name}_out{k}' for k in range(n_out)]
        self.g.node.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if n_out == 1 else outs

    def outputs(self, names):
        del self.g.output[:]
        for n in names:
            self.g.output.append(helper.make_tensor_value_info(n, TensorProto.FLOAT, None))

    def finish(self):
        inferred = onnx.shape_inference.infer_shapes(self.m)
        shapes = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
        for o in self.g.output:
            o.CopyFrom(shapes[o.name])
        onnx.checker.check_model(self.m)
        return self.m


def picture(model, seed=3):
    """(uint8 H x W x 3 picture, float32 1 x 3 x H x W input = picture / 255): smooth blobs and noise."""
    _, c, h, w = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.zeros((h, w, 3), np.float64)
    for _ in range(6):
        cy, cx, r = rng.uniform(0, h), rng.uniform(0, w), rng.uniform(6, 30)
        img += rng.uniform(-120, 120, 3) * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r))[..., None]
    img = np.clip(img + 128 + rng.normal(0, 20, img.shape), 0, 255).astype(np.uint8)
    return img, (img.transpose(2, 0, 1)[None].astype(np.float32) / 255).astype(np.float32)


def _sharpen(model, spread=1.5):
    """Gives the random head convs (the model's outputs, or the convs a Concat output joins) a trained
    detector's spread of scores: each channel's response on picture() is made zero-mean with a
    standard deviation of `spread` (bias and weights), so that scores spread from near 0 to near 1."""
    prod = {o: n for n in model.graph.node for o in n.output}
    inits = {t.name: t for t in model.graph.initializer}
    convs, todo = [], [o.name for o in model.graph.output]
    while todo:
        node = prod[todo.pop(0)]
        if node.op_type == 'Concat':
            todo += list(node.input)
        else:
            convs.append(node)
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    del probe.graph.output[:]
    probe.graph.output.extend(helper.make_tensor_value_info(n.output[0], TensorProto.FLOAT, None) for n in convs)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), 'tools', 'twins'))
    import onnx_eval
    means = onnx_eval.run(probe, {model.graph.input[0].name: picture(model)[1]})
    for node, y in zip(convs, means):
        w, b = inits[node.input[1]], inits[node.input[2]]
        k = spread / (y.std(axis=(0, 2, 3)) + 1e-6)
        bias = (numpy_helper.to_array(b) - y.mean(axis=(0, 2, 3))) * k
        w.CopyFrom(numpy_helper.from_array((numpy_helper.to_array(w) * k[:, None, None, None]).astype(np.float32),
                                           w.name))
        b.CopyFrom(numpy_helper.from_array(bias.astype(np.float32), b.name))


def _rename_heads(model, prefix):
    """Head node names as exporters write them (what --layerPrecisions names)."""
    for k, o in enumerate(model.graph.output):
        for node in model.graph.node:
            if node.output[0] == o.name:
                node.name = f'{prefix}/m.{k}/Conv'


def _yolo_decode(b, heads, in_h, nc, anchors=YOLO_ANCHORS):
    """YOLOv5's export decode of each head: [1, N, 5 + nc] (xywh in pixels, obj, classes)."""
    parts = []
    inferred = onnx.shape_inference.infer_shapes(b.m).graph
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
              for v in list(inferred.value_info) + list(inferred.output)}
    for t, anc in zip(heads, anchors):
        _, c, h, w = shapes[t]
        a, no = 3, nc + 5
        stride = in_h // h
        x = b.node('Reshape', [t, b.const([1, a, no, h, w], np.int64)])
        x = b.node('Transpose', [x], perm=[0, 1, 3, 4, 2])
        s = b.node('Sigmoid', [x])
        xy, wh, conf = b.node('Split', [s, b.const([2, 2, no - 4], np.int64)], n_out=3, axis=4)
        gy, gx = np.meshgrid(np.arange(h), np.arange(w), indexing='ij')
        grid = np.broadcast_to(np.stack([gx, gy], -1)[None, None], (1, a, h, w, 2)) - 0.5
        agrid = np.broadcast_to(np.array(anc, np.float32).reshape(1, a, 1, 1, 2), (1, a, h, w, 2))
        xy = b.node('Mul', [b.node('Add', [b.node('Mul', [xy, b.const(2.0)]), b.const(grid)]), b.const(float(stride))])
        wh = b.node('Mul', [b.node('Pow', [b.node('Mul', [wh, b.const(2.0)]), b.const(2.0)]), b.const(agrid)])
        y = b.node('Concat', [xy, wh, conf], axis=4)
        parts.append(b.node('Reshape', [y, b.const([1, a * h * w, no], np.int64)]))
    return b.node('Concat', parts, axis=1)


def yolov5(nc=3):
    m = onnx_graphs.yolov5(nc)
    _rename_heads(m, '/model.24')
    _sharpen(m)
    b = Builder(m)
    heads = [o.name for o in m.graph.output]
    b.outputs([_yolo_decode(b, heads, 128, nc)])
    return b.finish()


def yolov7(nc=3):
    """YOLOv5's network with IDetect's ImplicitA (Add before each head conv) and ImplicitM (Mul after)."""
    m = onnx_graphs.yolov5(nc)
    _rename_heads(m, '/model.105')
    _sharpen(m)
    b = Builder(m)
    rng = np.random.default_rng(7)
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
              for v in onnx.shape_inference.infer_shapes(m).graph.value_info}
    heads = []
    for o in list(m.graph.output):
        conv = next(n for n in m.graph.node if n.output[0] == o.name)
        cin = shapes[conv.input[0]][1]
        ia = b.node('Add', [conv.input[0], b.const(rng.normal(0, 0.02, (1, cin, 1, 1)))],
                    name=conv.name.replace('Conv', 'ia/Add'))
        conv.input[0] = ia
        im = b.node('Mul', [o.name, b.const(rng.normal(1, 0.02, (1, 3 * (nc + 5), 1, 1)))],
                    name=conv.name.replace('Conv', 'im/Mul'))
        heads.append(im)
    # the Add was appended after its reader: put the graph back in topological order
    nodes = list(m.graph.node)
    adds = [n for n in nodes if n.name.endswith('ia/Add')]
    rest = [n for n in nodes if n not in adds]
    first_head = min(i for i, n in enumerate(rest) if n.name.startswith('/model.105/m.') and n.op_type == 'Conv')
    del m.graph.node[:]
    m.graph.node.extend(rest[:first_head] + adds + rest[first_head:])
    b.outputs([_yolo_decode(b, heads, 128, nc)])
    return b.finish()


def yolov8(nc=4, reg=4):
    m = onnx_graphs.yolov8(nc, reg)
    _sharpen(m)
    b = Builder(m)
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim] for v in m.graph.output}
    levels = [o.name for o in m.graph.output]
    no = 4 * reg + nc
    flat, anchors, strides = [], [], []
    for t in levels:
        _, _, h, w = shapes[t]
        flat.append(b.node('Reshape', [t, b.const([1, no, h * w], np.int64)]))
        gy, gx = np.meshgrid(np.arange(h) + 0.5, np.arange(w) + 0.5, indexing='ij')
        anchors.append(np.stack([gx.ravel(), gy.ravel()]))
        strides.append(np.full(h * w, 96 // h, np.float32))
    n = sum(a.shape[1] for a in anchors)
    x = b.node('Concat', flat, axis=2)
    box, cls = b.node('Split', [x, b.const([4 * reg, nc], np.int64)], n_out=2, axis=1)
    d = b.node('Reshape', [box, b.const([1, 4, reg, n], np.int64)], name='/model.22/dfl/Reshape')
    d = b.node('Softmax', [b.node('Transpose', [d], perm=[0, 2, 1, 3])], axis=1)
    d = b.node('Conv', [d, b.const(np.arange(reg, dtype=np.float32).reshape(1, reg, 1, 1))], name='/model.22/dfl/conv')
    d = b.node('Reshape', [d, b.const([1, 4, n], np.int64)])
    lt = b.node('Slice', [d, b.const([0], np.int64), b.const([2], np.int64), b.const([1], np.int64)])
    rb = b.node('Slice', [d, b.const([2], np.int64), b.const([4], np.int64), b.const([1], np.int64)])
    anc = b.const(np.concatenate(anchors, 1)[None])
    x1y1, x2y2 = b.node('Sub', [anc, lt]), b.node('Add', [anc, rb])
    cxy = b.node('Div', [b.node('Add', [x1y1, x2y2]), b.const(2.0)])
    wh = b.node('Sub', [x2y2, x1y1])
    dbox = b.node('Mul', [b.node('Concat', [cxy, wh], axis=1), b.const(np.concatenate(strides)[None, None])])
    b.outputs([b.node('Concat', [dbox, b.node('Sigmoid', [cls])], axis=1)])
    return b.finish()


SSD_PRIORS = (((8, 8), (12, 20), (20, 12), (16, 16)),
              ((16, 16), (24, 40), (40, 24), (28, 28), (20, 36), (36, 20)),
              ((32, 32), (48, 80), (80, 48), (56, 56), (40, 72), (72, 40)),
              ((60, 60), (84, 84), (90, 50), (50, 90)))


def ssd_priors(size=96, grids=(24, 12, 6, 3)):
    """(cx, cy, w, h) normalised, per level cell-major then prior (the predictor's order after the
    NHWC transpose), centres at (x + 0.5) * step."""
    rows = []
    for g, priors in zip(grids, SSD_PRIORS):
        step = size / g
        for y in range(g):
            for x in range(g):
                for pw, ph in priors:
                    rows.append(((x + 0.5) * step / size, (y + 0.5) * step / size, pw / size, ph / size))
    return np.array(rows, np.float32)


def ssd(nc=5):
    m = onnx_graphs.ssd(nc, tuple(len(p) for p in SSD_PRIORS))
    _sharpen(m)
    b = Builder(m)
    outs = [o.name for o in m.graph.output]
    locs, confs = [], []
    for k in range(0, len(outs), 2):
        locs.append(b.node('Reshape', [b.node('Transpose', [outs[k]], perm=[0, 2, 3, 1]),
                                       b.const([1, -1, 4], np.int64)]))
        confs.append(b.node('Reshape', [b.node('Transpose', [outs[k + 1]], perm=[0, 2, 3, 1]),
                                        b.const([1, -1, nc], np.int64)]))
    loc = b.node('Mul', [b.node('Concat', locs, axis=1), b.const(np.array([0.1, 0.1, 0.2, 0.2], np.float32))])
    pri = b.const(ssd_priors()[None])
    pxy = b.node('Slice', [pri, b.const([0], np.int64), b.const([2], np.int64), b.const([2], np.int64)])
    pwh = b.node('Slice', [pri, b.const([2], np.int64), b.const([4], np.int64), b.const([2], np.int64)])
    dxy = b.node('Slice', [loc, b.const([0], np.int64), b.const([2], np.int64), b.const([2], np.int64)])
    dwh = b.node('Slice', [loc, b.const([2], np.int64), b.const([4], np.int64), b.const([2], np.int64)])
    cxy = b.node('Add', [pxy, b.node('Mul', [dxy, pwh])])
    wh = b.node('Mul', [pwh, b.node('Exp', [dwh])])
    b.outputs([b.node('Concat', [cxy, wh], axis=2), b.node('Softmax', [b.node('Concat', confs, axis=1)], axis=2)])
    return b.finish()


def classifier():
    g = onnx_graphs.Graph(seed=11)
    x = g.input('input', [1, 3, 32, 32])
    x = g.cbr(g.cbr(x, 3, 8, 3, 2), 8, 16, 3, 2)
    x = g.node('GlobalAveragePool', [x])
    x = g.node('Flatten', [x], axis=1)
    g.output(g.node('Gemm', [x, g.const(g.rand(10, 16)), g.const(g.rand(10))], 'logits', transB=1))
    return g.model()


def gpu_backbone():
    """A network the DLA loses early: a Transpose in the backbone after one small conv."""
    g = onnx_graphs.Graph(seed=12)
    x = g.input('input', [1, 3, 32, 32])
    x = g.cbr(x, 3, 4, 3, 2)
    x = g.node('Transpose', [x], perm=[0, 1, 3, 2])
    x = g.cbr(g.cbr(x, 4, 64, 3), 64, 64, 3)
    g.output(g.conv(x, 64, 8, 1, name='out'))
    return g.model()


MODELS = {'yolov5': yolov5, 'yolov7': yolov7, 'yolov8': yolov8, 'ssd': ssd, 'classifier': classifier,
          'gpu-backbone': gpu_backbone}
