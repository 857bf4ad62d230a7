# SPDX-License-Identifier: LGPL-2.1-or-later
"""Recognising a detector's head from the decode that follows the DLA region's frontier, and what
dladetect's .modelinfo needs from it (docs/detection.md section 3): YOLOv5/v7 (anchor heads: a 5-D
Reshape of A x (5 + C) channels, anchors read from the decode's anchor grid), YOLOv8/11 (box and
class channels, 4 x reg_max + C, flattened and split before the DFL softmax), SSD (box and class
predictors, transposed to N x K, priors read from the decode's prior table) and classifiers (the
whole graph on the DLA, a class vector out). docs/model-prep.md says how each is told apart."""
from dataclasses import dataclass, field

import numpy as np
from onnx import numpy_helper

from .region import attrs, consumers, downstream, producer


@dataclass
class Head:
    family: str                      # yolov5, yolov8, ssd, classifier, dla-whole (no decode), unknown
    cut: list                        # tensors the loadable ends at, in dladetect's level order
    keys: dict = field(default_factory=dict)   # dlainfer-* keys (without the prefix)
    head_nodes: list = field(default_factory=list)  # node names from the last conv to each cut tensor
    notes: list = field(default_factory=list)


_CACHE = {}


def _const(model, name):
    """A constant's value (initializer or Constant node), or None; cached for one recognise()."""
    cache = _CACHE
    key = (id(model), name)
    if key not in cache:
        init = {t.name: t for t in model.graph.initializer}
        v = None
        if name in init:
            v = numpy_helper.to_array(init[name])
        else:
            node = producer(model).get(name)
            if node is not None and node.op_type == 'Constant':
                a = attrs(node)
                v = numpy_helper.to_array(a['value']) if 'value' in a else None
        cache[key] = v
    return cache[key]


def _const_source(model, name, hops=4):
    """The constant a tensor is sliced or reshaped from (priors tables are often read in slices)."""
    prod = producer(model)
    for _ in range(hops):
        v = _const(model, name)
        if v is not None:
            return v
        node = prod.get(name)
        if node is None or node.op_type not in ('Slice', 'Identity', 'Unsqueeze', 'Squeeze', 'Reshape', 'Gather',
                                                'Cast'):
            return None
        name = node.input[0]
    return None


def _fmt(v):
    return f'{float(v):.6g}'


def _reshape_target(model, node):
    if node.op_type != 'Reshape':
        return None
    t = _const(model, node.input[1])
    return None if t is None else [int(v) for v in t]


def _first(model, tensor, ops):
    """The first consumer of `tensor` among `ops`, through Identity nodes."""
    for node in consumers(model).get(tensor, []):
        if node.op_type == 'Identity':
            return _first(model, node.output[0], ops)
        if node.op_type in ops:
            return node
    return None


def _head_nodes(model, tensor):
    """Node names from the last Conv up to `tensor` (the layers to keep FP16 in an INT8 body)."""
    prod, names, t = producer(model), [], tensor
    while t in prod:
        node = prod[t]
        names.insert(0, node.name)
        if node.op_type == 'Conv':
            return names
        if node.op_type not in ('Mul', 'Add', 'Concat') or not node.input:
            return []
        if node.op_type == 'Concat':  # a YOLOv8 level: both convs
            return [n for i in node.input for n in _head_nodes(model, i)]
        t = node.input[0]
    return []


def _grid_order(tensors, shapes):
    """Finest grid first (dladetect matches levels by grid, finest first)."""
    return sorted(tensors, key=lambda t: -shapes[t][2] * shapes[t][3])


def yolo_anchors(model, frontier, shapes, in_hw):
    levels = []
    for t in frontier:
        r = _first(model, t, ('Reshape',))
        target = _reshape_target(model, r) if r else None
        if not target or len(target) != 5 or len(shapes.get(t, [])) != 4:
            return None
        c, h, w = shapes[t][1:]
        a = target[1]
        if a <= 0 or c % a or c // a < 5 or target[3:] != [h, w]:
            return None
        levels.append((t, a, c // a - 5, h, w))
    if not levels or len({lv[2] for lv in levels}) != 1:
        return None
    order = _grid_order([lv[0] for lv in levels], shapes)
    by_t = {lv[0]: lv for lv in levels}
    head = Head('yolov5', order, head_nodes=[n for t in order for n in _head_nodes(model, t)])
    strides, anchors = [], []
    exp = False
    for t in order:
        _, a, nc, h, w = by_t[t]
        strides.append(in_hw[0] // h)
        if in_hw[0] % h or in_hw[1] % w or in_hw[0] // h != in_hw[1] // w:
            return None  # not a grid of one stride: not this family
        grid, later = None, downstream(model, [t], 60)
        exp = exp or any(n.op_type == 'Exp' for n in later)
        for node in later:
            for name in node.input:
                v = _const(model, name)
                if v is None or v.ndim != 5 or v.shape[-1] != 2 or v.shape[1] != a:
                    continue
                first = v[0, :, 0, 0, :]
                if np.all(first > 0) and np.allclose(v, first[None, :, None, None, :]):
                    grid = first
                    break
            if grid is not None:
                break
        if grid is None:
            return None  # no anchor grid (a 1 x A x H x W x 2 constant) in its decode
        anchors.append(';'.join([','.join(f'{_fmt(x)},{_fmt(y)}' for x, y in grid)]))
    nc = levels[0][2]
    head.keys = {'decoder': 'yolo-anchors', 'classes': str(nc), 'strides': ','.join(map(str, strides)),
                 'anchors': ';'.join(anchors), 'box-formula': 'yolov2' if exp else 'yolov5',
                 'outputs': ','.join(order)}
    if exp:
        head.family = 'yolov2'
    return head


def yolov8(model, frontier, shapes, in_hw):
    """Per level one tensor of 4 x reg + C channels (or a box and a class tensor), reshaped to
    N x K x (H.W) before the concat over levels; reg_max from the DFL's 4 x reg reshape."""
    later = downstream(model, frontier, 200)
    if not any(n.op_type == 'Softmax' for n in later):
        return None
    for t in frontier:
        r = _first(model, t, ('Reshape',))
        target = _reshape_target(model, r) if r else None
        if not target or len(target) != 3 or len(shapes.get(t, [])) != 4:
            return None
    reg = None
    for node in later:
        target = _reshape_target(model, node)
        if target and len(target) == 4 and target[1] == 4 and target[2] > 1:
            reg = target[2]
            break
    if reg is None:
        return None
    grids = {}
    for t in frontier:
        grids.setdefault(tuple(shapes[t][2:]), []).append(t)
    order, classes, strides = [], set(), []
    for hw in sorted(grids, key=lambda g: -g[0] * g[1]):
        ts = grids[hw]
        if len(ts) == 1:
            classes.add(shapes[ts[0]][1] - 4 * reg)
        elif len(ts) == 2:
            ts = sorted(ts, key=lambda t: shapes[t][1] != 4 * reg)  # box first
            classes.add(shapes[ts[1]][1])
        else:
            return None
        order += ts
        strides.append(in_hw[0] // hw[0])
    if len(classes) != 1 or min(classes) < 1:
        return None
    head = Head('yolov8', order, head_nodes=[n for t in order for n in _head_nodes(model, t)])
    head.keys = {'decoder': 'yolov8', 'classes': str(classes.pop()), 'reg-max': str(reg),
                 'strides': ','.join(map(str, strides)), 'outputs': ','.join(order)}
    return head


def ssd(model, frontier, shapes, in_hw):
    """Per level a box predictor (4A channels) and a class predictor (A x C), each transposed to
    N x H x W x K and reshaped to N x (H.W.A) x K; priors from an N x 4 (cx, cy, w, h) table."""
    loc, conf = [], []
    for t in frontier:
        tr = _first(model, t, ('Transpose',))
        if tr is None or list(attrs(tr).get('perm', [])) != [0, 2, 3, 1]:
            return None
        r = _first(model, tr.output[0], ('Reshape',))
        target = _reshape_target(model, r) if r else None
        if not target or len(target) != 3:
            return None
        (loc if target[2] == 4 else conf).append((t, target[2]))
    if not loc or len(loc) != len(conf):
        return None
    nc = {k for _, k in conf}
    if len(nc) != 1:
        return None
    nc = nc.pop()
    levels = []
    for t, _ in loc:
        c = next((ct for ct, _ in conf if shapes[ct][2:] == shapes[t][2:] and shapes[ct][1] * 4 == shapes[t][1] * nc),
                 None)
        if c is None:
            return None
        levels.append((t, c))
    levels.sort(key=lambda lv: -shapes[lv[0]][2] * shapes[lv[0]][3])
    total = sum(shapes[t][1] // 4 * shapes[t][2] * shapes[t][3] for t, _ in levels)
    later = downstream(model, [t for t, _ in levels], 80)
    priors = variances = None
    for node in later:
        for name in node.input:
            v = _const_source(model, name)
            if v is None:
                continue
            if priors is None and v.size == total * 4 and v.shape[-1] == 4:
                priors = v.reshape(total, 4)
            elif variances is None and node.op_type == 'Mul' and v.size == 4:
                variances = v.ravel()
    if priors is None:
        return None
    order = [x for lv in levels for x in lv]
    head = Head('ssd', order, head_nodes=[n for t in order for n in _head_nodes(model, t)])
    steps, anchors, offsets, at = [], [], set(), 0
    ih, iw = in_hw
    for t, _ in levels:
        a, h, w = shapes[t][1] // 4, shapes[t][2], shapes[t][3]
        level = priors[at:at + a * h * w].reshape(h, w, a, 4)
        at += a * h * w
        step = iw / w
        if iw % w or ih % h or iw // w != ih // h:
            return None  # dladetect's SSD steps are whole pixels, the same on both axes
        steps.append(str(iw // w))
        offsets.add(round(float(level[0, 0, 0, 0]) * iw / step, 4))
        anchors.append(','.join(f'{_fmt(p[2] * iw)},{_fmt(p[3] * ih)}' for p in level[0, 0]))
    if len(offsets) != 1:
        return None  # prior centres with different offsets per level: not Caffe's PriorBox grid
    head.keys = {'decoder': 'ssd', 'classes': str(nc), 'strides': ','.join(steps), 'anchors': ';'.join(anchors),
                 'prior-offset': _fmt(offsets.pop()), 'class-activation': 'softmax', 'outputs': ','.join(order)}
    if variances is not None:
        head.keys['variances'] = ','.join(_fmt(v) for v in variances)
    return head


def recognise(model, region, shapes, in_hw):
    """The Head for the region's frontier (family 'unknown' with notes when none fits)."""
    _CACHE.clear()
    outputs = [o.name for o in model.graph.output]
    if set(region.frontier) == set(outputs) and len(region.inside) == len(model.graph.node) - region.constant_nodes:
        vectors = all(len(shapes.get(t, [])) == 2 or shapes.get(t, [0, 0, 0, 0])[2:] == [1, 1] for t in outputs)
        head = Head('classifier' if vectors else 'dla-whole', outputs)
        if not vectors:
            head.notes.append('the whole graph runs on the DLA and ends in feature maps: no decode to read; name the '
                              'decoder with --key (e.g. --key decoder=yolo-anchors --key anchors=...)')
        return head
    for fn in (yolo_anchors, yolov8, ssd):
        head = fn(model, region.frontier, shapes, in_hw)
        if head is not None:
            return head
    return Head('unknown', list(region.frontier))
