#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The detection decoders against an independent NumPy decoder written from the published formulas
(docs/detection.md 2 cites them: YOLOv2 / face-api's TinyYolov2 extractBoxes, Ultralytics YOLOv5
Detect and YOLOv8 DFL + dist2bbox, Caffe SSD PriorBox + DecodeBBox CENTER_SIZE, greedy NMS), not
from common/detect_math.h. Planted head tensors (boxes at chosen levels, anchors, cells and classes;
background logits far below the threshold), written in their DLA layout (chw16 FP16, chw32 INT8
with a scale, dla_linear) with poisoned pad lanes and pad rows, several outputs in shuffled order,
descriptors reporting padded channel counts, overlapping boxes for NMS; letterboxed and cropped
1080p frames. Each case runs through a driver (--cli: detect-ref-cli, the CPU reference, or
detect-gpu-cli, the CUDA decode) and must give the oracle's detections in order (class exact, score
to 1e-4 relative, box to 0.02 px). Bad configurations must be refused naming the decoder's
expectation and the model's tensor."""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

LANES = {'chw16': 16, 'chw32': 32}
POISON = {'fp16': 30.0, 'int8': 127}


def round_up(v, m):
    return -(-v // m) * m


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# ---- the DLA layouts (docs/dla-formats.md), written from the format descriptions ----

def pack(values, layout, etype, scale, n=1, batch=0):
    """(bytes of an n-batch tensor holding `values` (C, H, W) at `batch`, the values as stored)."""
    c, h, w = values.shape
    if etype == 'fp16':
        q = values.astype(np.float16)
        stored = q.astype(np.float64)
    else:
        q = np.clip(np.rint(values / scale), -128, 127).astype(np.int8)
        stored = q.astype(np.float64) * scale
    dt = q.dtype
    if layout in LANES:
        lanes = LANES[layout]
        groups = round_up(c, lanes) // lanes
        buf = np.full((n, groups, h, w, lanes), POISON[etype], dt)
        padded = np.full((groups * lanes, h, w), POISON[etype], dt)
        padded[:c] = q
        buf[batch] = padded.reshape(groups, lanes, h, w).transpose(0, 2, 3, 1)
    else:
        wp = round_up(w * dt.itemsize, 64) // dt.itemsize
        buf = np.full((n, c, h, wp), POISON[etype], dt)
        buf[batch, :, :, :w] = q
    return buf.tobytes(), stored


# ---- the oracle: published formulas ----

def grid(h, w):
    return np.arange(w, dtype=np.float64)[None, None, :], np.arange(h, dtype=np.float64)[None, :, None]


def yolo_level(v, stride, anchors, classes, formula, act):
    """YOLOv2 (face-api TinyYolov2 extractBoxes, in pixels) or YOLOv5 (Ultralytics Detect)."""
    a_n = len(anchors)
    _, h, w = v.shape
    v = v[:a_n * (5 + classes)].reshape(a_n, 5 + classes, h, w)
    gx, gy = grid(h, w)
    aw = np.array([a[0] for a in anchors])[:, None, None]
    ah = np.array([a[1] for a in anchors])[:, None, None]
    if formula == 'yolov2':
        cx, cy = (gx + sigmoid(v[:, 0])) * stride, (gy + sigmoid(v[:, 1])) * stride
        bw, bh = np.exp(v[:, 2]) * aw, np.exp(v[:, 3]) * ah
    else:
        cx, cy = (gx + 2 * sigmoid(v[:, 0]) - 0.5) * stride, (gy + 2 * sigmoid(v[:, 1]) - 0.5) * stride
        bw, bh = (2 * sigmoid(v[:, 2])) ** 2 * aw, (2 * sigmoid(v[:, 3])) ** 2 * ah
    obj = sigmoid(v[:, 4])
    if classes == 0:
        score, cls = obj, np.zeros_like(obj, dtype=int)
    else:
        p = softmax(v[:, 5:], 1) if act == 'softmax' else sigmoid(v[:, 5:])
        cls = p.argmax(1)
        score = obj * p.max(1)
    boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], -1)
    return boxes.reshape(-1, 4), score.reshape(-1), cls.reshape(-1)


def yolov8_level(box, cls_v, stride, reg_max):
    """Ultralytics YOLOv8: DFL expectation over reg_max bins, dist2bbox from the anchor point."""
    _, h, w = box.shape
    p = softmax(box[:4 * reg_max].reshape(4, reg_max, h, w), 1)
    d = (p * np.arange(reg_max)[None, :, None, None]).sum(1)
    gx, gy = grid(h, w)
    ax, ay = gx[0] + 0.5, gy[0] + 0.5
    boxes = np.stack([(ax - d[0]) * stride, (ay - d[1]) * stride, (ax + d[2]) * stride, (ay + d[3]) * stride], -1)
    s = sigmoid(cls_v)
    return boxes.reshape(-1, 4), s.max(0).reshape(-1), s.argmax(0).reshape(-1)


def caffe_priors(min_size, max_size, ratios, flip):
    """Caffe PriorBox: min, sqrt(min * max), then each ratio r (and 1/r with flip)."""
    out = [(min_size, min_size)]
    if max_size:
        out.append((np.sqrt(min_size * max_size),) * 2)
    for r in ratios:
        for rr in ([r, 1.0 / r] if flip else [r]):
            out.append((min_size * np.sqrt(rr), min_size / np.sqrt(rr)))
    return out


def ssd_level(box, cls_v, step, priors, classes, bg, var, act, yxhw, offset=0.5):
    """Caffe DecodeBBox CENTER_SIZE, variances not encoded in the target, in pixels."""
    a_n = len(priors)
    _, h, w = box.shape
    b = box[:4 * a_n].reshape(a_n, 4, h, w)
    if yxhw:
        b = b[:, [1, 0, 3, 2]]
    gx, gy = grid(h, w)
    pw = np.array([p[0] for p in priors])[:, None, None]
    ph = np.array([p[1] for p in priors])[:, None, None]
    cx = (gx + offset) * step + b[:, 0] * var[0] * pw
    cy = (gy + offset) * step + b[:, 1] * var[1] * ph
    bw, bh = pw * np.exp(b[:, 2] * var[2]), ph * np.exp(b[:, 3] * var[3])
    logits = cls_v[:a_n * classes].reshape(a_n, classes, h, w)
    p = softmax(logits, 1) if act == 'softmax' else sigmoid(logits)
    if bg >= 0:
        p[:, bg] = -1.0
    boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], -1)
    return boxes.reshape(-1, 4), p.max(1).reshape(-1), p.argmax(1).reshape(-1)


def iou(a, b):
    iw = min(a[2], b[2]) - max(a[0], b[0])
    ih = min(a[3], b[3]) - max(a[1], b[1])
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def select(boxes, score, cls, sel):
    """Thresholds (per class, > t), the first max_candidates, score order, greedy NMS."""
    thr = np.array([sel['thresholds'].get(int(c), sel['threshold']) for c in cls])
    idx = np.nonzero(score > thr)[0]
    passed = len(idx)
    idx = idx[:sel['max_candidates']]
    order = idx[np.argsort(-score[idx], kind='stable')]
    kept = []
    removed = set()
    for i, r in enumerate(order):
        if len(kept) == sel['max_detections']:
            break
        if r in removed:
            continue
        kept.append(r)
        for j in order[i + 1:]:
            if (sel['agnostic'] or cls[j] == cls[r]) and iou(boxes[r], boxes[j]) > sel['iou']:
                removed.add(j)
    return kept, passed


def to_frame(boxes, frame, tensor):
    """Stretch: frame = crop.x + t * crop.w / tw. Letterbox (docs of kernels/preprocess.h): the long
    axis fills the tensor, the other gets round-half-up(exact) pixels at floor((tensor - content)/2)."""
    fw, fh, x, y, w, h, mode = frame
    tw, th = tensor
    cw, ch, px, py = tw, th, 0, 0
    if mode == 'letterbox':
        if w * th >= h * tw:
            ch = max(1, (2 * tw * h + w) // (2 * w))
        else:
            cw = max(1, (2 * th * w + h) // (2 * h))
        px, py = (tw - cw) // 2, (th - ch) // 2
    out = np.empty_like(boxes)
    out[:, [0, 2]] = np.clip(x + (boxes[:, [0, 2]] - px) * w / cw, x, x + w)
    out[:, [1, 3]] = np.clip(y + (boxes[:, [1, 3]] - py) * h / ch, y, y + h)
    return out


# ---- cases ----

class Case:
    def __init__(self, name, keys, tensor, frame):
        self.name, self.keys, self.tensor, self.frame = name, dict(keys), tensor, frame
        self.outputs = []  # (name, layout, type, c_reported, values, scale, n, batch)
        self.batch = 0

    def add(self, name, values, layout='chw16', etype='fp16', scale=0.0, padded=False, n=1):
        c = values.shape[0]
        rep = round_up(c, LANES[layout]) if padded else c
        self.outputs.append([name, layout, etype, rep, values, scale, n])

    def write(self, folder):
        lines = [f'key {k} {v}' for k, v in self.keys.items()]
        lines.append(f'input {self.tensor[0]} {self.tensor[1]}')
        fw, fh, x, y, w, h, mode = self.frame
        lines.append(f'frame {fw} {fh} {x} {y} {w} {h} {mode}')
        lines.append(f'batch {self.batch}')
        stored = {}
        for i, (name, layout, etype, rep, values, scale, n) in enumerate(self.outputs):
            raw, st = pack(values, layout, etype, scale or 1.0, n, self.batch)
            stored[name] = st
            path = os.path.join(folder, f'{self.name}-{i}.bin')
            with open(path, 'wb') as f:
                f.write(raw)
            lines.append(f'output {name} {layout} {etype} {n} {rep} {values.shape[1]} {values.shape[2]} '
                         f'{scale} {path}')
        path = os.path.join(folder, self.name + '.case')
        with open(path, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        return path, stored


def background(rng, c, h, w, low=-9.0):
    v = rng.uniform(-1.0, 1.0, (c, h, w))
    return v


def yolo_case(rng, name, formula, levels, classes, act, layout='chw16', etype='fp16', order=None, padded=False,
              frame=(1920, 1080, 0, 0, 1920, 1080, 'letterbox'), tensor=(640, 640), cells=False, extra=None,
              batch=(1, 0)):
    """levels: [(stride, anchors in pixels)]; planted objects per level incl. overlapping pairs."""
    keys = {'dlainfer-decoder': 'yolo-anchors', 'dlainfer-box-formula': formula,
            'dlainfer-class-activation': act, 'dlainfer-classes': classes,
            'dlainfer-strides': ','.join(str(s) for s, _ in levels),
            'dlainfer-anchor-unit': 'cells' if cells else 'pixels',
            'dlainfer-anchors': ';'.join(','.join(f'{a / (s if cells else 1):.6g},{b / (s if cells else 1):.6g}'
                                                  for a, b in anc) for s, anc in levels),
            'dlainfer-threshold': 0.3, 'dlainfer-nms-iou-threshold': 0.45}
    keys.update(extra or {})
    case = Case(name, keys, tensor, frame)
    case.batch = batch[1]
    outs = []
    scale = 0.1 if etype == 'int8' else 0.0
    for li, (s, anc) in enumerate(levels):
        h, w = tensor[1] // s, tensor[0] // s
        a_n = len(anc)
        v = background(rng, a_n * (5 + classes), h, w).reshape(a_n, 5 + classes, h, w)
        v[:, 4] = rng.uniform(-9.0, -6.0, (a_n, h, w))
        for k in range(6):
            a, y, x = rng.integers(a_n), rng.integers(h), rng.integers(w)
            c = rng.integers(max(classes, 1))
            for dx in ([0, 1] if k < 2 else [0]):  # neighbours: overlapping, same class
                xx = min(x + dx, w - 1)
                v[a, :4, y, xx] = v[a, :4, y, x] + rng.uniform(-0.05, 0.05, 4)  # the same box a cell on
                v[a, 4, y, xx] = rng.uniform(1.0, 4.0)
                if classes:
                    v[a, 5 + c, y, xx] = rng.uniform(2.0, 5.0)
            if k == 2 and classes > 1:  # same place, another class: kept by class-aware NMS
                v[(a + 1) % a_n, :4, y, x] = v[a, :4, y, x]
                v[(a + 1) % a_n, 4, y, x] = 2.5
                v[(a + 1) % a_n, 5 + (c + 1) % classes, y, x] = 4.0
        outs.append((f'head{s}', v.reshape(-1, h, w)))
    for i in (order or range(len(outs))):
        case.add(outs[i][0], outs[i][1], layout, etype, scale, padded, batch[0])
    return case


def decode_yolo(case, stored):
    k = case.keys
    strides = [int(s) for s in str(k['dlainfer-strides']).split(',')]
    cells = k['dlainfer-anchor-unit'] == 'cells'
    anchors = []
    for s, lvl in zip(strides, k['dlainfer-anchors'].split(';')):
        f = [float(t) for t in lvl.split(',')]
        anchors.append([(f[i] * (s if cells else 1), f[i + 1] * (s if cells else 1)) for i in range(0, len(f), 2)])
    parts = [yolo_level(stored[f'head{s}'], s, anc, int(k['dlainfer-classes']), k['dlainfer-box-formula'],
                        k['dlainfer-class-activation']) for s, anc in zip(strides, anchors)]
    return [np.concatenate(p) for p in zip(*parts)]


def v8_case(rng, name, classes, fused, layout='chw16', etype='fp16', order=None, padded=True, reg_max=16,
            frame=(1920, 1080, 100, 60, 1600, 900, 'letterbox'), tensor=(320, 320)):
    keys = {'dlainfer-decoder': 'yolov8', 'dlainfer-classes': classes, 'dlainfer-reg-max': reg_max,
            'dlainfer-threshold': 0.3, 'dlainfer-nms-iou-threshold': 0.5, 'dlainfer-strides': '8,16,32'}
    case = Case(name, keys, tensor, frame)
    outs = []
    scale = 0.1 if etype == 'int8' else 0.0
    for s in (8, 16, 32):
        h, w = tensor[1] // s, tensor[0] // s
        box = rng.uniform(-2.0, 2.0, (4 * reg_max, h, w))
        cls = rng.uniform(-9.0, -6.0, (classes, h, w))
        for k in range(5):
            y, x, c = rng.integers(h), rng.integers(w), rng.integers(classes)
            for dx in ([0, 1] if k < 2 else [0]):
                xx = min(x + dx, w - 1)
                cls[c, y, xx] = rng.uniform(1.0, 4.0)
                bins = box[:, y, xx].reshape(4, reg_max)
                bins[:, 1:4] += 6.0  # a box a few cells wide: neighbours overlap
        if fused:
            outs.append((f'p{s}', np.concatenate([box, cls])))
        else:
            outs += [(f'box{s}', box), (f'cls{s}', cls)]
    for i in (order or range(len(outs))):
        case.add(outs[i][0], outs[i][1], layout, etype, scale, padded)
    return case


def decode_v8(case, stored):
    k = case.keys
    c, r = int(k['dlainfer-classes']), int(k['dlainfer-reg-max'])
    parts = []
    for s in (8, 16, 32):
        if f'p{s}' in stored:
            box, cls = stored[f'p{s}'][:4 * r], stored[f'p{s}'][4 * r:4 * r + c]
        else:
            box, cls = stored[f'box{s}'], stored[f'cls{s}']
        parts.append(yolov8_level(box, cls, s, r))
    return [np.concatenate(p) for p in zip(*parts)]


def decoded_case(rng, name, classes, tensor=(320, 320)):
    keys = {'group-id': 'yolo-v8-out', 'dlainfer-threshold': 0.3, 'dlainfer-nms-iou-threshold': 0.5}
    n = 300
    v = np.zeros((4 + classes, 1, n))
    v[0, 0], v[1, 0] = rng.uniform(0, tensor[0], n), rng.uniform(0, tensor[1], n)
    v[2, 0], v[3, 0] = rng.uniform(5, 60, n), rng.uniform(5, 60, n)
    v[4:, 0] = rng.uniform(0.0, 0.2, (classes, n))
    hits = rng.choice(n, 25, replace=False)
    v[4 + rng.integers(classes, size=25), 0, hits] = rng.uniform(0.4, 0.95, 25)
    case = Case(name, keys, tensor, (1280, 720, 0, 0, 1280, 720, 'letterbox'))
    case.add('output0', v, 'dla_linear', 'fp16')
    return case


def decode_decoded(case, stored):
    v = stored['output0'][:, 0]
    boxes = np.stack([v[0] - v[2] / 2, v[1] - v[3] / 2, v[0] + v[2] / 2, v[1] + v[3] / 2], -1)
    return boxes, v[4:].max(0), v[4:].argmax(0)


SSD_LEVELS = [(16, 19, 60.0, 111.0, [2.0]), (32, 10, 111.0, 162.0, [2.0, 3.0])]


def ssd_case(rng, name, classes, fused, act, yxhw, layout='chw16', etype='fp16', order=None):
    keys = {'dlainfer-decoder': 'ssd', 'dlainfer-classes': classes, 'dlainfer-background-class': 0,
            'dlainfer-class-activation': act, 'dlainfer-box-order': 'yxhw' if yxhw else 'xywh',
            'dlainfer-strides': ','.join(str(s) for s, *_ in SSD_LEVELS),
            'dlainfer-min-sizes': ','.join(str(l[2]) for l in SSD_LEVELS),
            'dlainfer-max-sizes': ','.join(str(l[3]) for l in SSD_LEVELS),
            'dlainfer-aspect-ratios': ';'.join(','.join(str(r) for r in l[4]) for l in SSD_LEVELS),
            'dlainfer-threshold': 0.4, 'dlainfer-nms-iou-threshold': 0.45, 'dlainfer-variances': '0.1,0.1,0.2,0.2'}
    case = Case(name, keys, (300, 300), (1920, 1080, 0, 0, 1920, 1080, 'stretch'))
    scale = 0.1 if etype == 'int8' else 0.0
    outs = []
    for step, g, mn, mx, ratios in SSD_LEVELS:
        a_n = len(caffe_priors(mn, mx, ratios, True))
        box = rng.uniform(-1.0, 1.0, (a_n * 4, g, g))
        cls = rng.uniform(-6.0, -3.0, (a_n, classes, g, g))
        cls[:, 0] = 6.0  # background wins everywhere ...
        for k in range(6):
            a, y, x, c = rng.integers(a_n), rng.integers(g), rng.integers(g), 1 + rng.integers(classes - 1)
            for dx in ([0, 1] if k < 2 else [0]):
                xx = min(x + dx, g - 1)
                cls[a, 0, y, xx] = -3.0  # ... except at planted objects
                cls[a, c, y, xx] = rng.uniform(3.0, 6.0)
        cls = cls.reshape(-1, g, g)
        if fused:
            outs.append((f'pred{step}', np.concatenate([box, cls])))
        else:
            outs += [(f'loc{step}', box), (f'conf{step}', cls)]
    for i in (order or range(len(outs))):
        case.add(outs[i][0], outs[i][1], layout, etype, scale, False)
    return case


def decode_ssd(case, stored):
    k = case.keys
    c = int(k['dlainfer-classes'])
    parts = []
    for step, g, mn, mx, ratios in SSD_LEVELS:
        priors = caffe_priors(mn, mx, ratios, True)
        if f'pred{step}' in stored:
            v = stored[f'pred{step}']
            box, cls = v[:4 * len(priors)], v[4 * len(priors):]
        else:
            box, cls = stored[f'loc{step}'], stored[f'conf{step}']
        parts.append(ssd_level(box, cls, step, priors, c, 0, [0.1, 0.1, 0.2, 0.2], k['dlainfer-class-activation'],
                               k['dlainfer-box-order'] == 'yxhw'))
    return [np.concatenate(p) for p in zip(*parts)]


def selection(keys):
    thresholds = {}
    for item in str(keys.get('dlainfer-class-thresholds', '')).split(','):
        if item:
            c, t = item.split(':')
            thresholds[int(c)] = float(t)
    if 'dlainfer-object-classes' in keys:
        keep = {int(c) for c in str(keys['dlainfer-object-classes']).split(',')}
        thresholds = {c: (thresholds.get(c, float(keys['dlainfer-threshold'])) if c in keep else 2.0)
                      for c in range(max(int(keys.get('dlainfer-classes', 1)), 1))}
    return {'threshold': float(keys['dlainfer-threshold']), 'thresholds': thresholds,
            'iou': float(keys['dlainfer-nms-iou-threshold']),
            'max_candidates': int(keys.get('dlainfer-max-candidates', 1024)),
            'max_detections': int(keys.get('dlainfer-max-detections', 100)),
            'agnostic': keys.get('dlainfer-class-agnostic-nms', 'false') == 'true'}


def run_cli(cli, path):
    p = subprocess.run([cli, path], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check(cli, folder, case, decoder, gpu):
    path, stored = case.write(folder)
    boxes, score, cls = decoder(case, stored)
    sel = selection(case.keys)
    kept, passed = select(boxes, score, cls, sel)
    want = to_frame(boxes[kept], case.frame, case.tensor) if kept else np.zeros((0, 4))
    rc, out, err = run_cli(cli, path)
    if rc != 0:
        return f'{case.name}: exit {rc}: {err.strip()}'
    lines = out.split('\n')
    head = lines[0].split()
    got = np.array([[float(t) for t in l.split()[1:]] for l in lines[1:] if l.startswith('det')]).reshape(-1, 6)
    dropped = max(0, passed - sel['max_candidates'])
    if gpu and dropped:  # which candidates the GPU keeps on overflow is its order's, so is what NMS keeps
        if [int(head[2]), int(head[3])] != [passed, dropped]:
            return f'{case.name}: candidates/dropped {head[2:4]} != oracle {[passed, dropped]}'
        print(f'ok {case.name}: {passed} candidates, {dropped} dropped (GPU: counts)')
        return None
    if [int(head[1]), int(head[2]), int(head[3])] != [len(kept), passed, dropped]:
        return f'{case.name}: count/candidates/dropped {head[1:]} != oracle {[len(kept), passed, dropped]}'
    if len(kept) < 3 and 'few' not in case.name:
        return f'{case.name}: the oracle finds only {len(kept)} detections: a weak case'
    if not np.array_equal(got[:, 5].astype(int), cls[kept]):
        return f'{case.name}: classes {got[:, 5].astype(int).tolist()} != oracle {cls[kept].tolist()}'
    if not np.allclose(got[:, 4], score[kept], rtol=1e-4, atol=1e-6):
        return f'{case.name}: scores {got[:, 4].tolist()} != oracle {score[kept].tolist()}'
    if not np.allclose(got[:, :4], want, atol=0.02, rtol=0):
        bad = np.argmax(np.abs(got[:, :4] - want).max(1))
        return f'{case.name}: box {bad} {got[bad, :4].tolist()} != oracle {want[bad].tolist()}'
    suppressed = passed - len(kept)
    print(f'ok {case.name}: {len(kept)} detections of {passed} candidates ({suppressed} suppressed/cut, '
          f'{dropped} dropped)')
    return None


V5 = [(8, [(10, 13), (16, 30), (33, 23)]), (16, [(30, 61), (62, 45), (59, 119)]), (32, [(116, 90), (156, 198), (373, 326)])]
FACE = [(32, [(1.603231 * 32, 2.094468 * 32), (6.041143 * 32, 7.080126 * 32), (2.882459 * 32, 3.518061 * 32),
              (4.266906 * 32, 5.178857 * 32), (9.041765 * 32, 10.66308 * 32)])]


def good_cases(rng):
    yield yolo_case(rng, 'yolov5-chw16-fp16-shuffled', 'yolov5', V5, 80, 'sigmoid', order=[2, 0, 1], padded=True), decode_yolo
    yield yolo_case(rng, 'yolov5-chw32-int8', 'yolov5', V5, 80, 'sigmoid', 'chw32', 'int8', order=[1, 2, 0],
                    padded=True), decode_yolo
    yield yolo_case(rng, 'yolov5-linear-batch2', 'yolov5', V5[:2], 3, 'sigmoid', 'dla_linear', 'fp16',
                    frame=(1920, 1080, 320, 100, 1280, 960, 'letterbox'), batch=(2, 1)), decode_yolo
    yield yolo_case(rng, 'yolov2-face-cells', 'yolov2', FACE, 0, 'sigmoid', 'dla_linear', 'fp16',
                    tensor=(416, 416), cells=True, frame=(1280, 720, 0, 0, 1280, 720, 'stretch')), decode_yolo
    yield yolo_case(rng, 'yolov2-softmax-chw16', 'yolov2', FACE, 4, 'softmax', tensor=(416, 416),
                    padded=True), decode_yolo
    yield yolo_case(rng, 'yolov5-class-thresholds', 'yolov5', V5, 6, 'sigmoid',
                    extra={'dlainfer-class-thresholds': '1:0.6,2:0.9', 'dlainfer-object-classes': '0,1,2,4'}), decode_yolo
    yield yolo_case(rng, 'yolov5-agnostic-max-det', 'yolov5', V5, 6, 'sigmoid',
                    extra={'dlainfer-class-agnostic-nms': 'true', 'dlainfer-max-detections': 5}), decode_yolo
    yield yolo_case(rng, 'yolov5-overflow', 'yolov5', V5, 6, 'sigmoid',
                    extra={'dlainfer-max-candidates': 7}), decode_yolo
    yield v8_case(rng, 'yolov8-split-chw16-shuffled', 5, False, order=[3, 0, 5, 1, 4, 2]), decode_v8
    yield v8_case(rng, 'yolov8-fused-chw32-int8', 7, True, 'chw32', 'int8', order=[2, 1, 0]), decode_v8
    yield decoded_case(rng, 'yolov8-decoded-linear', 3), decode_decoded
    yield ssd_case(rng, 'ssd-fused-softmax-chw16', 6, True, 'softmax', False, order=[1, 0]), decode_ssd
    yield ssd_case(rng, 'ssd-split-sigmoid-yxhw-int8', 5, False, 'sigmoid', True, 'chw32', 'int8',
                   order=[3, 1, 0, 2]), decode_ssd


def bad_cases(rng):
    """(case, words the message must hold: the expectation and the model's tensor)."""
    c = yolo_case(rng, 'bad-count', 'yolov5', V5, 80, 'sigmoid')
    c.outputs = c.outputs[:2]
    yield c, ['expects 3 levels', "'head8'", "'head16'"]
    c = yolo_case(rng, 'bad-channels', 'yolov5', V5, 80, 'sigmoid')
    c.keys['dlainfer-classes'] = 20
    yield c, ['expects 75 channels', "'head8'", '255']
    c = yolo_case(rng, 'bad-stride', 'yolov5', V5, 80, 'sigmoid')
    c.keys['dlainfer-strides'] = '8,16,64'
    yield c, ['stride 64', '10x10 grid', "'head32'", '20x20']
    c = v8_case(rng, 'bad-v8-regmax', 5, False)
    c.keys['dlainfer-reg-max'] = 8
    yield c, ['box output (32 channels)', "'box8'", '1x64x40x40']
    c = ssd_case(rng, 'bad-ssd-priors', 6, False, 'softmax', False)
    c.keys['dlainfer-aspect-ratios'] = '2;2'
    yield c, ['box output (16 channels)', "'loc32'", '1x24x10x10']
    c = yolo_case(rng, 'bad-key', 'yolov5', V5, 80, 'sigmoid')
    c.keys['dlainfer-nms-iou-threshold'] = 'high'
    yield c, ['dlainfer-nms-iou-threshold=high', 'IoU in (0, 1]']
    c = decoded_case(rng, 'bad-decoded-two-outputs', 3)
    c.add('extra', np.zeros((7, 1, 300)), 'dla_linear', 'fp16')
    yield c, ['one output', "'output0'", "'extra'"]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--cli', required=True)
    ap.add_argument('--gpu', action='store_true', help='the driver is the GPU decode')
    args = ap.parse_args()
    rng = np.random.default_rng(20240601)
    failures = []
    with tempfile.TemporaryDirectory() as folder:
        for case, decoder in good_cases(rng):
            err = check(args.cli, folder, case, decoder, args.gpu)
            if err:
                failures.append(err)
        for case, words in bad_cases(rng):
            path, _ = case.write(folder)
            rc, out, err = run_cli(args.cli, path)
            missing = [w for w in words if w not in err]
            if rc != 3 or missing:
                failures.append(f'{case.name}: exit {rc}, message {err.strip()!r} lacks {missing}')
            else:
                print(f'ok {case.name}: {err.strip()}')
    for f in failures:
        print('FAIL', f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
